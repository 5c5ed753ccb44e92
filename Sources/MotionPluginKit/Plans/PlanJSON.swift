#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A parsed JSON value, as small as plans need: objects keep their members in order (plans have a
/// handful of fields, so a linear search beats hashing).
enum PlanJSON: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([PlanJSON])
    case object([(key: String, value: PlanJSON)])

    /// The value of `key` in an object (the last one, if a key repeats), or nil.
    func member(_ key: String) -> PlanJSON? {
        guard case .object(let members) = self else { return nil }
        for member in members.reversed() where member.key == key { return member.value }
        return nil
    }

    /// A short name of the value's JSON type, for error messages.
    var kind: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A failure to parse JSON: the byte offset and what was expected there.
struct PlanJSONSyntaxError: Error, CustomStringConvertible {
    let offset: Int
    let expected: String
    var description: String { "the plan is not valid JSON: expected \(expected) at byte \(offset)" }
}

/// Parses UTF-8 JSON bytes (RFC 8259) into a `PlanJSON`, without copying the input first.
///
/// Replaces Foundation's JSONDecoder on the plan path: a plan crosses the boundary for every add, and
/// this parser plus `PlanDecoder` decode a typical plan several times faster. Nesting is bounded
/// (`maximumDepth`) so hostile input cannot overflow the stack.
struct PlanJSONParser {
    static let maximumDepth = 256

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    /// Parses one JSON document.
    /// - Parameter bytes: the UTF-8 text, valid for the call.
    /// - Returns: the value.
    /// - Throws: `PlanJSONSyntaxError` at the first byte that does not fit.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(PlanJSONSyntaxError) -> PlanJSON {
        var parser = PlanJSONParser(bytes: bytes)
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error("the end of the document") }
        return value
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private func error(_ expected: String) -> PlanJSONSyntaxError {
        PlanJSONSyntaxError(offset: index, expected: expected)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func value(depth: Int) throws(PlanJSONSyntaxError) -> PlanJSON {
        guard depth < Self.maximumDepth else { throw error("at most \(Self.maximumDepth) levels of nesting") }
        skipWhitespace()
        guard index < bytes.count else { throw error("a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        default: return .number(try number())
        }
    }

    private mutating func literal(_ text: StaticString, _ value: PlanJSON) throws(PlanJSONSyntaxError) -> PlanJSON {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("\(text)") }
        for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] {
            throw error("\(text)")
        }
        index += count
        return value
    }

    private mutating func object(depth: Int) throws(PlanJSONSyntaxError) -> PlanJSON {
        index += 1  // {
        var members: [(key: String, value: PlanJSON)] = []
        members.reserveCapacity(8)
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("a member name") }
            let key = try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("':'") }
            index += 1
            members.append((key, try value(depth: depth + 1)))
            skipWhitespace()
            guard index < bytes.count else { throw error("',' or '}'") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            } else {
                throw error("',' or '}'")
            }
        }
    }

    private mutating func array(depth: Int) throws(PlanJSONSyntaxError) -> PlanJSON {
        index += 1  // [
        var elements: [PlanJSON] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            elements.append(try value(depth: depth + 1))
            skipWhitespace()
            guard index < bytes.count else { throw error("',' or ']'") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            } else {
                throw error("',' or ']'")
            }
        }
    }

    private mutating func string() throws(PlanJSONSyntaxError) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw error("no control characters in a string") }
            index += 1
        }
        var utf8 = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw error("an escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        // A high surrogate must be followed by \u and a low surrogate.
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        else { throw error("a low surrogate escape") }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("a low surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw error("a Unicode scalar") }
                    utf8.append(contentsOf: String(Character(unicode)).utf8)
                default:
                    throw error("a valid escape")
                }
            default:
                guard byte >= 0x20 else { throw error("no control characters in a string") }
                utf8.append(byte)
            }
        }
        throw error("'\"'")
    }

    private mutating func hex4() throws(PlanJSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("a hex digit")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// A JSON number (validated against the grammar), converted with strtod.
    private mutating func number() throws(PlanJSONSyntaxError) -> Double {
        let start = index
        func digits() -> Int {
            let from = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                index += 1
            }
            return index - from
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        let integerDigits = digits()
        guard integerDigits > 0 else {
            index = start
            throw error("a value")
        }
        guard integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { throw error("no leading zeros") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw error("digits after '.'") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digits() > 0 else { throw error("exponent digits") }
        }
        let length = index - start
        // Small integers (the common case) need no strtod.
        if length <= 15, integerDigits == length - (bytes[start] == UInt8(ascii: "-") ? 1 : 0) {
            var value: Int64 = 0
            for offset in integerStart..<index { value = value * 10 + Int64(bytes[offset] - UInt8(ascii: "0")) }
            return Double(bytes[start] == UInt8(ascii: "-") ? -value : value)
        }
        guard length < 64 else { throw error("a number of fewer than 64 characters") }
        let parsed = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer -> Double in
            for offset in 0..<length { buffer[offset] = CChar(bitPattern: bytes[start + offset]) }
            buffer[length] = 0
            return strtod(buffer.baseAddress!, nil)
        }
        guard parsed.isFinite else { throw error("a number within the range of a double") }
        return parsed
    }
}
