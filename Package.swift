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
    ],
    targets: [
        // MARK: Core runtime
        .target(name: "MotionCore"),

        // MARK: Plugin host
        // libcrypto (OpenSSL) for the SHA-256 of a plugin library before it is loaded.
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .target(name: "MotionHost", dependencies: ["MotionCore", "COpenSSL"]),
        .testTarget(name: "MotionHostTests", dependencies: ["MotionHost", "MotionCore"]),
        .executableTarget(
            name: "discovery-benchmark", dependencies: ["MotionHost", "MotionCore"],
            path: "Benchmarks/DiscoveryBenchmark", exclude: ["lilv-describe.c"]),

        // MARK: Device motion
        .target(name: "DeviceMotion"),

        // MARK: Test support (public, for users' own tests too)
        .target(name: "MotionTesting", dependencies: ["MotionCore"]),

        // MARK: Tests
        .testTarget(name: "MotionCoreTests", dependencies: ["MotionCore", "MotionTesting"]),
    ]
)

// Strict settings for every Swift target.
let cTargets: Set<String> = ["COpenSSL"]
for target in package.targets where target.type != .system && !cTargets.contains(target.name) {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    target.swiftSettings = settings
}
