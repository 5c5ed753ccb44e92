// Transactions from JSON bytes: parsed by `JSONParser` (simdjson; numbers exactly as written, duplicate
// keys refused), then read from the `JSONValue` here, with one-line errors that give the JSON path.

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
