import Foundation

/// How JSON values appear in messages and in written text: JSON-like, short, one line.
package enum JSONText {
    /// A number as JSON and as a person writes it: integers up to 2^53 without a fraction (`-1`,
    /// `3600`), others in Swift's shortest round-trip form (`0.3`, `1e-05`); non-finite numbers as `null`.
    /// - Parameter value: The number.
    /// - Returns: The JSON text.
    package static func number(_ value: Double) -> String {
        var bytes: [UInt8] = []
        JSONValue.writeNumber(value, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A string as a complete JSON string literal, for written output (never cut).
    /// - Parameter text: The string.
    /// - Returns: The literal, with `"`, `\` and control characters escaped.
    package static func string(_ text: String) -> String {
        var bytes: [UInt8] = []
        JSONValue.writeString(text, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A string as a JSON string literal for a message, cut after `limit` Unicode scalars with `…`.
    /// - Parameters:
    ///   - text: The string.
    ///   - limit: How many Unicode scalars to keep at most.
    /// - Returns: The literal, e.g. `"frameRte"`.
    package static func quoted(_ text: String, limit: Int = 60) -> String {
        let scalars = text.unicodeScalars
        guard scalars.count > limit else { return string(text) }
        var cut = String(String.UnicodeScalarView(scalars.prefix(limit)))
        cut = string(cut)
        cut.insert("…", at: cut.index(before: cut.endIndex))
        return cut
    }

    /// A value as compact JSON (object keys sorted), cut after about `limit` characters with `…`.
    /// - Parameters:
    ///   - value: The value.
    ///   - limit: How many characters to keep, about.
    /// - Returns: The text, e.g. `[1, 2, 3]` or `{"a": 1}`.
    package static func value(_ value: JSONValue, limit: Int = 80) -> String {
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

    /// The closest of `candidates` to `word` (equal ignoring case, or at most 2 edits and fewer than the
    /// word's length), as ` (did you mean "x"?)`, or an empty string.
    /// - Parameters:
    ///   - word: The name that was written.
    ///   - candidates: The names that are allowed.
    /// - Returns: The suggestion, with a leading space, or `""`.
    package static func suggestion(for word: String, among candidates: [String]) -> String {
        var best: (String, Int)?
        for candidate in candidates {
            if candidate.lowercased() == word.lowercased() { return " (did you mean \(quoted(candidate))?)" }
            let d = editDistance(word, candidate)
            if d <= 2, d < word.count, best == nil || d < best!.1 { best = (candidate, d) }
        }
        return best.map { " (did you mean \(quoted($0.0))?)" } ?? ""
    }

    /// A one-line message for a `JSONSerialization` syntax error:
    /// `invalid JSON at line L, column C: <reason>`.
    ///
    /// Foundation says where as "around character N" (a UTF-8 byte offset into `data`); the line and
    /// column (1-based, the column in Unicode scalars) are found by counting newlines before it.
    /// "Unexpected end of file" is placed after the last byte. A reason without a position gives
    /// `invalid JSON: <reason>`, and empty data `invalid JSON: the file is empty`.
    /// - Parameters:
    ///   - error: The error thrown by `JSONSerialization.jsonObject(with:)`.
    ///   - data: The bytes that were parsed.
    /// - Returns: The message, e.g. `invalid JSON at line 3, column 15: invalid value`.
    package static func invalidJSON(_ error: any Error, in data: Data) -> String {
        if data.isEmpty { return "invalid JSON: the file is empty" }
        let detail = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? "\(error)"
        var reason = detail
        var offset: Int?
        if let range = detail.range(of: " around character ") {
            offset = Int(detail[range.upperBound...].prefix(while: \.isNumber))
            reason = String(detail[..<range.lowerBound])
        } else if detail.hasPrefix("Unexpected end of file") {
            offset = data.count
        } else if detail.hasPrefix("Number "), let end = detail.range(of: " is not representable") {
            // Foundation names the number but not where it is: find its first occurrence as a value.
            let literal = detail[detail.index(detail.startIndex, offsetBy: 7)..<end.lowerBound]
            offset = byteOffset(ofNumber: Array(literal.utf8), in: data)
            reason = "number \(literal) is out of range for a 64-bit float (at most about 1.8e308)"
        }
        if reason.hasSuffix(".") { reason.removeLast() }
        reason = reason.prefix(1).lowercased() + reason.dropFirst()
        guard let offset else { return "invalid JSON: " + reason }
        let (line, column) = lineAndColumn(ofByteOffset: offset, in: data)
        return "invalid JSON at line \(line), column \(column): " + reason
    }

    /// The byte offset of the first occurrence of `literal` as a JSON value: outside strings, between a
    /// delimiter or white space and another (or the end). `nil` when there is none.
    private static func byteOffset(ofNumber literal: [UInt8], in bytes: Data) -> Int? {
        let data = [UInt8](bytes)
        guard let first = literal.first, data.count >= literal.count else { return nil }
        let before = Set("[:, \t\r\n".utf8)
        let after = Set("]}, \t\r\n".utf8)
        var inString = false
        var escaped = false
        for start in data.indices {
            let byte = data[start]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            if byte == UInt8(ascii: "\"") {
                inString = true
                continue
            }
            let end = start + literal.count
            guard byte == first, end <= data.count, data[start..<end].elementsEqual(literal) else { continue }
            if (start == 0 || before.contains(data[start - 1])) && (end == data.count || after.contains(data[end])) {
                return start
            }
        }
        return nil
    }

    /// The 1-based line and column (in Unicode scalars) of a UTF-8 byte offset.
    private static func lineAndColumn(ofByteOffset offset: Int, in bytes: Data) -> (line: Int, column: Int) {
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
