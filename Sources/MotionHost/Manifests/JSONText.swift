import Foundation
import MotionCore

/// How values appear in error messages: JSON-like, short, one line.
enum JSONText {
    /// A number as a person writes it: `-1`, `0.3`, `3600`.
    static func number(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// A JSON string literal, truncated to about `limit` characters.
    static func quoted(_ text: String, limit: Int = 60) -> String {
        var out = "\""
        var count = 0
        for scalar in text.unicodeScalars {
            if count >= limit {
                out += "…"
                break
            }
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
            count += 1
        }
        return out + "\""
    }

    /// A value as compact JSON, cut at about `limit` characters.
    static func value(_ value: JSONValue, limit: Int = 80) -> String {
        var out = ""
        append(value, to: &out, limit: limit)
        if out.count > limit { out = String(out.prefix(limit)) + "…" }
        return out
    }

    private static func append(_ value: JSONValue, to out: inout String, limit: Int) {
        if out.count > limit { return }
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += number(n)
        case .string(let s): out += quoted(s)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += ", " }
                append(item, to: &out, limit: limit)
                if out.count > limit { return }
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, key) in members.keys.sorted().enumerated() {
                if i > 0 { out += ", " }
                out += quoted(key) + ": "
                append(members[key]!, to: &out, limit: limit)
                if out.count > limit { return }
            }
            out += "}"
        }
    }

    /// The 1-based line and column of a UTF-8 byte offset.
    static func lineAndColumn(ofByteOffset offset: Int, in bytes: Data) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        var index = 0
        for byte in bytes {
            if index >= offset { break }
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            index += 1
        }
        return (line, column)
    }

    /// The closest of `candidates` to `word` (edit distance at most 2, or equal ignoring case), as
    /// ` (did you mean "x"?)`, or an empty string.
    static func suggestion(for word: String, among candidates: [String]) -> String {
        var best: (String, Int)?
        for candidate in candidates {
            if candidate.lowercased() == word.lowercased() { return " (did you mean \(quoted(candidate))?)" }
            let d = editDistance(word, candidate)
            if d <= 2, d < word.count, best == nil || d < best!.1 { best = (candidate, d) }
        }
        return best.map { " (did you mean \(quoted($0.0))?)" } ?? ""
    }

    /// Levenshtein distance over Unicode scalars.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars)
        let b = Array(b.unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
