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
        .library(name: "MotionAnimation", targets: ["MotionAnimation"]),
        .library(name: "MotionPluginKit", targets: ["MotionPluginKit"]),
    ],
    targets: [
        // MARK: C ABI
        // The versioned C ABI every plugin and the host share (header only; see motion_plugin.h).
        .target(name: "CMotionABI"),

        // MARK: Animation math (shared by plugins and in-process performers)
        .target(name: "MotionAnimation"),

        // MARK: SDK
        // The Swift SDK for plugin authors: C types and JSON bytes only cross the boundary.
        .target(name: "MotionPluginKit", dependencies: ["CMotionABI"]),

        // MARK: Core runtime
        .target(name: "MotionCore"),

        // MARK: Device motion
        .target(name: "DeviceMotion"),

        // MARK: Test support (public, for users' own tests too)
        .target(name: "MotionTesting", dependencies: ["MotionCore"]),

        // MARK: Tests
        .testTarget(name: "MotionCoreTests", dependencies: ["MotionCore", "MotionTesting"]),
        .testTarget(name: "MotionAnimationTests", dependencies: ["MotionAnimation"]),
    ]
)

// Strict settings for every Swift target.
let cTargets: Set<String> = ["CMotionABI"]
for target in package.targets where target.type != .system && !cTargets.contains(target.name) {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    target.swiftSettings = settings
}
