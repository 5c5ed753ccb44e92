/// Why a recording could not be read or turned into device motion.
///
/// `code` says what kind of failure it is; `message` says what happened and how to fix it; `path`, `line`
/// and `column` say where (1-based; `column` is the CSV column, i.e. the field number in the line).
/// `description` reads `path:line:column: message`.
public struct RecordingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure. New codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Value: Hashable, Sendable {
            case unrecognizedFormat, unreadableFile, missingColumn, malformedRow, mismatchedFiles, emptyRecording
            case referenceFrameUnavailable, attitudeUnavailable
        }
        fileprivate let value: Value

        /// The file is none of the formats this library reads (detected from its header or shape).
        public static let unrecognizedFormat = Code(value: .unrecognizedFormat)
        /// The file or folder could not be opened or read.
        public static let unreadableFile = Code(value: .unreadableFile)
        /// A header lacks a column the format needs.
        public static let missingColumn = Code(value: .missingColumn)
        /// A row has a field that is not what the format expects (a number, a count of fields, …).
        public static let malformedRow = Code(value: .malformedRow)
        /// Files that belong together (a logger pair, a Sensor Logger folder) do not match each other.
        public static let mismatchedFiles = Code(value: .mismatchedFiles)
        /// The recording holds no samples.
        public static let emptyRecording = Code(value: .emptyRecording)
        /// The reference frame asked for cannot be computed from this recording's data (or on Linux at all).
        public static let referenceFrameUnavailable = Code(value: .referenceFrameUnavailable)
        /// The recording holds neither attitudes nor the raw sensors to estimate them.
        public static let attitudeUnavailable = Code(value: .attitudeUnavailable)

        /// The code's name, e.g. `"malformedRow"`.
        public var description: String { "\(value)" }
    }

    /// The kind of failure.
    public var code: Code
    /// What happened and how to fix it.
    public var message: String
    /// The file or folder concerned.
    public var path: String
    /// The 1-based line in `path`, when the failure concerns one.
    public var line: Int?
    /// The 1-based CSV column (field number) in `line`, when the failure concerns one.
    public var column: Int?
    /// A lower-level cause, described (for example the operating system's error).
    public var underlying: String?

    /// Creates an error.
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: What happened and how to fix it.
    ///   - path: The file or folder concerned.
    ///   - line: 1-based line, if any.
    ///   - column: 1-based CSV column, if any.
    ///   - underlying: A lower-level cause, if any.
    public init(
        _ code: Code, _ message: String, path: String, line: Int? = nil, column: Int? = nil,
        underlying: String? = nil
    ) {
        self.code = code
        self.message = message
        self.path = path
        self.line = line
        self.column = column
        self.underlying = underlying
    }

    /// `path:line:column: message` (omitting what is unknown), then the underlying cause if any.
    public var description: String {
        var location = path
        if let line { location += ":\(line)" }
        if let column { location += ":\(column)" }
        var text = "\(location): \(message)"
        if let underlying { text += " (\(underlying))" }
        return text
    }
}
