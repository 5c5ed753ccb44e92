/// A light scanner of JSON text that says where a document is wrong, used only after simdjson has
/// refused it (simdjson's errors carry no position), and where a duplicate key is.
///
/// It checks RFC 8259's grammar (values, strings with their escapes and UTF-8, numbers, literals) and
/// the limits simdjson applies (nesting depth, the range of a `Double`, integers of at most 64 bits),
/// building nothing.
package enum JSONSyntax {
    /// The first problem in `bytes` and its UTF-8 byte offset, or `nil` if the scanner finds none.
    /// - Parameters:
    ///   - bytes: The document.
    ///   - maximumDepth: The deepest nesting of arrays and objects allowed.
    /// - Returns: The offset and a reason such as `trailing comma after the last element of an array`.
    package static func firstError(
        in bytes: UnsafeRawBufferPointer, maximumDepth: Int
    ) -> (offset: Int, reason: String)? {
        var scanner = Scanner(bytes: bytes)
        return scanner.document(maximumDepth: maximumDepth)
    }

    /// The byte offsets of the keys (their opening quotes) of the `ordinal`-th object of a valid document,
    /// counting objects in the order their `{` appear; members in document order.
    package static func keyOffsets(ofObject ordinal: Int, in bytes: UnsafeRawBufferPointer) -> [Int] {
        var objects = 0
        var i = 0
        var inString = false
        // Find the object's `{`, outside strings.
        while i < bytes.count {
            let byte = bytes[i]
            if inString {
                if byte == UInt8(ascii: "\\") {
                    i += 1
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: "{") {
                if objects == ordinal { break }
                objects += 1
            }
            i += 1
        }
        // Walk its members: a key is the string that opens a member at depth 1.
        var offsets: [Int] = []
        var depth = 0
        var expectingKey = true
        while i < bytes.count {
            let byte = bytes[i]
            if inString {
                if byte == UInt8(ascii: "\\") {
                    i += 1
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else {
                switch byte {
                case UInt8(ascii: "\""):
                    if depth == 1 && expectingKey {
                        offsets.append(i)
                        expectingKey = false
                    }
                    inString = true
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return offsets }
                case UInt8(ascii: ","):
                    if depth == 1 { expectingKey = true }
                default: break
                }
            }
            i += 1
        }
        return offsets
    }

    /// The 1-based line and column (in Unicode scalars) of a UTF-8 byte offset.
    package static func lineAndColumn(ofByteOffset offset: Int, in bytes: UnsafeRawBufferPointer) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for byte in bytes.prefix(offset) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (line, column)
    }
}

/// The grammar walk of ``JSONSyntax/firstError(in:maximumDepth:)``: iterative, so depth costs no stack.
private struct Scanner {
    let bytes: UnsafeRawBufferPointer
    var i = 0

    typealias Problem = (offset: Int, reason: String)

    static let endOfFile = "unexpected end of file during JSON parse"

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var atEnd: Bool { i >= bytes.count }

    mutating func skipWhitespace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            default: return
            }
        }
    }

    mutating func document(maximumDepth: Int) -> Problem? {
        // The open containers, innermost last: true for an object.
        var open: [Bool] = []
        value: while true {
            skipWhitespace()
            guard !atEnd else { return (i, Self.endOfFile) }
            let start = bytes[i]
            switch start {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = start == UInt8(ascii: "{")
                if open.count >= maximumDepth { return (i, "more than \(maximumDepth) nested arrays and objects") }
                open.append(isObject)
                i += 1
                skipWhitespace()
                guard !atEnd else { return (i, Self.endOfFile) }
                if bytes[i] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    open.removeLast()
                    i += 1
                } else {
                    if isObject, let problem = key() { return problem }
                    continue value
                }
            case UInt8(ascii: "\""):
                if let problem = string() { return problem }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                if let problem = number() { return problem }
            case UInt8(ascii: "t"): if let problem = literal("true") { return problem }
            case UInt8(ascii: "f"): if let problem = literal("false") { return problem }
            case UInt8(ascii: "n"): if let problem = literal("null") { return problem }
            default: return (i, "invalid value")
            }
            // After a value: close containers, or a comma and the next member or element.
            while true {
                skipWhitespace()
                guard let isObject = open.last else {
                    return atEnd ? nil : (i, "unexpected text after the JSON value")
                }
                guard !atEnd else { return (i, Self.endOfFile) }
                let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if bytes[i] == close {
                    open.removeLast()
                    i += 1
                    continue
                }
                guard bytes[i] == UInt8(ascii: ",") else {
                    return (
                        i, isObject ? "expected ',' or '}' after an object member" : "expected ',' or ']' after an array element"
                    )
                }
                let comma = i
                i += 1
                skipWhitespace()
                if !atEnd, bytes[i] == close {
                    return (
                        comma,
                        isObject
                            ? "trailing comma after the last member of an object" : "trailing comma after the last element of an array"
                    )
                }
                if isObject, let problem = key() { return problem }
                continue value
            }
        }
    }

    /// A member's key and its colon.
    mutating func key() -> Problem? {
        skipWhitespace()
        guard !atEnd else { return (i, Self.endOfFile) }
        guard bytes[i] == UInt8(ascii: "\"") else { return (i, "expected a key (a string in double quotes)") }
        if let problem = string() { return problem }
        skipWhitespace()
        guard !atEnd else { return (i, Self.endOfFile) }
        guard bytes[i] == UInt8(ascii: ":") else { return (i, "expected ':' after the key") }
        i += 1
        return nil
    }

    mutating func string() -> Problem? {
        let start = i
        i += 1
        while true {
            guard !atEnd else { return (start, "unterminated string") }
            let byte = bytes[i]
            switch byte {
            case UInt8(ascii: "\""):
                i += 1
                return nil
            case UInt8(ascii: "\\"):
                if let problem = escape() { return problem }
            case 0..<0x20:
                let hex = String(byte, radix: 16, uppercase: true)
                return (i, "unescaped control character U+" + String(repeating: "0", count: 4 - hex.count) + hex + " in a string")
            case 0x80...:
                guard let length = utf8Length(at: i) else { return (i, "invalid UTF-8 in a string") }
                i += length
            default:
                i += 1
            }
        }
    }

    /// An escape sequence at `i` (the backslash).
    mutating func escape() -> Problem? {
        let start = i
        guard i + 1 < bytes.count else { return (start, "unterminated string") }
        switch bytes[i + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            i += 2
            return nil
        case UInt8(ascii: "u"):
            guard let unit = hex4(at: i + 2) else { return (start, "invalid \\u escape (expected 4 hexadecimal digits)") }
            i += 6
            if (0xDC00...0xDFFF).contains(unit) { return (start, "a \\u escape of a lone low surrogate") }
            guard (0xD800...0xDBFF).contains(unit) else { return nil }
            guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u"),
                let low = hex4(at: i + 2), (0xDC00...0xDFFF).contains(low)
            else { return (start, "a \\u escape of a high surrogate not followed by a low one") }
            i += 6
            return nil
        default:
            return (start, "invalid escape sequence (expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)")
        }
    }

    func hex4(at offset: Int) -> Int? {
        guard offset + 4 <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[offset..<offset + 4] {
            let digit: Int
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = Int(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = Int(byte - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = Int(byte - UInt8(ascii: "A")) + 10
            default: return nil
            }
            value = value * 16 + digit
        }
        return value
    }

    /// The length of the well-formed UTF-8 sequence of 2 to 4 bytes at `offset`, or `nil`.
    func utf8Length(at offset: Int) -> Int? {
        let lead = bytes[offset]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            secondRange = 0x80...0x9F
        case 0xF0:
            length = 4
            secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            secondRange = 0x80...0x8F
        default: return nil
        }
        guard offset + length <= bytes.count, secondRange.contains(bytes[offset + 1]) else { return nil }
        for k in 2..<length where !(0x80...0xBF).contains(bytes[offset + k]) { return nil }
        return length
    }

    mutating func number() -> Problem? {
        let start = i
        func digits() -> Bool {
            let first = i
            while !atEnd, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { i += 1 }
            return i > first
        }
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard !atEnd, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) else {
            return (start, "invalid number (expected a digit)")
        }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            if !atEnd, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) {
                return (start, "invalid number (a leading zero)")
            }
        } else {
            _ = digits()
        }
        var isInteger = true
        if !atEnd, bytes[i] == UInt8(ascii: ".") {
            isInteger = false
            i += 1
            guard digits() else { return (start, "invalid number (expected a digit after '.')") }
        }
        if !atEnd, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            isInteger = false
            i += 1
            if !atEnd, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() else { return (start, "invalid number (expected a digit in the exponent)") }
        }
        let literal = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
        if isInteger {
            let fits = literal.hasPrefix("-") ? Int64(literal) != nil : UInt64(literal) != nil
            if !fits {
                return (
                    start,
                    "number \(literal) is an integer beyond 64 bits. To fix, write it with an exponent (\(Double(literal).map { "\($0)" } ?? "1e30"))"
                )
            }
        } else if let value = Double(literal), value.isInfinite {
            return (start, "number \(literal) is out of range for a 64-bit float (at most about 1.8e308)")
        }
        return nil
    }

    mutating func literal(_ word: String) -> Problem? {
        for byte in word.utf8 {
            guard !atEnd else { return (i, Self.endOfFile) }
            guard bytes[i] == byte else { return (i, "invalid value (expected \(word))") }
            i += 1
        }
        return nil
    }
}
