import FoundationEssentials

/// A position in a JSON document: the member names and array indexes from the top level down.
package enum JSONPath {
    /// One step of a path.
    package enum Component {
        /// An object member.
        case key(String)
        /// An array element (0-based).
        case index(Int)
    }

    /// The path as text, e.g. `$.performers[0].plans[1]`; a key that is not a plain ASCII identifier
    /// is written `["key"]`.
    /// - Parameter path: The steps, top level first.
    /// - Returns: The rendered path; `$` for the top level.
    package static func render(_ path: [Component]) -> String {
        var text = "$"
        for component in path {
            switch component {
            case .key(let key): text += isPlainKey(key) ? "." + key : "[" + JSONText.quoted(key, limit: 200) + "]"
            case .index(let i): text += "[\(i)]"
            }
        }
        return text
    }

    private static func isPlainKey(_ key: String) -> Bool {
        guard let first = key.utf8.first, !(first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")) else {
            return false
        }
        return key.utf8.allSatisfy { c in
            (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
                || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "_")
        }
    }
}

/// What kind of problem a ``JSONDocumentReader`` found.
package enum JSONDocumentProblem: Sendable {
    /// The bytes are not JSON; the message gives line and column.
    case invalidJSON
    /// A required member is missing.
    case missingField
    /// A value has the wrong JSON type.
    case wrongType
    /// A value has the right type but one the format does not allow.
    case invalidValue
    /// An object has a member the format does not define.
    case unknownField
    /// A name that must be unique appears twice.
    case duplicate
    /// The document's version member names a version this reader does not read.
    case unsupportedVersion
}

/// The error a ``JSONDocumentReader`` throws, and how its messages are worded.
///
/// The wording requirements have defaults (`expected X; found Y`, values shown as ``JSONValue/found``);
/// a document format overrides them to keep its own message form.
package protocol JSONDocumentFailure: Error {
    /// A problem in `file` at `jsonPath` (`nil`: the whole file).
    /// - Parameters:
    ///   - problem: The kind of problem.
    ///   - file: The document's file.
    ///   - jsonPath: The rendered path of the value concerned.
    ///   - message: What was expected and what was found.
    init(_ problem: JSONDocumentProblem, file: URL, jsonPath: String?, message: String)

    /// How a message shows a value that was found.
    static func found(_ node: JSONValue) -> String
    /// A message for a value that is not what was expected.
    static func mismatch(expected: String, found: String) -> String
    /// A message for a missing required member, with the path at the member.
    static func missing(expected: String) -> String
    /// A message for an unknown member `key` of an object described by `what`, with the path at the member.
    static func unknownField(_ key: String, allowed: [String], what: String) -> String
}

extension JSONDocumentFailure {
    package static func found(_ node: JSONValue) -> String { node.found }

    package static func mismatch(expected: String, found: String) -> String { "expected \(expected); found \(found)" }

    package static func missing(expected: String) -> String { "expected \(expected) (a required field); found no value" }

    package static func unknownField(_ key: String, allowed: [String], what: String) -> String {
        "expected one of the fields of \(what) (\(allowed.joined(separator: ", "))); found unknown field "
            + JSONText.quoted(key) + JSONText.suggestion(for: key, among: allowed)
    }
}

/// Walks a document parsed by ``JSONParser``, keeping the JSON path of the value being read so that every
/// problem names its file and field.
///
/// Objects are `[String: JSONValue]`, so member order is not kept; where order matters a format uses
/// arrays. A key written twice in one object is a syntax error (``JSONParser``).
package final class JSONDocumentReader<Failure: JSONDocumentFailure> {
    /// The document's file.
    package let file: URL
    /// The path of the value being read. (Settable in the package so that the inlinable readers below can
    /// push and pop it; the dynamic exclusivity checks are off: one reader is used by one thread, never
    /// re-entrantly on `path`.)
    @exclusivity(unchecked) package var path: [JSONPath.Component] = []

    /// A reader of the document in `file`.
    /// - Parameter file: The file, named in every error.
    package init(file: URL) {
        self.file = file
    }

    /// Parses a document's bytes with ``JSONParser``; the top level must be an object.
    /// - Parameters:
    ///   - data: The file's bytes.
    ///   - expected: What the top level is, in messages.
    /// - Returns: The top-level object.
    /// - Throws: `.invalidJSON` with line and column (``JSONSyntaxError``: a syntax error, a number out of
    ///   range, a duplicate key), or `.wrongType` at `$` when the top level is not an object.
    package func parseObject(_ data: Data, expected: String = "a JSON object") throws(Failure) -> [String: JSONValue] {
        let parsed: JSONValue
        do {
            parsed = try JSONParser.parse(data)
        } catch {
            throw Failure(.invalidJSON, file: file, jsonPath: nil, message: error.message)
        }
        return try object(parsed, expected: expected)
    }

    /// The rendered path of the value being read, e.g. `$.performers[0].plans[1]`.
    package var renderedPath: String { JSONPath.render(path) }

    /// An error at the current path.
    /// - Parameters:
    ///   - problem: The kind of problem.
    ///   - message: What was expected and what was found.
    /// - Returns: The error, to throw.
    package func fail(_ problem: JSONDocumentProblem, _ message: String) -> Failure {
        Failure(problem, file: file, jsonPath: renderedPath, message: message)
    }

    /// Runs `body` with `component` appended to the path.
    @inlinable
    package func at<T>(_ component: JSONPath.Component, _ body: () throws(Failure) -> T) throws(Failure) -> T {
        path.append(component)
        defer { path.removeLast() }
        return try body()
    }

    /// Rejects members not in `allowed`, naming the first unknown one (in sorted order).
    /// - Throws: `.unknownField` at that member.
    @inlinable
    package func checkKeys(_ object: [String: JSONValue], allowed: [String], what: String) throws(Failure) {
        if object.count <= allowed.count, object.keys.allSatisfy({ allowed.contains($0) }) { return }
        guard let first = object.keys.filter({ !allowed.contains($0) }).min() else { return }
        try at(.key(first)) { () throws(Failure) in
            throw fail(.unknownField, Failure.unknownField(first, allowed: allowed, what: what))
        }
    }

    /// A required member, read by `read` with the path at that member.
    /// - Throws: `.missingField` at the member, or what `read` throws.
    @inlinable
    package func required<T>(
        _ object: [String: JSONValue], _ key: String, expected: String, _ read: (JSONValue) throws(Failure) -> T
    ) throws(Failure) -> T {
        try at(.key(key)) { () throws(Failure) -> T in
            guard let value = object[key] else { throw fail(.missingField, Failure.missing(expected: expected)) }
            return try read(value)
        }
    }

    /// An optional member, read by `read` with the path at that member; `nil` when absent.
    @inlinable
    package func optional<T>(_ object: [String: JSONValue], _ key: String, _ read: (JSONValue) throws(Failure) -> T) throws(Failure) -> T? {
        guard let value = object[key] else { return nil }
        return try at(.key(key)) { () throws(Failure) -> T in try read(value) }
    }

    /// Each member of an object in key order, read with the path at its key.
    @inlinable
    package func members<T>(
        _ object: [String: JSONValue], _ read: (String, JSONValue) throws(Failure) -> T
    ) throws(Failure) -> [(key: String, value: T)] {
        var result: [(key: String, value: T)] = []
        result.reserveCapacity(object.count)
        for key in object.keys.sorted() {
            let value = try at(.key(key)) { () throws(Failure) -> T in try read(key, object[key]!) }
            result.append((key, value))
        }
        return result
    }

    /// Each element of an array, read with the path at its index.
    @inlinable
    package func elements<T>(_ items: [JSONValue], _ read: (Int, JSONValue) throws(Failure) -> T) throws(Failure) -> [T] {
        var result: [T] = []
        result.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            let value = try at(.index(i)) { () throws(Failure) -> T in try read(i, item) }
            result.append(value)
        }
        return result
    }

    // MARK: Typed readers (at the current path)

    /// A `.wrongType` or `.invalidValue` error: expected `expected`, found `node`.
    package func mismatch(_ problem: JSONDocumentProblem = .wrongType, expected: String, found node: JSONValue) -> Failure {
        fail(problem, Failure.mismatch(expected: expected, found: Failure.found(node)))
    }

    /// A string. - Throws: `.wrongType`.
    @inlinable
    package func string(_ node: JSONValue, expected: String = "a string") throws(Failure) -> String {
        guard case .string(let s) = node else { throw mismatch(expected: expected, found: node) }
        return s
    }

    /// A non-empty string without control characters. - Throws: `.wrongType` or `.invalidValue`.
    @inlinable
    package func nonEmptyString(_ node: JSONValue, expected: String = "a non-empty string") throws(Failure) -> String {
        let s = try string(node, expected: expected)
        if s.isEmpty || s.unicodeScalars.contains(where: { $0.value < 0x20 }) {
            throw mismatch(.invalidValue, expected: "\(expected) without control characters", found: node)
        }
        return s
    }

    /// `true` or `false`. - Throws: `.wrongType`.
    @inlinable
    package func bool(_ node: JSONValue) throws(Failure) -> Bool {
        guard case .bool(let b) = node else { throw mismatch(expected: "true or false", found: node) }
        return b
    }

    /// A finite number for which `isValid` holds. - Throws: `.wrongType` or `.invalidValue`.
    @inlinable
    package func number(
        _ node: JSONValue, expected: String = "a number", where isValid: (Double) -> Bool = { _ in true }
    ) throws(Failure) -> Double {
        guard case .number(let n) = node, n.isFinite else { throw mismatch(expected: expected, found: node) }
        guard isValid(n) else { throw mismatch(.invalidValue, expected: expected, found: node) }
        return n
    }

    /// An integer `>= low`. - Throws: `.wrongType` or `.invalidValue`.
    @inlinable
    package func integer(_ node: JSONValue, atLeast low: Int = 0) throws(Failure) -> Int {
        guard case .number(let n) = node, n.isFinite, n == n.rounded(), abs(n) < 1e15 else {
            throw mismatch(expected: "an integer", found: node)
        }
        guard Int(n) >= low else { throw mismatch(.invalidValue, expected: "an integer >= \(low)", found: node) }
        return Int(n)
    }

    /// An object. - Throws: `.wrongType`.
    @inlinable
    package func object(_ node: JSONValue, expected: String) throws(Failure) -> [String: JSONValue] {
        guard case .object(let o) = node else { throw mismatch(expected: expected, found: node) }
        return o
    }

    /// An array. - Throws: `.wrongType`.
    @inlinable
    package func array(_ node: JSONValue, expected: String) throws(Failure) -> [JSONValue] {
        guard case .array(let a) = node else { throw mismatch(expected: expected, found: node) }
        return a
    }

    /// One of `choices`, by name; a string that names none gets a "did you mean".
    /// - Throws: `.invalidValue` for an unknown name, `.wrongType` for a value that is not a string.
    package func choice(_ node: JSONValue, among choices: [String]) throws(Failure) -> String {
        guard case .string(let s) = node, choices.contains(s) else {
            var message = Failure.mismatch(expected: "one of \(choices.joined(separator: ", "))", found: Failure.found(node))
            if case .string(let s) = node { message += JSONText.suggestion(for: s, among: choices) }
            throw fail(node.isString ? .invalidValue : .wrongType, message)
        }
        return s
    }

    /// One of an enumeration's raw values. - Throws: as ``choice(_:among:)``.
    package func choice<E: RawRepresentable & CaseIterable>(_ node: JSONValue, _: E.Type) throws(Failure) -> E
    where E.RawValue == String {
        // The usual case, a valid name, without building the list of names (which only the error needs).
        if case .string(let s) = node, let value = E(rawValue: s) { return value }
        // A closure, not a key path: a key path is instantiated at run time on every call.
        return try E(rawValue: choice(node, among: E.allCases.map { $0.rawValue }))!
    }
}
