import CMotionJSON
import FoundationEssentials

/// Bytes that are not JSON as RFC 8259 defines it, or an object that writes a key twice.
///
/// Thread rule: a value type; safe to use from any thread.
package struct JSONSyntaxError: Error, Sendable, CustomStringConvertible {
    /// The one-line message: `invalid JSON at line L, column C: <reason>`, or `invalid JSON: <reason>`
    /// when there is no position (an empty file).
    package var message: String
    /// The 1-based line of the problem, if known.
    package var line: Int?
    /// The 1-based column of the problem, in Unicode scalars, if known.
    package var column: Int?

    package var description: String { message }
}

/// The one JSON parser of the runtime and the host: simdjson (through the C shim `CMotionJSON`), which
/// reads every number as the nearest double, as written (Foundation's `JSONSerialization` on Linux
/// misreads some 17-digit numbers), and rejects what RFC 8259 does not allow (trailing commas, comments,
/// leading zeros, unescaped control characters, invalid UTF-8). On top of it, a key written twice in
/// one object is an error.
///
/// simdjson says what is wrong but not where: on a failure only, ``JSONSyntax`` scans the bytes to give
/// the line, the column and a reason.
///
/// `CMotionJSON` (with libsimdjson) is MotionCore's one dependency besides Foundation: the module was first
/// planned as "Foundation only", and issue 11 chose a well-kept parser that reads numbers exactly.
package enum JSONParser {
    /// Parses a JSON document (any value at the top level).
    /// - Parameter bytes: UTF-8 JSON.
    /// - Returns: The value; numbers are the nearest `Double` (integers too); object members keep no order.
    /// - Throws: ``JSONSyntaxError`` with line and column: a syntax error, a number out of the range of a
    ///   `Double`, a duplicate key (naming both places), or nesting deeper than 1024 levels. A leading
    ///   byte order mark is skipped.
    package static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONSyntaxError) -> JSONValue {
        guard !bytes.isEmpty else { throw JSONSyntaxError(message: "invalid JSON: the file is empty") }
        // A UTF-8 byte order mark, which RFC 8259 (8.1) lets a parser ignore: editors on Windows add one.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            return try parse(UnsafeRawBufferPointer(rebasing: bytes[3...]))
        }
        let result = try SimdJSON.withItems(of: bytes) { items throws(JSONSyntaxError) -> JSONValue in
            var builder = ValueBuilder(items: items)
            do throws(DuplicateKey) {
                return try builder.value()
            } catch {
                throw duplicateKeyError(error, items: items, in: bytes)
            }
        }
        switch result {
        case .success(let value): return value
        case .failure(let code): throw syntaxError(code, in: bytes)
        }
    }

    /// Parses a JSON document held in `data`. See ``parse(_:)-(UnsafeRawBufferPointer)``.
    package static func parse(_ data: Data) throws(JSONSyntaxError) -> JSONValue {
        // withUnsafeBytes cannot forward a typed throw: carry the result out.
        let result: Result<JSONValue, JSONSyntaxError> = data.withUnsafeBytes { bytes in
            Result { () throws(JSONSyntaxError) -> JSONValue in try parse(bytes) }
        }
        return try result.get()
    }

    /// Parses a JSON document held in `bytes`. See ``parse(_:)-(UnsafeRawBufferPointer)``.
    package static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        let result: Result<JSONValue, JSONSyntaxError> = bytes.withUnsafeBytes { bytes in
            Result { () throws(JSONSyntaxError) -> JSONValue in try parse(bytes) }
        }
        return try result.get()
    }

    /// The error for a document simdjson refused: where the scanner finds the first problem, or
    /// simdjson's own words without a position when the scanner finds none.
    private static func syntaxError(_ code: SimdJSONErrorCode, in bytes: UnsafeRawBufferPointer) -> JSONSyntaxError {
        guard let problem = JSONSyntax.firstError(in: bytes, maximumDepth: SimdJSON.maximumDepth) else {
            var reason = code.message
            if reason.hasSuffix(".") { reason.removeLast() }
            return JSONSyntaxError(message: "invalid JSON: " + reason.prefix(1).lowercased() + reason.dropFirst())
        }
        let (line, column) = JSONSyntax.lineAndColumn(ofByteOffset: problem.offset, in: bytes)
        return JSONSyntaxError(
            message: "invalid JSON at line \(line), column \(column): \(problem.reason)", line: line, column: column)
    }

    /// The error for a key written twice: the second place, with the first.
    private static func duplicateKeyError(
        _ duplicate: DuplicateKey, items: UnsafeBufferPointer<CMotionJSON_item>, in bytes: UnsafeRawBufferPointer
    ) -> JSONSyntaxError {
        // The first member with the same key: walk the object's members, skipping whole values.
        var first = duplicate.member
        var i = duplicate.objectItem + 1
        for member in 0..<duplicate.member {
            if items[i].string == duplicate.key {
                first = member
                break
            }
            i += 1
            let kind = items[i].kind
            i = kind == CMotionJSON_KIND_ARRAY || kind == CMotionJSON_KIND_OBJECT ? Int(items[i].payload) : i + 1
        }
        let offsets = JSONSyntax.keyOffsets(ofObject: duplicate.objectOrdinal, in: bytes)
        let secondOffset = offsets.count > duplicate.member ? offsets[duplicate.member] : 0
        let (line, column) = JSONSyntax.lineAndColumn(ofByteOffset: secondOffset, in: bytes)
        var message = "invalid JSON at line \(line), column \(column): duplicate key \(JSONText.quoted(duplicate.key))"
        if offsets.count > first {
            let (firstLine, firstColumn) = JSONSyntax.lineAndColumn(ofByteOffset: offsets[first], in: bytes)
            message += " (first at line \(firstLine), column \(firstColumn))"
        }
        return JSONSyntaxError(message: message + ". To fix, keep one of them", line: line, column: column)
    }
}

/// A key written twice in one object: which object (counted in document order) and which member.
struct DuplicateKey: Error {
    var key: String
    /// The object's index among all objects of the document, in the order their `{` appear.
    var objectOrdinal: Int
    /// The object's index among the items.
    var objectItem: Int
    /// The index of the second member with this key.
    var member: Int
}

/// Builds a ``JSONValue`` from simdjson's flattened items, refusing duplicate keys (also for the values of
/// the transaction reader in FastDecoding.swift, which starts it at a plan field's item).
struct ValueBuilder {
    let items: UnsafeBufferPointer<CMotionJSON_item>
    var index = 0
    var objects = 0

    mutating func value() throws(DuplicateKey) -> JSONValue {
        let item = items[index]
        index += 1
        switch item.kind {
        case CMotionJSON_KIND_NUMBER: return .number(item.number)
        case CMotionJSON_KIND_STRING: return .string(item.string)
        case CMotionJSON_KIND_TRUE: return .bool(true)
        case CMotionJSON_KIND_FALSE: return .bool(false)
        case CMotionJSON_KIND_ARRAY:
            var elements: [JSONValue] = []
            elements.reserveCapacity(Int(item.count))
            for _ in 0..<item.count { elements.append(try value()) }
            return .array(elements)
        case CMotionJSON_KIND_OBJECT:
            let ordinal = objects
            let objectItem = index - 1
            objects += 1
            var members: [String: JSONValue] = Dictionary(minimumCapacity: Int(item.count))
            for member in 0..<Int(item.count) {
                let key = items[index].string
                index += 1
                if members.updateValue(try value(), forKey: key) != nil {
                    throw DuplicateKey(key: key, objectOrdinal: ordinal, objectItem: objectItem, member: member)
                }
            }
            return .object(members)
        default: return .null
        }
    }
}
