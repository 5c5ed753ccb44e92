// swift-tools-version: 6.3
// The motion runtime, its plugin host, device motion and the `motion-host` CLI.
// Module map and boundaries: see README.md ("Modules").
import PackageDescription

// Plugins: export only the entry symbol (and, for declarative C plugins, their declared functions).
let hiddenCSymbols: [CSetting] = [.unsafeFlags(["-fvisibility=hidden"])]
/// Links a plugin with lld (shipped with the toolchain; unlike gold it keeps local symbols out of .dynsym)
/// and a version script that lists the only symbols it exports.
func exporting(only versionScript: String) -> [LinkerSetting] {
    [
        .linkedLibrary("m"),
        .unsafeFlags(["-use-ld=lld", "-Xlinker", "--version-script=\(Context.packageDirectory)/\(versionScript)"]),
    ]
}
let entryOnly = exporting(only: "Plugins/entry-only.map")
/// Debug information as DWARF 4 for the C and C++ targets linked into the host and the benchmarks: Debian 12's
/// valgrind (3.19) gives up on a binary with any DWARF 5 unit, which clang writes by default, and the
/// benchmark's instruction counts come from callgrind. (Swift targets already use DWARF 4.)
let dwarf4: [CSetting] = [.unsafeFlags(["-gdwarf-4"])]
let dwarf4CXX: [CXXSetting] = [.unsafeFlags(["-gdwarf-4"])]
/// A C fixture plugin for the host's validator and tests, in Tests/Fixtures/PluginSources/<name>.
func cFixture(
    _ name: String, exporting versionScript: String = "Plugins/entry-only.map",
    dependencies: [Target.Dependency] = []
) -> Target {
    .target(
        name: name, dependencies: ["CMotionABI"] + dependencies, path: "Tests/Fixtures/PluginSources/\(name)",
        cSettings: hiddenCSymbols, linkerSettings: exporting(only: versionScript))
}
/// A Swift fixture plugin (through MotionPluginKit), in Tests/Fixtures/PluginSources/<name>.
func swiftFixture(_ name: String) -> Target {
    .target(
        name: name, dependencies: ["MotionPluginKit"], path: "Tests/Fixtures/PluginSources/\(name)",
        linkerSettings: entryOnly)
}
let cFixturePlugins = [
    "FixtureCrashOnCreate", "FixtureHangOnAdd", "FixtureWrongABIMajor", "FixtureNoEntrySymbol", "FixtureRefuses",
    "FixtureTestPerformers", "FixtureUpdateManyMismatch", "FixtureLateCalls", "FixtureNoisyRefusal", "FixtureFaults",
    "FixtureConfinement", "FixtureCrashInEntry",
]
let swiftFixturePlugins = ["FixtureTokenMisuse", "FixtureDeviceMotionEcho", "FixturePlanProbe"]

let package = Package(
    name: "MotionRuntime",
    products: [
        .library(name: "MotionCore", targets: ["MotionCore"]),
        .library(name: "MotionTesting", targets: ["MotionTesting"]),
        .library(name: "DeviceMotion", targets: ["DeviceMotion"]),
        .library(name: "MotionHost", targets: ["MotionHost"]),
        .library(name: "MotionLive", targets: ["MotionLive"]),
        .executable(name: "motion-host", targets: ["motion-host"]),
        .executable(name: "motion-sandbox", targets: ["motion-sandbox"]),
        .library(name: "MotionAnimation", targets: ["MotionAnimation"]),
        .library(name: "MotionPluginKit", targets: ["MotionPluginKit"]),
        // Plugins
        .library(name: "TweenKit", type: .dynamic, targets: ["TweenKit"]),
        .library(name: "CPerformers", type: .dynamic, targets: ["CPerformers"]),
        .library(name: "CDeclarative", type: .dynamic, targets: ["CDeclarative"]),
        .library(name: "DeviceMotionKit", type: .dynamic, targets: ["DeviceMotionKit"]),
        // The README's worked plugins (Examples/Plugins), built and tested like the samples.
        .library(name: "Pulse", type: .dynamic, targets: ["Pulse"]),
        .library(name: "Setter", type: .dynamic, targets: ["Setter"]),
        .library(name: "Fader", type: .dynamic, targets: ["Fader"]),
        // Fixture plugins (misbehaving on purpose, or mirroring MotionTesting's test performers; manifests in
        // Tests/Fixtures/plugins)
    ]
        + (cFixturePlugins + swiftFixturePlugins).map { .library(name: $0, type: .dynamic, targets: [$0]) },
    targets: [
        // MARK: C ABI
        // The versioned C ABI every plugin and the host share (header only; see motion_plugin.h).
        .target(name: "CMotionABI"),
        .systemLibrary(name: "CLibFFI", pkgConfig: "libffi", providers: [.apt(["libffi-dev"])]),

        // MARK: Animation math (shared by plugins and in-process performers)
        .target(name: "MotionAnimation"),
        // MARK: Values both sides of the plugin boundary share (JSONValue, Quaternion), re-exported by
        // MotionCore, DeviceMotion and MotionPluginKit, which may not depend on each other. It holds only what
        // the SDK needs (the rest is in MotionCore and DeviceMotion): a Swift plugin grows by about 6 KB.
        .target(name: "MotionValues"),

        // MARK: SDK
        // The Swift SDK for plugin authors: C types and JSON bytes only cross the boundary.
        .target(name: "MotionPluginKit", dependencies: ["CMotionABI", "CMotionPluginKitSupport", "MotionValues"]),
        // Its one inline C helper (header only): the calling thread's identity without a call.
        .target(name: "CMotionPluginKitSupport"),

        // MARK: Plugins
        // Sample performer plugins, each a .dynamic library product lib<Name>.so that exports only its entry
        // symbol or its declared functions (lld + a version script; C also -fvisibility=hidden).
        .target(
            name: "TweenKit", dependencies: ["MotionPluginKit", "MotionAnimation"], path: "Plugins/TweenKit",
            linkerSettings: entryOnly),
        // Device-motion performers (Tiltable, VerticalMotion, ShakeDetector) over motion.device-motion/1.
        .target(name: "DeviceMotionKit", dependencies: ["MotionPluginKit"], path: "Plugins/DeviceMotionKit", linkerSettings: entryOnly),
        .target(
            name: "CPerformers", dependencies: ["CMotionABI"], path: "Plugins/CPerformers",
            cSettings: hiddenCSymbols, linkerSettings: entryOnly),
        .target(
            name: "CDeclarative", dependencies: ["CMotionABI"], path: "Plugins/CDeclarative",
            cSettings: hiddenCSymbols, linkerSettings: exporting(only: "Plugins/cdeclarative.map")),
        // The README's worked plugins, in Swift and in C.
        .target(name: "Pulse", dependencies: ["MotionPluginKit"], path: "Examples/Plugins/Pulse", linkerSettings: entryOnly),
        .target(
            name: "Setter", dependencies: ["CMotionABI"], path: "Examples/Plugins/Setter",
            cSettings: hiddenCSymbols, linkerSettings: entryOnly),
        .target(
            name: "Fader", dependencies: ["CMotionABI"], path: "Examples/Plugins/Fader",
            cSettings: hiddenCSymbols, linkerSettings: entryOnly),
        // Fixture plugins: misbehaving on purpose, for the host's validator and tests.
        cFixture("FixtureCrashOnCreate"),
        cFixture("FixtureHangOnAdd"),
        cFixture("FixtureWrongABIMajor"),
        cFixture("FixtureNoEntrySymbol", exporting: "Tests/Fixtures/PluginSources/no-entry.map"),
        cFixture("FixtureRefuses"),
        // MotionTesting's test performers across the C ABI, so runtime behaviour tests run through a plugin.
        cFixture("FixtureTestPerformers"),
        cFixture("FixtureUpdateManyMismatch"),
        cFixture("FixtureLateCalls", exporting: "Tests/Fixtures/PluginSources/late-calls.map"),
        cFixture("FixtureNoisyRefusal"),
        // Crashes, aborts or hangs at a chosen frame, on the scheduler's thread or its own.
        cFixture("FixtureFaults"),
        // Tries what an isolated plugin's sandbox forbids (execve, socket, memory past the limit, descriptors).
        cFixture("FixtureConfinement"),
        // Crashes in its entry: loading it kills its sandbox (isolated tests only).
        cFixture("FixtureCrashInEntry"),
        swiftFixture("FixtureTokenMisuse"),
        swiftFixture("FixtureDeviceMotionEcho"),
        swiftFixture("FixturePlanProbe"),

        // MARK: JSON
        // simdjson (Debian libsimdjson-dev) behind plain C functions: the one JSON parser of the runtime and
        // the host. The define mirrors `pkg-config --cflags simdjson` (it changes simdjson's parser layout).
        .target(
            name: "CMotionJSON", cSettings: dwarf4, cxxSettings: [.define("SIMDJSON_THREADS_ENABLED", to: "1")] + dwarf4CXX,
            linkerSettings: [.linkedLibrary("simdjson")]),

        // MARK: Core runtime
        .target(name: "MotionCore", dependencies: ["CMotionJSON", "MotionValues", "MotionFiles"]),
        // Reading files the host did not write: without blocking, regular files only, up to a size limit. And
        // what the runtime, host and CLI would otherwise take from full Foundation (they import
        // FoundationEssentials only): standard streams, C number formatting, detached threads, a pthread lock.
        .target(name: "MotionFiles"),

        // MARK: Plugin host
        // libcrypto (OpenSSL) for the SHA-256 of a plugin library before it is loaded: its header only (no
        // pkg-config, so nothing links it); MotionHost loads libcrypto.so.3 on first use (Internals/SHA256.swift).
        .systemLibrary(name: "COpenSSL", providers: [.apt(["libssl-dev"])]),
        // C shims for MotionHost: glibc's GNU extensions (dladdr1, dlinfo, memfd_create, file seals), and the host's
        // last words when a plugin crashes or hangs it (per-thread call marks, the loaded libraries' address ranges
        // and the timeline's buffer, read by signal handlers and a watchdog: async-signal-safe C).
        .target(name: "CMotionHostSupport", cSettings: dwarf4),
        // libseccomp (Debian libseccomp-dev): the system-call filter of an isolated plugin's sandbox.
        .systemLibrary(name: "CSeccomp", pkgConfig: "libseccomp", providers: [.apt(["libseccomp-dev"])]),
        .target(
            name: "MotionHost",
            dependencies: ["MotionCore", "MotionFiles", "CMotionABI", "CLibFFI", "COpenSSL", "CMotionHostSupport", "CSeccomp"]),
        // The sandbox an isolated plugin runs in (one process per plugin), started by the host beside itself.
        .executableTarget(name: "motion-sandbox", dependencies: ["MotionHost"]),
        .testTarget(name: "MotionHostTests", dependencies: ["MotionHost", "MotionCore", "MotionFiles"]),
        .executableTarget(
            name: "discovery-benchmark", dependencies: ["MotionHost", "MotionCore", "MotionFiles"],
            path: "Benchmarks/DiscoveryBenchmark", exclude: ["lilv-describe.c"]),

        // MARK: Device motion
        .target(name: "DeviceMotion", dependencies: ["MotionFiles", "MotionValues"]),
        // DeviceMotion values → the C ABI's motion_device_motion_sample (one conversion for the CLI and tests).
        .target(name: "DeviceMotionABI", dependencies: ["DeviceMotion", "CMotionABI"]),
        .testTarget(name: "AttitudeEstimationTests", dependencies: ["DeviceMotion", "AttitudeEvaluation"]),
        .target(name: "AttitudeEvaluation", dependencies: ["DeviceMotion"], path: "Benchmarks/AttitudeEvaluation"),
        .executableTarget(
            name: "attitude-benchmark", dependencies: ["DeviceMotion", "AttitudeEvaluation"],
            path: "Benchmarks/AttitudeBenchmark"),
        .testTarget(name: "DeviceMotionTests", dependencies: ["DeviceMotion", "MotionTesting"]),
        .executableTarget(
            name: "device-motion-benchmark", dependencies: ["DeviceMotion"], path: "Benchmarks/DeviceMotionBenchmarks"),

        // MARK: Test support (public, for users' own tests too)
        .target(name: "MotionTesting", dependencies: ["MotionCore", "DeviceMotion"]),

        // MARK: Benchmarks (release builds that print a table)
        .executableTarget(
            name: "motion-benchmark", dependencies: ["MotionCore", "MotionHost", "MotionAnimation", "CTweenLimit"],
            path: "Benchmarks/MotionBenchmark"),
        // The hand-written limit of the Tween frame tick, in C (no fused multiply-adds, as in the Swift it matches).
        .target(
            name: "CTweenLimit", path: "Benchmarks/TweenLimit", cSettings: [.unsafeFlags(["-ffp-contract=off"])] + dwarf4),

        // MARK: Live host
        // libwebsockets (Debian libwebsockets-dev 4.1): HTTP/1.1 and WebSocket parsing, on its own event loop.
        .systemLibrary(name: "CLibWebSockets", pkgConfig: "libwebsockets", providers: [.apt(["libwebsockets-dev"])]),
        // The live host: real-time frame clock, HTTP/WebSocket endpoints, live device-motion intake, live view.
        .target(name: "MotionLive", dependencies: ["MotionCore", "DeviceMotion", "CLibWebSockets"]),
        .testTarget(name: "MotionLiveTests", dependencies: ["MotionLive", "MotionCore", "DeviceMotion", "LoopbackTesting"]),
        // A blocking HTTP/WebSocket client to 127.0.0.1, for MotionLive's and the CLI's tests.
        .target(name: "LoopbackTesting", path: "Tests/LoopbackTesting"),

        // `motion-host run` as a whole process at 10,000 and 100,000 Tweens: frames/s and the growth (prints a table).
        .executableTarget(name: "cli-benchmark", path: "Benchmarks/CLIBenchmark"),

        // The live host's goals over real loopback sockets against the release motion-host (prints a table).
        .executableTarget(name: "serve-benchmark", dependencies: ["LoopbackTesting"], path: "Benchmarks/ServeBenchmark"),
        // Hot reload (issue 14): from a rebuilt library renamed into place to its reload line (prints a table).
        .executableTarget(name: "reload-benchmark", path: "Benchmarks/ReloadBenchmark"),

        // MARK: CLI
        .executableTarget(
            name: "motion-host",
            dependencies: [
                "MotionCore", "MotionHost", "MotionFiles", "DeviceMotion", "DeviceMotionABI", "CMotionABI", "MotionLive",
                "CMotionHostSupport",
            ]),

        // MARK: Tests
        .testTarget(name: "MotionCoreTests", dependencies: ["MotionCore", "MotionTesting", "DeviceMotion"]),
        // The runtime behaviours through the plugin boundary: dlopens the built fixture plugins, never links them.
        .testTarget(name: "PluginBoundaryTests", dependencies: ["MotionCore", "MotionTesting", "MotionHost", "CTweenLimit"]),
        .testTarget(name: "MotionHostCLITests", dependencies: ["MotionCore", "LoopbackTesting"], exclude: ["Fixtures"]),
        .testTarget(name: "MotionAnimationTests", dependencies: ["MotionAnimation"]),
        // Loads the built plugin products with dlopen; never links them (nor MotionPluginKit).
        .testTarget(name: "MotionPluginKitTests", dependencies: ["CMotionABI"]),
        // DeviceMotionKit through the real plugin host (dlopen of the built .so; never links the plugin).
        .testTarget(
            name: "DeviceMotionKitTests",
            dependencies: [
                "MotionCore", "MotionHost", "MotionTesting", "DeviceMotion", "DeviceMotionABI", "CMotionABI",
            ]),
    ],
    cxxLanguageStandard: .cxx17
)

// Strict settings for every Swift target.
// Strict memory safety (SE-0458: every use of an unsafe construct is marked `unsafe`) where the code is clean
// of unmarked uses. Not yet: MotionCore, MotionHost, MotionPluginKit, motion-host, FixtureTokenMisuse, the
// discovery, attitude and motion benchmarks, and the MotionCore, MotionHost, MotionHostCLI and MotionPluginKit
// tests (about 1,200 unmarked uses in all, mostly C-ABI pointers; a target joins when its uses are marked).
let strictMemorySafeTargets: Set<String> = [
    "MotionFiles", "MotionAnimation", "MotionValues", "DeviceMotion", "DeviceMotionABI", "MotionTesting", "AttitudeEvaluation",
    "TweenKit", "DeviceMotionKit", "Pulse", "FixtureDeviceMotionEcho", "FixturePlanProbe",
    "MotionAnimationTests", "DeviceMotionTests", "AttitudeEstimationTests", "DeviceMotionKitTests",
    "PluginBoundaryTests", "device-motion-benchmark",
]
let cTargets = Set(
    ["CMotionABI", "CMotionPluginKitSupport", "CMotionHostSupport", "CMotionJSON", "CPerformers", "CDeclarative", "Setter", "Fader", "CTweenLimit"]
        + cFixturePlugins)
for target in package.targets where target.type != .system && !cTargets.contains(target.name) {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    if strictMemorySafeTargets.contains(target.name) { settings.append(.strictMemorySafety()) }
    target.swiftSettings = settings
}
