import FoundationEssentials
import MotionCore

/// A problem with a manifest or host configuration file: which file, which field (as a JSON path),
/// what was expected and what was found.
///
/// Its ``description`` is one line, for example
/// `manifests/tween.json: $.performers[0].plans[1].fields[2].type: expected one of number, integer,
/// boolean, string, property, vector, object, array; found "float"`.
public struct ManifestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem this is. A struct over a private enum, so codes can be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Sendable {
            case unreadable, invalidJSON, missingField, wrongType, invalidValue, unknownField, duplicate
            case conflict, unsupportedVersion, unknownPlanType, disabled, untrusted
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The file cannot be read (missing, a folder, no permission).
        public static let unreadable = Code(.unreadable)
        /// The file is not valid JSON; the message gives line and column.
        public static let invalidJSON = Code(.invalidJSON)
        /// A required field is missing.
        public static let missingField = Code(.missingField)
        /// A field has the wrong JSON type.
        public static let wrongType = Code(.wrongType)
        /// A field has the right type but a value the format does not allow.
        public static let invalidValue = Code(.invalidValue)
        /// The object has a key the format does not define (often a typo).
        public static let unknownField = Code(.unknownField)
        /// A name that must be unique appears twice (a plan type, class, field, argument).
        public static let duplicate = Code(.duplicate)
        /// Two manifests declare one plan type and the host configuration does not settle it.
        public static let conflict = Code(.conflict)
        /// `manifestVersion` is not one this host reads.
        public static let unsupportedVersion = Code(.unsupportedVersion)
        /// No manifest declares the plan type (from ``PluginCatalog/unavailability(ofPlanType:)``).
        public static let unknownPlanType = Code(.unknownPlanType)
        /// The plugin declaring the plan type is disabled by the host configuration.
        public static let disabled = Code(.disabled)
        /// The manifest, or a folder on the way to it from `/`, has the wrong owner or is writable by group
        /// or others (``PathTrust``): it names code to run, so it is not read.
        public static let untrusted = Code(.untrusted)

        public var description: String { value.rawValue }
    }

    /// What kind of problem this is.
    public let code: Code
    /// The file concerned, if any.
    public let file: URL?
    /// The JSON path of the bad field, e.g. `$.performers[0].plans[1].fields[2].type`; `nil` for the
    /// whole file.
    public let jsonPath: String?
    /// What happened and how to fix it, without the file and JSON path.
    public let message: String

    /// A manifest or configuration problem.
    /// - Parameters:
    ///   - code: The kind of problem.
    ///   - file: The file concerned.
    ///   - jsonPath: The JSON path of the field concerned.
    ///   - message: What happened and how to fix it.
    public init(code: Code, file: URL?, jsonPath: String?, message: String) {
        self.code = code
        self.file = file
        self.jsonPath = jsonPath
        self.message = message
    }

    /// One line: `FILE: JSONPATH: MESSAGE` (the parts that exist).
    public var description: String {
        var line = ""
        if let file { line += file.relativePath + ": " }
        if let jsonPath { line += jsonPath + ": " }
        return line + message
    }
}

extension ManifestError: JSONDocumentFailure {
    /// A problem found by the JSON document reader, with its message in the reader's own wording.
    package init(_ problem: JSONDocumentProblem, file: URL, jsonPath: String?, message: String) {
        let code: Code =
            switch problem {
            case .invalidJSON: .invalidJSON
            case .missingField: .missingField
            case .wrongType: .wrongType
            case .invalidValue: .invalidValue
            case .unknownField: .unknownField
            case .duplicate: .duplicate
            case .unsupportedVersion: .unsupportedVersion
            }
        self.init(code: code, file: file, jsonPath: jsonPath, message: message)
    }
}
