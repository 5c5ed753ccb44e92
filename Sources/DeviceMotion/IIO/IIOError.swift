/// Why a Linux IIO sensor could not be found, read or configured.
///
/// `code` says what kind of failure; `message` what happened and how to fix it; `path` the sysfs file or
/// folder concerned.
public struct IIOError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure. New codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Value: Hashable, Sendable {
            case noDevices, noSensor, unreadableAttribute, malformedAttribute, notWritable
        }
        fileprivate let value: Value

        /// The sysfs root holds no IIO device (or cannot be listed).
        public static let noDevices = Code(value: .noDevices)
        /// No device has the channels of the sensor asked for.
        public static let noSensor = Code(value: .noSensor)
        /// An attribute file could not be read.
        public static let unreadableAttribute = Code(value: .unreadableAttribute)
        /// An attribute file does not hold what the kernel's ABI describes.
        public static let malformedAttribute = Code(value: .malformedAttribute)
        /// An attribute cannot be written (not present, or read-only).
        public static let notWritable = Code(value: .notWritable)

        /// The code's name, e.g. `"noSensor"`.
        public var description: String { "\(value)" }
    }

    /// The kind of failure.
    public var code: Code
    /// What happened and how to fix it.
    public var message: String
    /// The sysfs file or folder concerned.
    public var path: String
    /// A lower-level cause, described.
    public var underlying: String?

    /// Creates an error.
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: What happened and how to fix it.
    ///   - path: The sysfs path concerned.
    ///   - underlying: A lower-level cause, if any.
    public init(_ code: Code, _ message: String, path: String, underlying: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.underlying = underlying
    }

    /// `path: message`, then the underlying cause if any.
    public var description: String {
        "\(path): \(message)" + (underlying.map { " (\($0))" } ?? "")
    }
}
