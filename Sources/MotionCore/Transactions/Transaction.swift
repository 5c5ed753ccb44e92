import FoundationEssentials

/// The name of a target: a named object in a scene with animatable properties.
///
/// Thread rule: a value type; safe to use from any thread.
public struct TargetID: Hashable, Sendable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The target's name, as written in scenes and transactions.
    public let name: String

    /// A target id from its name.
    public init(_ name: String) { self.name = name }
    public init(stringLiteral value: String) { self.name = value }
    public init(from decoder: any Decoder) throws {
        name = try decoder.singleValueContainer().decode(String.self)
    }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
    public var description: String { name }
}

/// An ordered log of operations on targets, committed to a ``Scheduler`` as a unit.
///
/// Recording an operation copies the plan (Documentation/RUNTIME.md R2); operations are applied in the order
/// recorded, across targets (R4).
///
/// JSON form:
/// ```json
/// {"operations": [
///   {"op": "add", "target": "card", "plan": {"type": "FadeIn"}},
///   {"op": "addNamed", "target": "card", "name": "drag", "plan": {"type": "Draggable"}},
///   {"op": "removeNamed", "target": "card", "name": "drag"}]}
/// ```
///
/// Thread rule: a value type; safe to use from any thread.
public struct Transaction: Sendable, Equatable {
    /// One recorded operation.
    public enum Operation: Sendable, Equatable {
        /// Add a plan to a target.
        case add(Plan, target: TargetID)
        /// Add a named plan to a target, replacing any plan of that name on that target (R16).
        case addNamed(Plan, name: String, target: TargetID)
        /// Remove the plan of that name from a target (R14, R15).
        case removeNamed(name: String, target: TargetID)

        /// The target this operation acts on.
        public var target: TargetID {
            switch self {
            case .add(_, let target), .addNamed(_, _, let target), .removeNamed(_, let target): target
            }
        }

        /// The plan this operation carries, if any.
        public var plan: Plan? {
            switch self {
            case .add(let plan, _), .addNamed(let plan, _, _): plan
            case .removeNamed: nil
            }
        }
    }

    /// The operations, in the order recorded.
    public private(set) var operations: [Operation]

    /// An empty transaction, or one with the given operations.
    public init(_ operations: [Operation] = []) { self.operations = operations }

    /// Records adding a plan to a target.
    public mutating func add(_ plan: Plan, to target: TargetID) {
        operations.append(.add(plan, target: target))
    }

    /// Records adding a typed plan to a target.
    public mutating func add<Value: PlanValue>(_ plan: Value, to target: TargetID) {
        operations.append(.add(Plan(plan), target: target))
    }

    /// Records adding a named plan to a target. An empty name fails the commit (R21).
    public mutating func add(_ plan: Plan, named name: String, to target: TargetID) {
        operations.append(.addNamed(plan, name: name, target: target))
    }

    /// Records adding a typed named plan to a target. An empty name fails the commit (R21).
    public mutating func add<Value: PlanValue>(_ plan: Value, named name: String, to target: TargetID) {
        operations.append(.addNamed(Plan(plan), name: name, target: target))
    }

    /// Records removing the plan of that name from a target. An empty name fails the commit (R21).
    public mutating func removePlan(named name: String, from target: TargetID) {
        operations.append(.removeNamed(name: name, target: target))
    }

    /// Whether the transaction records no operation.
    public var isEmpty: Bool { operations.isEmpty }
}

extension Transaction: Codable {
    enum CodingKeys: String, CodingKey { case operations }
    enum OperationKeys: String, CodingKey { case op, target, name, plan }

    /// Decodes the JSON form; see the type's documentation.
    /// - Throws: `DecodingError` naming the operation index and field that is missing or mistyped.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var list = try container.nestedUnkeyedContainer(forKey: .operations)
        var operations: [Operation] = []
        while !list.isAtEnd {
            let op = try list.nestedContainer(keyedBy: OperationKeys.self)
            let kind = try op.decode(String.self, forKey: .op)
            let target = try op.decode(TargetID.self, forKey: .target)
            switch kind {
            case "add":
                operations.append(.add(try op.decode(Plan.self, forKey: .plan), target: target))
            case "addNamed":
                let name = try op.decode(String.self, forKey: .name)
                operations.append(.addNamed(try op.decode(Plan.self, forKey: .plan), name: name, target: target))
            case "removeNamed":
                operations.append(.removeNamed(name: try op.decode(String.self, forKey: .name), target: target))
            default:
                throw DecodingError.dataCorruptedError(
                    forKey: .op, in: op,
                    debugDescription: "Unknown operation \"\(kind)\": expected \"add\", \"addNamed\" or \"removeNamed\".")
            }
        }
        self.operations = operations
    }

    /// Encodes the JSON form; see the type's documentation.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var list = container.nestedUnkeyedContainer(forKey: .operations)
        for operation in operations {
            var op = list.nestedContainer(keyedBy: OperationKeys.self)
            switch operation {
            case .add(let plan, let target):
                try op.encode("add", forKey: .op)
                try op.encode(target, forKey: .target)
                try op.encode(plan, forKey: .plan)
            case .addNamed(let plan, let name, let target):
                try op.encode("addNamed", forKey: .op)
                try op.encode(target, forKey: .target)
                try op.encode(name, forKey: .name)
                try op.encode(plan, forKey: .plan)
            case .removeNamed(let name, let target):
                try op.encode("removeNamed", forKey: .op)
                try op.encode(target, forKey: .target)
                try op.encode(name, forKey: .name)
            }
        }
    }

    /// Decodes a transaction from its JSON form, parsed by ``JSONParser`` (simdjson): every number is the
    /// nearest `Double` to the one written, and a key written twice in one object is an error.
    /// - Throws: ``CommitError`` with code `.invalidTransaction`, whose message gives the JSON path and
    ///   reason (`$: invalid JSON at line L, column C: ...` for bytes that are not JSON).
    public init(jsonData data: Data) throws(CommitError) {
        // The usual shapes straight from the parser's items; anything else (an error above all) through
        // the parsed value below, which words every message.
        if let transaction = data.withUnsafeBytes({ Transaction.fastDecoded($0) }) {
            self = transaction
            return
        }
        let root: JSONValue
        do {
            root = try JSONParser.parse(data)
        } catch {
            throw CommitError(code: .invalidTransaction, message: "$: " + error.message, underlying: error)
        }
        try self.init(json: root)
    }

    /// The transaction's JSON form, with sorted keys.
    public func jsonData() throws -> Data { try Plan.encoder.encode(self) }
}
