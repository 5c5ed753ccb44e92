import Foundation
import MotionCore

/// A JSON value as `JSONSerialization` produces it, classified without converting the whole tree.
enum JSONNode {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([Any])
    case object([String: Any])

    private static let stringType = ObjectIdentifier(String.self)
    private static let objectType = ObjectIdentifier([String: Any].self)
    private static let arrayType = ObjectIdentifier([Any].self)

    init(_ any: Any) {
        // Fast path: JSONSerialization yields exactly String, [String: Any] and [Any] for strings,
        // objects and arrays, so compare the dynamic type before casting (a cast that must search, such
        // as a Swift dictionary `as? NSNumber`, bridges the whole dictionary to NSDictionary first).
        let type = ObjectIdentifier(Swift.type(of: any))
        if type == Self.stringType {
            self = .string(any as! String)
        } else if type == Self.objectType {
            self = .object(any as! [String: Any])
        } else if type == Self.arrayType {
            self = .array(any as! [Any])
        } else if let number = any as? NSNumber {
            // JSONSerialization makes `true`/`false` NSNumbers of objCType "c" (a C char) and no other "c".
            if number.objCType.pointee == CChar(UInt8(ascii: "c")) {
                self = .bool(number.boolValue)
            } else {
                self = .number(number.doubleValue)
            }
        } else if let string = any as? String {
            self = .string(string)
        } else if let object = any as? [String: Any] {
            self = .object(object)
        } else if let array = any as? [Any] {
            self = .array(array)
        } else {
            self = .null
        }
    }

    /// The value as a ``JSONValue`` (recursively).
    var jsonValue: JSONValue {
        switch self {
        case .null: .null
        case .bool(let b): .bool(b)
        case .number(let n): .number(n)
        case .string(let s): .string(s)
        case .array(let items): .array(items.map { JSONNode($0).jsonValue })
        case .object(let members): .object(members.mapValues { JSONNode($0).jsonValue })
        }
    }

    /// How an error message shows this value: a JSON scalar as written, or "an object"/"an array".
    var found: String {
        switch self {
        case .null: "null"
        case .bool(let b): b ? "true" : "false"
        case .number(let n): JSONText.number(n)
        case .string(let s): JSONText.quoted(s)
        case .array(let items): items.isEmpty ? "an empty array" : "an array of \(items.count)"
        case .object: "an object"
        }
    }
}

/// Walks a parsed JSON document, keeping the JSON path of the value being read so that every problem
/// names its file and field.
final class JSONDocumentReader {
    enum PathComponent {
        case key(String)
        case index(Int)
    }

    let file: URL
    private(set) var path: [PathComponent] = []

    init(file: URL) {
        self.file = file
    }

    /// Parses a file's bytes with `JSONSerialization`.
    /// - Throws: `.invalidJSON` with line and column, or `.wrongType` when the top level is not an object.
    func parseObject(_ data: Data) throws(ManifestError) -> [String: Any] {
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: data, options: [])
        } catch {
            throw invalidJSON(error, data: data)
        }
        guard let object = parsed as? [String: Any] else {
            throw fail(.wrongType, "expected a JSON object; found \(JSONNode(parsed).found)")
        }
        return object
    }

    /// The rendered JSON path, e.g. `$.performers[0].plans[1]`.
    var renderedPath: String { Self.render(path) }

    static func render(_ path: [PathComponent]) -> String {
        var text = "$"
        for component in path {
            switch component {
            case .key(let key):
                if Self.isPlainKey(key) {
                    text += "." + key
                } else {
                    text += "[" + JSONText.quoted(key, limit: 200) + "]"
                }
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

    /// An error at the current path.
    func fail(_ code: ManifestError.Code, _ message: String) -> ManifestError {
        ManifestError(code: code, file: file, jsonPath: renderedPath, message: message)
    }

    /// Runs `body` with `component` appended to the path.
    @inline(__always)
    func at<T>(_ component: PathComponent, _ body: () throws(ManifestError) -> T) throws(ManifestError) -> T {
        path.append(component)
        defer { path.removeLast() }
        return try body()
    }

    /// Rejects keys not in `allowed`, naming the first unknown one (in sorted order) and the known ones.
    func checkKeys(_ object: [String: Any], allowed: [String], what: String) throws(ManifestError) {
        if object.count <= allowed.count, object.keys.allSatisfy({ allowed.contains($0) }) { return }
        let unknown = object.keys.filter { !allowed.contains($0) }.sorted()
        guard let first = unknown.first else { return }
        try at(.key(first)) { () throws(ManifestError) in
            throw fail(
                .unknownField,
                "expected one of the fields of \(what) (\(allowed.joined(separator: ", "))); found unknown field "
                    + JSONText.quoted(first) + JSONText.suggestion(for: first, among: allowed))
        }
    }

    /// A required member, read by `read` with the path at that member.
    func required<T>(
        _ object: [String: Any], _ key: String, expected: String, _ read: (JSONNode) throws(ManifestError) -> T
    ) throws(ManifestError) -> T {
        try at(.key(key)) { () throws(ManifestError) -> T in
            guard let value = object[key] else {
                throw fail(.missingField, "expected \(expected) (a required field); found no value")
            }
            return try read(JSONNode(value))
        }
    }

    /// An optional member, read by `read` with the path at that member; `nil` when absent.
    func optional<T>(
        _ object: [String: Any], _ key: String, _ read: (JSONNode) throws(ManifestError) -> T
    ) throws(ManifestError) -> T? {
        guard let value = object[key] else { return nil }
        return try at(.key(key)) { () throws(ManifestError) -> T in try read(JSONNode(value)) }
    }

    // MARK: Typed readers (at the current path)

    func string(_ node: JSONNode, expected: String = "a string") throws(ManifestError) -> String {
        guard case .string(let s) = node else { throw fail(.wrongType, "expected \(expected); found \(node.found)") }
        return s
    }

    func nonEmptyString(_ node: JSONNode, expected: String = "a non-empty string") throws(ManifestError) -> String {
        let s = try string(node, expected: expected)
        if s.isEmpty || s.unicodeScalars.contains(where: { $0.value < 0x20 }) {
            throw fail(.invalidValue, "expected \(expected) without control characters; found \(node.found)")
        }
        return s
    }

    func bool(_ node: JSONNode) throws(ManifestError) -> Bool {
        guard case .bool(let b) = node else { throw fail(.wrongType, "expected true or false; found \(node.found)") }
        return b
    }

    func number(_ node: JSONNode) throws(ManifestError) -> Double {
        guard case .number(let n) = node, n.isFinite else {
            throw fail(.wrongType, "expected a number; found \(node.found)")
        }
        return n
    }

    func integer(_ node: JSONNode, atLeast low: Int = 0) throws(ManifestError) -> Int {
        guard case .number(let n) = node, n.isFinite, n == n.rounded(), abs(n) < 1e15 else {
            throw fail(.wrongType, "expected an integer; found \(node.found)")
        }
        guard Int(n) >= low else { throw fail(.invalidValue, "expected an integer >= \(low); found \(node.found)") }
        return Int(n)
    }

    func object(_ node: JSONNode, expected: String) throws(ManifestError) -> [String: Any] {
        guard case .object(let o) = node else { throw fail(.wrongType, "expected \(expected); found \(node.found)") }
        return o
    }

    func array(_ node: JSONNode, expected: String) throws(ManifestError) -> [Any] {
        guard case .array(let a) = node else { throw fail(.wrongType, "expected \(expected); found \(node.found)") }
        return a
    }

    /// One of `choices`' raw values.
    func choice<E: RawRepresentable & CaseIterable>(_ node: JSONNode, _: E.Type) throws(ManifestError) -> E
    where E.RawValue == String {
        let names = E.allCases.map(\.rawValue)
        guard case .string(let s) = node, let value = E(rawValue: s) else {
            var message = "expected one of \(names.joined(separator: ", ")); found \(node.found)"
            if case .string(let s) = node { message += JSONText.suggestion(for: s, among: names) }
            throw fail(node.isString ? .invalidValue : .wrongType, message)
        }
        return value
    }

    /// Each element of an array, read with the path at its index.
    func elements<T>(_ items: [Any], _ read: (Int, JSONNode) throws(ManifestError) -> T) throws(ManifestError) -> [T] {
        var result: [T] = []
        result.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            let value = try at(.index(i)) { () throws(ManifestError) -> T in try read(i, JSONNode(item)) }
            result.append(value)
        }
        return result
    }

    private func invalidJSON(_ error: any Error, data: Data) -> ManifestError {
        if data.isEmpty {
            return ManifestError(
                code: .invalidJSON, file: file, jsonPath: nil, message: "invalid JSON: the file is empty")
        }
        let detail = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? "\(error)"
        var message = "invalid JSON"
        if let offset = Self.characterOffset(in: detail) {
            let (line, column) = JSONText.lineAndColumn(ofByteOffset: offset, in: data)
            message += " at line \(line), column \(column)"
        }
        var reason = detail
        if let range = reason.range(of: " around character") { reason = String(reason[..<range.lowerBound]) }
        if reason.hasSuffix(".") { reason.removeLast() }
        message += ": " + reason.prefix(1).lowercased() + reason.dropFirst()
        return ManifestError(code: .invalidJSON, file: file, jsonPath: nil, message: message)
    }

    /// The N of JSONSerialization's "... around character N." (a UTF-8 byte offset).
    private static func characterOffset(in text: String) -> Int? {
        guard let range = text.range(of: "around character ") else { return nil }
        let digits = text[range.upperBound...].prefix(while: { $0.isNumber })
        return Int(digits)
    }
}

extension JSONNode {
    var isString: Bool {
        if case .string = self { return true }
        return false
    }
}
