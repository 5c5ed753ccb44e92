import CMotionJSON
import FoundationEssentials

// Transactions from JSON bytes: parsed by `JSONParser` (simdjson; numbers exactly as written, duplicate
// keys refused), then read from the `JSONValue` here, with one-line errors that give the JSON path.
//
// The usual transaction (`{"operations": [{"op", "target", "plan" | "name"}...]}`, no other keys) is first
// read straight from simdjson's items (``Transaction/fastDecoded(_:)``): no `JSONValue` for the envelope, no
// `String` for its keys, no dictionary per operation. Whatever that reader does not expect, it leaves to the
// path above, which gives the same result or the error; so the two cannot disagree on a valid transaction
// (``fastDecoded(_:)`` builds what ``init(json:)`` builds) and every message comes from one place.

extension Transaction {
    /// Reads a transaction from its parsed JSON form (see the type's documentation).
    /// - Throws: ``CommitError`` with code `.invalidTransaction` naming the JSON path and what was wrong.
    init(json root: JSONValue) throws(CommitError) {
        func fail(_ path: String, _ message: String) -> CommitError {
            CommitError(code: .invalidTransaction, message: "\(path): \(message)")
        }
        guard case .object(let object) = root else {
            throw fail("$", "expected a transaction object {\"operations\": [...]}, found \(root.found)")
        }
        guard let listValue = object["operations"] else {
            throw fail("$.operations", "missing; a transaction needs \"operations\", an array of operations")
        }
        guard case .array(let list) = listValue else {
            throw fail("$.operations", "expected an array of operations, found \(listValue.found)")
        }
        var operations: [Operation] = []
        operations.reserveCapacity(list.count)
        for (i, item) in list.enumerated() {
            let path = "$.operations[\(i)]"
            guard case .object(let op) = item else {
                throw fail(path, "expected an operation object {\"op\", \"target\", ...}, found \(item.found)")
            }
            func string(_ key: String, _ what: String) throws(CommitError) -> String {
                guard let value = op[key] else { throw fail("\(path).\(key)", "missing; an operation needs \(what)") }
                guard case .string(let s) = value else {
                    throw fail("\(path).\(key)", "expected \(what), found \(value.found)")
                }
                return s
            }
            let kind = try string("op", "\"op\" (\"add\", \"addNamed\" or \"removeNamed\")")
            let target = TargetID(try string("target", "a target name (a string)"))
            switch kind {
            case "add":
                operations.append(.add(try Plan(json: op["plan"], path: "\(path).plan"), target: target))
            case "addNamed":
                let name = try string("name", "a plan name (a string)")
                operations.append(.addNamed(try Plan(json: op["plan"], path: "\(path).plan"), name: name, target: target))
            case "removeNamed":
                operations.append(.removeNamed(name: try string("name", "a plan name (a string)"), target: target))
            default:
                throw fail(
                    "\(path).op", "Unknown operation \(JSONText.quoted(kind)): expected \"add\", \"addNamed\" or \"removeNamed\".")
            }
        }
        self.init(operations)
    }
}

extension Plan {
    /// Reads a plan `{"type": ..., ...fields}` found at `path`.
    /// - Throws: ``CommitError`` with code `.invalidTransaction` when it is missing, not an object, or has
    ///   no non-empty string `"type"`.
    init(json value: JSONValue?, path: String) throws(CommitError) {
        guard let value else {
            throw CommitError(code: .invalidTransaction, message: "\(path): missing; this operation needs a plan")
        }
        guard case .object(var fields) = value else {
            throw CommitError(
                code: .invalidTransaction, message: "\(path): expected a plan object {\"type\", ...fields}, found \(value.found)")
        }
        guard let typeValue = fields.removeValue(forKey: "type") else {
            throw CommitError(
                code: .invalidTransaction, message: "\(path).type: missing; A plan needs a \"type\" naming its plan type.")
        }
        guard case .string(let type) = typeValue, !type.isEmpty else {
            throw CommitError(
                code: .invalidTransaction,
                message: "\(path).type: A plan's \"type\" must be a non-empty string, not \(typeValue.found).")
        }
        self.init(type: type, fields: fields)
    }
}

extension Transaction {
    /// The transaction in `bytes` when it has the usual shape and no duplicate key anywhere; `nil` for
    /// anything else (not JSON, another shape, a duplicate key, an unknown key), which the caller then
    /// reads through ``JSONParser`` and ``init(json:)`` for the error or the unusual case.
    static func fastDecoded(_ bytes: UnsafeRawBufferPointer) -> Transaction? {
        guard !bytes.isEmpty, bytes.first != 0xEF else { return nil }  // no bytes, or a byte order mark
        let result = SimdJSON.withItems(of: bytes) { items -> Transaction? in
            var reader = ItemReader(items: items)
            return reader.transaction()
        }
        guard case .success(let transaction?) = result else { return nil }
        return transaction
    }
}

extension Plan {
    /// A plan whose fields are known to hold no `"type"`.
    fileprivate init(type: String, fieldsWithoutType fields: [String: JSONValue]) {
        self.type = type
        self.payload = .fields(fields)
    }
}

/// Reads the usual transaction from simdjson's items, in one pass; `nil` at the first thing it does not
/// expect.
private struct ItemReader {
    let items: UnsafeBufferPointer<CMotionJSON_item>
    var index = 0

    mutating func transaction() -> Transaction? {
        guard let root = next(), root.kind == CMotionJSON_KIND_OBJECT, root.count == 1,
            let key = next(), key.is("operations"), let list = next(), list.kind == CMotionJSON_KIND_ARRAY
        else { return nil }
        var operations: [Transaction.Operation] = []
        operations.reserveCapacity(Int(list.count))
        for _ in 0..<list.count {
            guard let operation = operation() else { return nil }
            operations.append(operation)
        }
        return index == items.count ? Transaction(operations) : nil
    }

    /// `{"op", "target", "plan"}` for `add`, with `"name"` for `addNamed`, `{"op", "target", "name"}` for
    /// `removeNamed`, in any order.
    private mutating func operation() -> Transaction.Operation? {
        guard let object = next(), object.kind == CMotionJSON_KIND_OBJECT, object.count <= 4 else { return nil }
        var kind: CMotionJSON_item?
        var target: String?
        var name: String?
        var plan: Plan?
        for _ in 0..<object.count {
            guard let key = next(), let value = peek() else { return nil }
            if key.is("op"), kind == nil, value.kind == CMotionJSON_KIND_STRING {
                kind = value
                index += 1
            } else if key.is("target"), target == nil, value.kind == CMotionJSON_KIND_STRING {
                target = value.string
                index += 1
            } else if key.is("name"), name == nil, value.kind == CMotionJSON_KIND_STRING {
                name = value.string
                index += 1
            } else if key.is("plan"), plan == nil {
                guard let read = self.plan() else { return nil }
                plan = read
            } else {
                return nil
            }
        }
        guard let kind, let target else { return nil }
        if kind.is("add"), name == nil, let plan { return .add(plan, target: TargetID(target)) }
        if kind.is("addNamed"), let name, let plan { return .addNamed(plan, name: name, target: TargetID(target)) }
        if kind.is("removeNamed"), let name, plan == nil { return .removeNamed(name: name, target: TargetID(target)) }
        return nil
    }

    /// `{"type": non-empty string, ...fields}`.
    private mutating func plan() -> Plan? {
        guard let object = next(), object.kind == CMotionJSON_KIND_OBJECT, object.count >= 1 else { return nil }
        var type: String?
        var fields: [String: JSONValue] = Dictionary(minimumCapacity: Int(object.count) - 1)
        for _ in 0..<object.count {
            guard let key = next(), key.kind == CMotionJSON_KIND_STRING else { return nil }
            if key.is("type") {
                guard type == nil, let value = next(), value.kind == CMotionJSON_KIND_STRING, value.count > 0 else {
                    return nil
                }
                type = value.string
            } else {
                guard let value = value(), fields.updateValue(value, forKey: key.string) == nil else { return nil }
            }
        }
        guard let type else { return nil }
        return Plan(type: type, fieldsWithoutType: fields)
    }

    /// Any value (``ValueBuilder``, from the current item); `nil` when an object in it writes a key twice.
    private mutating func value() -> JSONValue? {
        guard index < items.count else { return nil }
        var builder = ValueBuilder(items: items, index: index)
        do throws(DuplicateKey) {
            let value = try builder.value()
            index = builder.index
            return value
        } catch {
            return nil
        }
    }

    private mutating func next() -> CMotionJSON_item? {
        guard index < items.count else { return nil }
        index += 1
        return items[index - 1]
    }

    private func peek() -> CMotionJSON_item? { index < items.count ? items[index] : nil }
}
