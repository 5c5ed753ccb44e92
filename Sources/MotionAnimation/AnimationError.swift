/// An error from building an animation value (a cubic-Bézier curve, a spring) out of bad numbers.
///
/// Bad input never traps: every initializer that takes caller-supplied numbers validates them and
/// throws this error, naming the parameter, the value it got and the range it expected.
public struct AnimationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is. A struct over a private enum, so codes can be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Raw: Hashable, Sendable {
            case notFinite
            case outOfRange
            case unknownName
        }
        private let raw: Raw
        private init(_ raw: Raw) { self.raw = raw }

        /// A parameter was NaN or infinite.
        public static let notFinite = Code(.notFinite)
        /// A parameter was finite but outside its allowed range.
        public static let outOfRange = Code(.outOfRange)
        /// A name (e.g. of a timing curve) is not one this module knows.
        public static let unknownName = Code(.unknownName)

        /// The code's name, e.g. `outOfRange`.
        public var description: String {
            switch raw {
            case .notFinite: return "notFinite"
            case .outOfRange: return "outOfRange"
            case .unknownName: return "unknownName"
            }
        }
    }

    /// The kind of failure.
    public let code: Code
    /// The parameter the error concerns, e.g. `"x1"` or `"stiffness"`.
    public let parameter: String
    /// What happened and how to fix it.
    public let message: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: the kind of failure.
    ///   - parameter: the parameter it concerns.
    ///   - message: what happened and how to fix it.
    public init(_ code: Code, parameter: String, message: String) {
        self.code = code
        self.parameter = parameter
        self.message = message
    }

    /// `"<parameter>: <message>"`.
    public var description: String { "\(parameter): \(message)" }
}

/// Throws unless `value` is finite and inside `range`.
/// - Parameters:
///   - value: the caller's number.
///   - name: the parameter's name, for the error.
///   - range: the allowed closed range.
///   - expected: what to pass instead, e.g. "an x between 0 and 1".
func require(
    _ value: Double, _ name: String,
    in range: ClosedRange<Double> = -Double
        .greatestFiniteMagnitude...Double
        .greatestFiniteMagnitude, _ expected: String
) throws(AnimationError) {
    guard value.isFinite else {
        throw AnimationError(.notFinite, parameter: name, message: "got \(value). To fix, pass \(expected).")
    }
    guard range.contains(value) else {
        throw AnimationError(.outOfRange, parameter: name, message: "got \(value). To fix, pass \(expected).")
    }
}
