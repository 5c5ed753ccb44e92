extension JSONValue {
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
