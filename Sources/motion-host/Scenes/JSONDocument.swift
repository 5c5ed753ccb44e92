import MotionCore

/// A JSON value that keeps its objects' member order, as read from a scene file.
///
/// Scenes are parsed with this small RFC 8259 reader rather than `JSONSerialization` because
/// Foundation on Linux reports syntax errors as a byte offset ("around character 19") or not at
/// all ("The given data was not valid JSON"); a person fixing a scene needs the line and column.
/// Member order is kept so targets and properties appear in the timeline in the order written.
indirect enum JSONNode: Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONNode])
    case object([(key: String, value: JSONNode)])

    static func == (lhs: JSONNode, rhs: JSONNode) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// The member of that key, if this is an object that has it.
    subscript(key: String) -> JSONNode? {
        if case .object(let members) = self { return members.first { $0.key == key }?.value }
        return nil
    }

    /// The value as MotionCore's `JSONValue` (object member order is dropped).
    var jsonValue: JSONValue {
        switch self {
        case .null: .null
        case .bool(let b): .bool(b)
        case .number(let n): .number(n)
        case .string(let s): .string(s)
        case .array(let a): .array(a.map(\.jsonValue))
        case .object(let members): .object(Dictionary(members.map { ($0.key, $0.value.jsonValue) }) { _, last in last })
        }
    }

    /// The value's JSON type name, as error messages say it.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The value as short JSON text for error messages ("found ..."): strings quoted, long values cut.
    var excerpt: String {
        let text: String
        switch self {
        case .null: text = "null"
        case .bool(let b): text = b ? "true" : "false"
        case .number(let n): text = JSONText.number(n)
        case .string(let s): text = JSONText.quoted(s)
        case .array(let a): text = "[" + a.map(\.excerpt).joined(separator: ", ") + "]"
        case .object(let m):
            text = "{" + m.map { "\(JSONText.quoted($0.key)): \($0.value.excerpt)" }.joined(separator: ", ") + "}"
        }
        return text.count > 40 ? String(text.prefix(37)) + "..." : text
    }
}

/// A JSON syntax error: where (1-based line and column, in characters) and what was expected.
struct JSONSyntaxError: Error, Equatable {
    /// The line, counting from 1.
    var line: Int
    /// The column, counting from 1, in Unicode scalars.
    var column: Int
    /// What was wrong, e.g. `expected a value, found 's'`.
    var reason: String
}

/// Reads a JSON text (RFC 8259) into a ``JSONNode``.
struct JSONReader {
    private let scalars: [Unicode.Scalar]
    private var position = 0
    private var depth = 0
    private static let maximumDepth = 512

    /// Parses a complete JSON text.
    /// - Parameter bytes: UTF-8 text; invalid UTF-8 is an error at its position.
    /// - Throws: ``JSONSyntaxError`` with the line and column of the first error.
    static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONNode {
        var scalars: [Unicode.Scalar] = []
        scalars.reserveCapacity(bytes.count)
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): scalars.append(scalar)
            case .emptyInput: break loop
            case .error:
                var reader = JSONReader(scalars: scalars)
                reader.position = scalars.count
                throw reader.error("the file is not valid UTF-8 text")
            }
        }
        var reader = JSONReader(scalars: scalars)
        if reader.peek == "\u{FEFF}" { reader.position += 1 }
        let value = try reader.value()
        reader.skipWhitespace()
        if let extra = reader.peek {
            throw reader.error("unexpected \(describe(extra)) after the end of the JSON value")
        }
        return value
    }

    private init(scalars: [Unicode.Scalar]) { self.scalars = scalars }

    private var peek: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

    private func error(_ reason: String) -> JSONSyntaxError {
        var line = 1
        var column = 1
        for scalar in scalars[..<min(position, scalars.count)] {
            if scalar == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return JSONSyntaxError(line: line, column: column, reason: reason)
    }

    private static func describe(_ scalar: Unicode.Scalar?) -> String {
        guard let scalar else { return "end of file" }
        if scalar.value < 0x20 { return "control character U+\(String(scalar.value, radix: 16, uppercase: true))" }
        return "'\(Character(scalar))'"
    }

    private mutating func skipWhitespace() {
        while let c = peek, c == " " || c == "\t" || c == "\n" || c == "\r" { position += 1 }
    }

    private mutating func value() throws(JSONSyntaxError) -> JSONNode {
        skipWhitespace()
        guard let c = peek else { throw error("expected a JSON value, found end of file") }
        switch c {
        case "{": return try object()
        case "[": return try array()
        case "\"": return .string(try string())
        case "t": return try literal("true", .bool(true))
        case "f": return try literal("false", .bool(false))
        case "n": return try literal("null", .null)
        case "-", "0"..."9": return try number()
        default:
            if c == "/" { throw error("comments are not allowed in JSON") }
            throw error("expected a JSON value, found \(Self.describe(c))")
        }
    }

    private mutating func literal(_ word: String, _ node: JSONNode) throws(JSONSyntaxError) -> JSONNode {
        for expected in word.unicodeScalars {
            guard peek == expected else {
                throw error("expected '\(word)', found \(Self.describe(peek))")
            }
            position += 1
        }
        return node
    }

    private mutating func nest() throws(JSONSyntaxError) {
        depth += 1
        if depth > Self.maximumDepth { throw error("nested deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func object() throws(JSONSyntaxError) -> JSONNode {
        try nest()
        defer { depth -= 1 }
        position += 1
        var members: [(key: String, value: JSONNode)] = []
        skipWhitespace()
        if peek == "}" {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek == "\"" else {
                if peek == "}" { throw error("trailing comma: expected a member name after ','") }
                throw error("expected a member name in double quotes, found \(Self.describe(peek))")
            }
            let keyStart = position
            let key = try string()
            if members.contains(where: { $0.key == key }) {
                position = keyStart
                throw error("duplicate member name \(JSONText.quoted(key))")
            }
            skipWhitespace()
            guard peek == ":" else { throw error("expected ':' after the member name, found \(Self.describe(peek))") }
            position += 1
            members.append((key, try value()))
            skipWhitespace()
            switch peek {
            case ",": position += 1
            case "}":
                position += 1
                return .object(members)
            default: throw error("expected ',' or '}' after an object member, found \(Self.describe(peek))")
            }
        }
    }

    private mutating func array() throws(JSONSyntaxError) -> JSONNode {
        try nest()
        defer { depth -= 1 }
        position += 1
        var elements: [JSONNode] = []
        skipWhitespace()
        if peek == "]" {
            position += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            if peek == "]" { throw error("trailing comma: expected a value after ','") }
            elements.append(try value())
            skipWhitespace()
            switch peek {
            case ",": position += 1
            case "]":
                position += 1
                return .array(elements)
            default: throw error("expected ',' or ']' after an array element, found \(Self.describe(peek))")
            }
        }
    }

    private mutating func string() throws(JSONSyntaxError) -> String {
        position += 1
        var out = String.UnicodeScalarView()
        while true {
            guard let c = peek else { throw error("unterminated string: expected '\"', found end of file") }
            if c == "\"" {
                position += 1
                return String(out)
            }
            if c.value < 0x20 { throw error("unescaped \(Self.describe(c)) in a string") }
            if c != "\\" {
                out.append(c)
                position += 1
                continue
            }
            position += 1
            guard let escape = peek else { throw error("unterminated escape sequence") }
            position += 1
            switch escape {
            case "\"": out.append("\"")
            case "\\": out.append("\\")
            case "/": out.append("/")
            case "b": out.append("\u{8}")
            case "f": out.append("\u{C}")
            case "n": out.append("\n")
            case "r": out.append("\r")
            case "t": out.append("\t")
            case "u":
                var code = try hex4()
                if (0xD800..<0xDC00).contains(code) {
                    guard peek == "\\", position + 1 < scalars.count, scalars[position + 1] == "u" else {
                        throw error("a high surrogate \\u escape must be followed by a low surrogate")
                    }
                    position += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw error("invalid low surrogate in a \\u escape") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape (lone surrogate)") }
                out.append(scalar)
            default:
                position -= 1
                throw error("invalid escape sequence '\\\(Character(escape))'")
            }
        }
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        var code: UInt32 = 0
        for _ in 0..<4 {
            guard let c = peek, let digit = Character(c).hexDigitValue else {
                throw error("expected 4 hexadecimal digits in a \\u escape, found \(Self.describe(peek))")
            }
            code = code * 16 + UInt32(digit)
            position += 1
        }
        return code
    }

    private mutating func number() throws(JSONSyntaxError) -> JSONNode {
        let start = position
        func digits(_ reader: inout JSONReader) -> Int {
            var n = 0
            while let c = reader.peek, ("0"..."9").contains(c) {
                reader.position += 1
                n += 1
            }
            return n
        }
        if peek == "-" { position += 1 }
        if peek == "0" {
            position += 1
            if let c = peek, ("0"..."9").contains(c) { throw error("numbers must not have leading zeros") }
        } else if digits(&self) == 0 {
            throw error("expected a digit, found \(Self.describe(peek))")
        }
        if peek == "." {
            position += 1
            if digits(&self) == 0 { throw error("expected a digit after '.', found \(Self.describe(peek))") }
        }
        if peek == "e" || peek == "E" {
            position += 1
            if peek == "+" || peek == "-" { position += 1 }
            if digits(&self) == 0 { throw error("expected a digit in the exponent, found \(Self.describe(peek))") }
        }
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars[start..<position])
        guard let value = Double(text), value.isFinite else {
            position = start
            throw error("the number \(text) is out of range")
        }
        return .number(value)
    }
}

/// Stable JSON text for numbers and strings, shared by error messages and timeline writers.
enum JSONText {
    /// A number as JSON: integers up to 2^53 without a fraction (`3`), others in Swift's shortest
    /// round-trip form (`0.30000000000000004`, `1e-05`); non-finite numbers as `null`.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
            return value == 0 ? "0" : String(Int64(value))
        }
        return "\(value)"
    }

    /// A string as a quoted JSON string, escaping `"`, `\` and control characters.
    static func quoted(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
