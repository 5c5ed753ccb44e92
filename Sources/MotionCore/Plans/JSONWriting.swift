import Foundation

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

    package static func writeNumber(_ n: Double, into out: inout [UInt8]) {
        guard n.isFinite else {
            out.append(contentsOf: "null".utf8)
            return
        }
        if n == 0, n.sign == .minus {
            // "-0" reads back as the integer 0: keep the sign with a fraction.
            out.append(contentsOf: "-0.0".utf8)
        } else if n == n.rounded(), abs(n) < 9_007_199_254_740_992 {
            out.append(contentsOf: String(Int64(n)).utf8)
        } else {
            // Swift's description: the fewest significant digits that round-trip, as valid JSON.
            out.append(contentsOf: n.description.utf8)
        }
    }

    package static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most names and values need no escaping: copy them whole.
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out.append(contentsOf: s.utf8)
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

extension Plan {
    /// Appends the plan's JSON form `{"type": ..., ...fields}` (keys sorted) to `out`.
    /// - Throws: `EncodingError` if a typed value fails to encode.
    public func writeJSON(into out: inout [UInt8]) throws {
        let fields: [String: JSONValue]
        switch payload {
        case .fields(let f): fields = f
        case .typed(let value): fields = try Plan.encodeFields(value)
        }
        // The members plus "type", sorted, without copying the plan's dictionary to add "type" to it.
        var members: [(key: String, value: JSONValue)] = []
        members.reserveCapacity(fields.count + 1)
        members.append((key: "type", value: .string(type)))
        for member in fields where member.key != "type" { members.append(member) }
        members.sort { $0.key < $1.key }
        JSONValue.writeObject(members, into: &out)
    }
}
