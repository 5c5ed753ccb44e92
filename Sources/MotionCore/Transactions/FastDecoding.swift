import Foundation

// The fast path for decoding transactions: `JSONSerialization` builds Foundation values about four
// times faster than `JSONDecoder` builds `JSONValue`s through `Codable` (whose type trials throw and
// catch per value). Anything that does not convert cleanly falls back to the `Codable` path, which
// produces the precise error.

extension JSONValue {
    /// Converts a value produced by `JSONSerialization`, or returns `nil` if it is not one.
    init?(foundation value: Any) {
        switch value {
        case let string as String: self = .string(string)
        case let number as NSNumber:
            // JSONSerialization gives booleans as NSNumbers whose Objective-C type is "c" (char), and
            // numbers as "q"/"i"/"d"; it never produces a char-typed number otherwise.
            if number.objCType.pointee == CChar(UInt8(ascii: "c")) {
                self = .bool(number.boolValue)
            } else {
                self = .number(number.doubleValue)
            }
        case let array as [Any]:
            var elements: [JSONValue] = []
            elements.reserveCapacity(array.count)
            for element in array {
                guard let converted = JSONValue(foundation: element) else { return nil }
                elements.append(converted)
            }
            self = .array(elements)
        case let object as [String: Any]:
            guard let members = JSONValue.members(foundation: object) else { return nil }
            self = .object(members)
        case is NSNull: self = .null
        default: return nil
        }
    }

    static func members(foundation object: [String: Any]) -> [String: JSONValue]? {
        var members: [String: JSONValue] = [:]
        members.reserveCapacity(object.count)
        for (key, element) in object {
            guard let converted = JSONValue(foundation: element) else { return nil }
            members[key] = converted
        }
        return members
    }
}

extension Transaction {
    /// Builds a transaction from `JSONSerialization` output, or returns `nil` if anything is off (the
    /// caller then decodes with `Codable` to report exactly what).
    init?(foundation root: Any) {
        guard let object = root as? [String: Any], let list = object["operations"] as? [Any] else { return nil }
        var operations: [Operation] = []
        operations.reserveCapacity(list.count)
        for item in list {
            guard let op = item as? [String: Any], let kind = op["op"] as? String, let target = op["target"] as? String else {
                return nil
            }
            switch kind {
            case "add":
                guard let plan = Plan(foundation: op["plan"]) else { return nil }
                operations.append(.add(plan, target: TargetID(target)))
            case "addNamed":
                guard let name = op["name"] as? String, let plan = Plan(foundation: op["plan"]) else { return nil }
                operations.append(.addNamed(plan, name: name, target: TargetID(target)))
            case "removeNamed":
                guard let name = op["name"] as? String else { return nil }
                operations.append(.removeNamed(name: name, target: TargetID(target)))
            default: return nil
            }
        }
        self.init(operations)
    }
}

extension Plan {
    init?(foundation value: Any?) {
        guard let object = value as? [String: Any], let type = object["type"] as? String, !type.isEmpty,
            var fields = JSONValue.members(foundation: object)
        else { return nil }
        fields.removeValue(forKey: "type")
        self.init(type: type, fields: fields)
    }
}
