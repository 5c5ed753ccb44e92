import Foundation

/// One JSON value as `JSONSerialization` produces it, classified without converting the whole tree:
/// arrays and objects keep their Foundation elements until they are read.
package enum JSONNode {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([Any])
    case object([String: Any])

    private static let stringType = ObjectIdentifier(String.self)
    private static let objectType = ObjectIdentifier([String: Any].self)
    private static let arrayType = ObjectIdentifier([Any].self)

    /// Classifies a value produced by `JSONSerialization`, or returns `nil` if it is not one.
    ///
    /// Booleans and numbers are told apart by the `NSNumber`'s Objective-C type: `JSONSerialization`
    /// makes `true`/`false` of type "c" (a C char) and numbers "q", "i" or "d", never "c".
    /// - Parameter value: A value from `JSONSerialization.jsonObject(with:)`.
    package init?(foundation value: Any) {
        // Fast path: JSONSerialization yields exactly String, [String: Any] and [Any] for strings,
        // objects and arrays, so compare the dynamic type before casting (a cast that must search, such
        // as a Swift dictionary `as? NSNumber`, bridges the whole dictionary to NSDictionary first).
        let type = ObjectIdentifier(Swift.type(of: value))
        if type == Self.stringType {
            self = .string(value as! String)
        } else if type == Self.objectType {
            self = .object(value as! [String: Any])
        } else if type == Self.arrayType {
            self = .array(value as! [Any])
        } else if let number = value as? NSNumber {
            if number.objCType.pointee == CChar(UInt8(ascii: "c")) {
                self = .bool(number.boolValue)
            } else {
                self = .number(number.doubleValue)
            }
        } else if let string = value as? String {
            self = .string(string)
        } else if let object = value as? [String: Any] {
            self = .object(object)
        } else if let array = value as? [Any] {
            self = .array(array)
        } else if value is NSNull {
            self = .null
        } else {
            return nil
        }
    }

    /// Classifies a value produced by `JSONSerialization`; anything else reads as `null`.
    /// - Parameter value: A value from `JSONSerialization.jsonObject(with:)`.
    package init(_ value: Any) {
        self = JSONNode(foundation: value) ?? .null
    }

    /// The value as a ``JSONValue`` (recursively); parts that `JSONSerialization` cannot have produced
    /// read as `null`.
    package var jsonValue: JSONValue { JSONValue(self) ?? .null }

    /// How an error message shows this value: a JSON scalar as written, or "an object"/"an array of N".
    package var found: String {
        switch self {
        case .null: "null"
        case .bool(let b): b ? "true" : "false"
        case .number(let n): JSONText.number(n)
        case .string(let s): JSONText.quoted(s)
        case .array(let items): items.isEmpty ? "an empty array" : "an array of \(items.count)"
        case .object: "an object"
        }
    }

    /// Whether this is a string.
    package var isString: Bool {
        if case .string = self { return true }
        return false
    }
}

extension JSONValue {
    /// Converts a value produced by `JSONSerialization`, or returns `nil` if it is not one.
    /// - Parameter value: A value from `JSONSerialization.jsonObject(with:)`.
    package init?(foundation value: Any) {
        guard let node = JSONNode(foundation: value) else { return nil }
        self.init(node)
    }

    /// Converts a classified value and everything inside it, or returns `nil` if an element is not a
    /// `JSONSerialization` value.
    /// - Parameter node: The classified value.
    package init?(_ node: JSONNode) {
        switch node {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .number(let n): self = .number(n)
        case .string(let s): self = .string(s)
        case .array(let items):
            var elements: [JSONValue] = []
            elements.reserveCapacity(items.count)
            for item in items {
                guard let converted = JSONValue(foundation: item) else { return nil }
                elements.append(converted)
            }
            self = .array(elements)
        case .object(let object):
            guard let members = JSONValue.members(foundation: object) else { return nil }
            self = .object(members)
        }
    }

    /// Converts the members of a `JSONSerialization` object, or returns `nil` if one is not a
    /// `JSONSerialization` value.
    /// - Parameter object: An object from `JSONSerialization.jsonObject(with:)`.
    package static func members(foundation object: [String: Any]) -> [String: JSONValue]? {
        var members: [String: JSONValue] = [:]
        members.reserveCapacity(object.count)
        for (key, element) in object {
            guard let converted = JSONValue(foundation: element) else { return nil }
            members[key] = converted
        }
        return members
    }
}
