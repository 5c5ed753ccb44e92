import FoundationEssentials

/// How JSON values appear in messages and in written text: JSON-like, short, one line.
package enum JSONText {
    /// A number as JSON and as a person writes it: integers up to 2^53 without a fraction (`-1`,
    /// `3600`), others in Swift's shortest round-trip form (`0.3`, `1e-05`), negative zero as `-0.0`;
    /// non-finite numbers as `null` (``JSONValue/writeJSON(into:)``).
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
}
