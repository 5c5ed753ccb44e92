import DeviceMotion
import Testing

extension MotionManager {
    /// A manager whose every endpoint fails the current test, naming the endpoint, and then fails as
    /// `MotionManager.unimplemented` does (throws, or finishes the stream with, `MotionManagerError` code
    /// `unimplemented`). Code under test that calls with `try?`, or ignores a stream's error, still fails
    /// the test: the issue is recorded when the endpoint is called (swift-dependencies' `unimplemented`).
    ///
    /// ```swift
    /// var manager = MotionManager.failing()
    /// manager.create = { _ in }  // the only endpoint this code should call
    /// try model.start(with: manager)
    /// ```
    /// - Parameter sourceLocation: Where the issue is reported: by default, where `failing()` is called.
    /// - Returns: The manager.
    public static func failing(sourceLocation: SourceLocation = #_sourceLocation) -> MotionManager {
        unimplemented(reporting: { error in
            Issue.record(
                "MotionManager.failing(): \(error.endpoint) was called, and this test did not expect it. To fix, give the endpoint an implementation (`manager.\(error.endpoint) = { … }`) or keep the code under test from calling it",
                sourceLocation: sourceLocation)
        })
    }
}
