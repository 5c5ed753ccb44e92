import FoundationEssentials

extension JSONValue {
    /// Appends this value's JSON text to `out`: compact, object keys sorted, integral numbers without a
    /// fraction (`1`, not `1.0`), as `JSONEncoder` with `.sortedKeys` writes them, other numbers in the
    /// shortest form that reads back as the same `Double` (`0.30000000000000004`, `1e-05`), and negative
    /// zero as `-0.0`. Non-finite numbers, which JSON cannot express, are written as `null`.
    /// ``JSONParser`` reads every number written here back bit for bit.
    ///
    /// This writer exists for speed: plans cross the plugin boundary as JSON on every commit, and
    /// `JSONEncoder` costs several microseconds per small plan.
    public func writeJSON(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): JSONValue.writeNumber(n, into: &out)
        case .string(let s): JSONValue.writeString(s, into: &out)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (i, element) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                element.writeJSON(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            JSONValue.writeObject(o.sorted { $0.key < $1.key }, into: &out)
        }
    }

    static func writeObject(_ members: [(key: String, value: JSONValue)], into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for (i, member) in members.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            writeString(member.key, into: &out)
            out.append(UInt8(ascii: ":"))
            member.value.writeJSON(into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Appends a number's JSON text to `out` (see ``writeJSON(into:)``), without allocating: timeline frame
    /// lines write one per changed component.
    package static func writeNumber(_ n: Double, into out: inout [UInt8]) {
        guard n.isFinite else {
            out.append(contentsOf: "null".utf8)
            return
        }
        if n == 0, n.sign == .minus {
            // "-0" reads back as the integer 0: keep the sign with a fraction.
            out.append(contentsOf: "-0.0".utf8)
        } else if n == n.rounded(), abs(n) < 9_007_199_254_740_992 {
            writeInteger(Int64(n), into: &out)
        } else {
            // Swift's description (the fewest significant digits that round-trip, as valid JSON), written
            // through `TextOutputStreamable`, which hands the digits over as ASCII bytes with no `String`.
            var stream = ByteStream(bytes: out)
            out = []
            n.write(to: &stream)
            out = stream.bytes
        }
    }

    /// Appends an integer in decimal, as `String(n)` writes it.
    package static func writeInteger(_ n: Int64, into out: inout [UInt8]) {
        if n < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = n.magnitude
        if magnitude < 10 {
            out.append(UInt8(ascii: "0") + UInt8(magnitude))
            return
        }
        // At most 20 digits; written backwards into a fixed tuple, then appended in order.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            var i = buffer.count
            while magnitude > 0 {
                i -= 1
                buffer[i] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            out.append(contentsOf: buffer[i...])
        }
    }

    package static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most names and values need no escaping: copy them whole. Scanned as one contiguous buffer
        // (`withUTF8`), not byte by byte through `String.UTF8View`, which cost ~2,000 instructions per plan.
        var text = s
        let isPlain = text.withUTF8 { bytes in
            guard !bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
                return false
            }
            out.append(contentsOf: bytes)
            return true
        }
        if isPlain {
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\n"): out.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): out.append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): out.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// A `TextOutputStream` into bytes: `_writeASCII` is the stream requirement through which the standard
/// library's numbers write their digits, so a `Double` is formatted here without building a `String`.
private struct ByteStream: TextOutputStream {
    var bytes: [UInt8]

    mutating func write(_ string: String) { bytes.append(contentsOf: string.utf8) }

    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) { bytes.append(contentsOf: buffer) }
}

extension Plan {
    /// Appends the plan's JSON form `{"type": ..., ...fields}` (keys sorted) to `out`.
    /// - Throws: `EncodingError` if a typed value fails to encode.
    public func writeJSON(into out: inout [UInt8]) throws {
        let fields: [String: JSONValue]
        var defaults: [(key: String, value: JSONValue)] = []
        switch payload {
        case .fields(let f): fields = f
        case .typed(let box): fields = try Plan.encodeFields(box.value)
        case .completed(let f, let d): (fields, defaults) = (f, d.members)
        }
        // The members plus "type", sorted, without copying the plan's dictionary to add "type" to it.
        var members: [(key: String, value: JSONValue)] = []
        members.reserveCapacity(fields.count + defaults.count + 1)
        members.append((key: "type", value: .string(type)))
        for member in fields where member.key != "type" { members.append(member) }
        members += defaults
        members.sort { $0.key < $1.key }
        JSONValue.writeObject(members, into: &out)
    }
}

extension Transaction {
    /// Appends the transaction's JSON form `{"operations": [...]}` to `out`: what ``jsonData()`` gives (keys
    /// sorted) but for two escapes that are the timeline's own, as in its other lines: negative zero is `-0.0`
    /// (JSONEncoder: `-0`) and U+0008, U+000C in a string are `\u0008`, `\u000c` (JSONEncoder: `\b`, `\f`).
    /// Written directly: through `JSONEncoder` it cost about 30 µs, which serve paid for every transaction
    /// from the wire (a `commit` line and a `trace` line each, 10,000 a second in its benchmark).
    /// - Throws: `EncodingError` if a typed plan fails to encode; `out` then holds a partial form.
    package func writeJSON(into out: inout [UInt8]) throws {
        out += #"{"operations":["#.utf8
        for (i, operation) in operations.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            switch operation {
            case .add(let plan, let target):
                out += #"{"op":"add","plan":"#.utf8
                try plan.writeJSON(into: &out)
                out += #","target":"#.utf8
                JSONValue.writeString(target.name, into: &out)
            case .addNamed(let plan, let name, let target):
                out += #"{"name":"#.utf8
                JSONValue.writeString(name, into: &out)
                out += #","op":"addNamed","plan":"#.utf8
                try plan.writeJSON(into: &out)
                out += #","target":"#.utf8
                JSONValue.writeString(target.name, into: &out)
            case .removeNamed(let name, let target):
                out += #"{"name":"#.utf8
                JSONValue.writeString(name, into: &out)
                out += #","op":"removeNamed","target":"#.utf8
                JSONValue.writeString(target.name, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        out += "]}".utf8
    }
}
