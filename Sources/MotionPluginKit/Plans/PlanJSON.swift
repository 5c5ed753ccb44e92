import Foundation

/// A parsed JSON value, as small as plans need: objects keep their members in order (plans have a
/// handful of fields, so a linear search beats hashing).
enum PlanJSON: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([PlanJSON])
    case object([(key: String, value: PlanJSON)])

    /// The value of `key` in an object (the last one, if a key repeats), or nil.
    func member(_ key: String) -> PlanJSON? {
        guard case .object(let members) = self else { return nil }
        for member in members.reversed() where member.key == key { return member.value }
        return nil
    }

    /// A short name of the value's JSON type, for error messages.
    var kind: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A plan's JSON is not valid JSON (Foundation's `JSONSerialization` says why).
struct PlanJSONSyntaxError: Error, CustomStringConvertible {
    let reason: String
    var description: String { "the plan is not valid JSON: \(reason.hasSuffix(".") ? String(reason.dropLast()) : reason)" }
}

extension PlanJSON {
    /// Parses a plan's UTF-8 JSON bytes with Foundation's `JSONSerialization`.
    /// - Parameter bytes: The UTF-8 text, valid for the call.
    /// - Throws: `PlanJSONSyntaxError` when the bytes are not JSON.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(PlanJSONSyntaxError) -> PlanJSON {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: Data(buffer: bytes), options: [.fragmentsAllowed])
        } catch {
            let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
            throw PlanJSONSyntaxError(reason: reason)
        }
        return PlanJSON(foundation: root)
    }

    /// Converts `JSONSerialization` output. Booleans are the `NSNumber`s whose Objective-C type is "c".
    ///
    /// The dynamic type is compared before any cast: a cast that must search (a Swift dictionary
    /// `as? NSNumber`) bridges the whole dictionary to `NSDictionary` first, which measured as half the
    /// cost of a plan.
    init(foundation value: Any) {
        let type = ObjectIdentifier(Swift.type(of: value))
        if type == Self.objectType {
            self = .object((value as! [String: Any]).map { (key: $0.key, value: PlanJSON(foundation: $0.value)) })
        } else if type == Self.stringType {
            self = .string(value as! String)
        } else if type == Self.arrayType {
            self = .array((value as! [Any]).map(PlanJSON.init(foundation:)))
        } else if let number = value as? NSNumber {
            self = number.objCType.pointee == CChar(UInt8(ascii: "c")) ? .bool(number.boolValue) : .number(number.doubleValue)
        } else if let string = value as? String {
            self = .string(string)
        } else if let object = value as? [String: Any] {
            self = .object(object.map { (key: $0.key, value: PlanJSON(foundation: $0.value)) })
        } else if let array = value as? [Any] {
            self = .array(array.map(PlanJSON.init(foundation:)))
        } else {
            self = .null
        }
    }

    private static let objectType = ObjectIdentifier([String: Any].self)
    private static let stringType = ObjectIdentifier(String.self)
    private static let arrayType = ObjectIdentifier([Any].self)
}
