// swift-tools-version: 6.0
// The motion runtime, its plugin host, device motion and the `motion-host` CLI.
// Module map and boundaries: see README.md ("Modules").
import PackageDescription

let package = Package(
    name: "MotionRuntime",
    products: [
        .library(name: "MotionCore", targets: ["MotionCore"]),
        .library(name: "MotionTesting", targets: ["MotionTesting"]),
        .library(name: "DeviceMotion", targets: ["DeviceMotion"]),
        .library(name: "MotionHost", targets: ["MotionHost"]),
        .executable(name: "motion-host", targets: ["motion-host"]),
    ],
    targets: [
        // MARK: C ABI and C libraries
        .target(name: "CMotionABI"),
        .systemLibrary(name: "CLibFFI", pkgConfig: "libffi", providers: [.apt(["libffi-dev"])]),

        // MARK: Core runtime
        .target(name: "MotionCore"),

        // MARK: Plugin host
        // libcrypto (OpenSSL) for the SHA-256 of a plugin library before it is loaded.
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .target(name: "MotionHost", dependencies: ["MotionCore", "CMotionABI", "CLibFFI", "COpenSSL"]),
        .testTarget(name: "MotionHostTests", dependencies: ["MotionHost", "MotionCore"]),
        .executableTarget(
            name: "discovery-benchmark", dependencies: ["MotionHost", "MotionCore"],
            path: "Benchmarks/DiscoveryBenchmark", exclude: ["lilv-describe.c"]),

        // MARK: Device motion
        .target(name: "DeviceMotion"),
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
        .executableTarget(name: "motion-benchmark", dependencies: ["MotionCore"], path: "Benchmarks/MotionBenchmark"),
        // MARK: CLI
        .executableTarget(name: "motion-host", dependencies: ["MotionCore", "MotionHost", "DeviceMotion", "CMotionABI"]),

        // MARK: Tests
        .testTarget(name: "MotionCoreTests", dependencies: ["MotionCore", "MotionTesting"]),
        .testTarget(name: "MotionHostCLITests", dependencies: ["MotionCore"], exclude: ["Fixtures"]),
    ]
)

// Strict settings for every Swift target.
let cTargets: Set<String> = ["CMotionABI"]
for target in package.targets where target.type != .system && !cTargets.contains(target.name) {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    target.swiftSettings = settings
}
