#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A transaction a performer emits (composition): an ordered list of add, add-named and remove-named
/// operations, encoded as the host's transaction JSON
/// `{"operations":[{"op":"add","target":"card","plan":{"type":"Tween",...}}, ...]}`.
///
/// ```swift
/// var transaction = Transaction()
/// transaction.add(Tween(property: "opacity", to: [1]), to: context.targetName)
/// try context.emit(transaction)
/// ```
public struct Transaction: Sendable {
    enum Operation: Sendable {
        case add(target: String, plan: any PluginPlan)
        case addNamed(target: String, name: String, plan: any PluginPlan)
        case removeNamed(target: String, name: String)
    }

    private(set) var operations: [Operation] = []

    /// Creates an empty transaction.
    public init() {}

    /// Whether the transaction has no operations.
    public var isEmpty: Bool { operations.isEmpty }

    /// The number of operations.
    public var count: Int { operations.count }

    /// Appends an add operation.
    /// - Parameters:
    ///   - plan: the plan (copied).
    ///   - target: the target's name, e.g. `context.targetName`.
    public mutating func add(_ plan: some PluginPlan, to target: String) {
        operations.append(.add(target: target, plan: plan))
    }

    /// Appends an add-named operation.
    /// - Parameters:
    ///   - plan: the plan (copied).
    ///   - name: the plan's name, non-empty (the host rejects an empty one).
    ///   - target: the target's name.
    public mutating func add(_ plan: some PluginPlan, named name: String, to target: String) {
        operations.append(.addNamed(target: target, name: name, plan: plan))
    }

    /// Appends a remove-named operation.
    /// - Parameters:
    ///   - name: the plan's name.
    ///   - target: the target's name.
    public mutating func removePlan(named name: String, from target: String) {
        operations.append(.removeNamed(target: target, name: name))
    }

    /// The transaction as UTF-8 JSON, as `emit_transaction` takes it.
    /// - Returns: the JSON bytes.
    /// - Throws: `PluginError.Code.emissionFailed` if a plan fails to encode (e.g. a non-finite number).
    public func encodedJSON() throws(PluginError) -> [UInt8] {
        do {
            return Array(try JSONEncoder().encode(EncodedTransaction(operations: operations)))
        } catch {
            throw PluginError(
                .emissionFailed,
                "the transaction does not encode as JSON: \(error). To fix, emit plans with finite numbers.")
        }
    }
}

/// The Encodable form of a transaction.
private struct EncodedTransaction: Encodable {
    let operations: [Transaction.Operation]

    enum Keys: String, CodingKey { case operations }
    enum OperationKeys: String, CodingKey { case op, target, name, plan }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        var list = container.nestedUnkeyedContainer(forKey: .operations)
        for operation in operations {
            var entry = list.nestedContainer(keyedBy: OperationKeys.self)
            switch operation {
            case .add(let target, let plan):
                try entry.encode("add", forKey: .op)
                try entry.encode(target, forKey: .target)
                try entry.encode(TypedPlan(plan: plan), forKey: .plan)
            case .addNamed(let target, let name, let plan):
                try entry.encode("addNamed", forKey: .op)
                try entry.encode(target, forKey: .target)
                try entry.encode(name, forKey: .name)
                try entry.encode(TypedPlan(plan: plan), forKey: .plan)
            case .removeNamed(let target, let name):
                try entry.encode("removeNamed", forKey: .op)
                try entry.encode(target, forKey: .target)
                try entry.encode(name, forKey: .name)
            }
        }
    }
}

/// A plan encoded with its `"type"` key added next to its own fields.
struct TypedPlan: Encodable {
    let plan: any PluginPlan

    enum Keys: String, CodingKey { case type }

    func encode(to encoder: any Encoder) throws {
        try plan.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(Swift.type(of: plan).type, forKey: .type)
    }
}
