import Foundation

// The fast path for decoding transactions: `JSONSerialization` builds Foundation values about four
// times faster than `JSONDecoder` builds `JSONValue`s through `Codable` (whose type trials throw and
// catch per value). Anything that does not convert cleanly falls back to the `Codable` path, which
// produces the precise error. Values are converted by `JSONValue(foundation:)` (JSONDocuments/JSONNode.swift).

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
