/// Why a `MotionManager` endpoint failed.
///
/// `code` says what kind of failure; `message` what happened and how to fix it; `endpoint` the endpoint
/// concerned (e.g. `"startDeviceMotionUpdates"`).
public struct MotionManagerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure. New codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Value: Hashable, Sendable {
            case unimplemented, unknownManager, managerAlreadyExists, sensorUnavailable, referenceFrameUnavailable
            case invalidUpdateInterval
        }
        fileprivate let value: Value

        /// The endpoint has no implementation in this `MotionManager` value (`MotionManager.unimplemented`).
        public static let unimplemented = Code(value: .unimplemented)
        /// No manager was created with this id.
        public static let unknownManager = Code(value: .unknownManager)
        /// A manager with this id exists already.
        public static let managerAlreadyExists = Code(value: .managerAlreadyExists)
        /// The source has no such sensor.
        public static let sensorUnavailable = Code(value: .sensorUnavailable)
        /// The source cannot give attitudes in that reference frame.
        public static let referenceFrameUnavailable = Code(value: .referenceFrameUnavailable)
        /// An update interval is negative or not finite.
        public static let invalidUpdateInterval = Code(value: .invalidUpdateInterval)

        /// The code's name, e.g. `"unknownManager"`.
        public var description: String { "\(value)" }
    }

    /// The kind of failure.
    public var code: Code
    /// What happened and how to fix it.
    public var message: String
    /// The endpoint concerned.
    public var endpoint: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: What happened and how to fix it.
    ///   - endpoint: The endpoint concerned.
    public init(_ code: Code, _ message: String, endpoint: String) {
        self.code = code
        self.message = message
        self.endpoint = endpoint
    }

    /// `MotionManager.endpoint: message`.
    public var description: String { "MotionManager.\(endpoint): \(message)" }
}
