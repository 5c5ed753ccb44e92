import CMotionJSON
import FoundationEssentials
import Glibc

/// A JSON document as simdjson parsed it: a flat list of items in document order (a container before what
/// it holds), addressed by index, for a reader of a known format that checks a document straight from the
/// parse, with no ``JSONValue`` tree and no dictionary per object (the manifest reader of discovery).
///
/// Such a reader is a fast path only: ``withParsed(_:_:)`` gives nothing for a document that is not JSON or
/// starts with a byte order mark, the view says nothing about where a problem is, and a reader returns `nil`
/// at anything it does not expect, so that the caller reads the document again with ``JSONParser`` and a
/// ``JSONDocumentReader`` for the error (or the unusual case). A key written twice is seen by
/// ``members(ofObject:keys:)`` and ``value(at:)``; simdjson has already refused everything else RFC 8259
/// does not allow.
///
/// Thread rule: valid only inside the body of ``withParsed(_:_:)``, on its thread.
package struct JSONItems {
    private let items: UnsafeBufferPointer<CMotionJSON_item>

    private init(_ items: UnsafeBufferPointer<CMotionJSON_item>) {
        self.items = items
    }

    /// Parses `bytes` with simdjson (``SimdJSON/withItems(of:_:)``) and runs `body` with the items.
    /// - Parameters:
    ///   - bytes: UTF-8 JSON.
    ///   - body: Reads the document; must not keep the view (its items live only during the call).
    /// - Returns: `body`'s result; `nil` when `bytes` is empty, starts with a UTF-8 byte order mark (which
    ///   ``JSONParser`` skips), or is not JSON.
    package static func withParsed<R>(_ bytes: UnsafeRawBufferPointer, _ body: (JSONItems) -> R?) -> R? {
        guard !bytes.isEmpty, !bytes.starts(with: [0xEF, 0xBB, 0xBF]) else { return nil }
        guard case .success(let result) = SimdJSON.withItems(of: bytes, { items in body(JSONItems(items)) }) else {
            return nil
        }
        return result
    }

    /// The index of the top-level value.
    package var root: Int { 0 }

    /// Whether item `i` is an object.
    package func isObject(_ i: Int) -> Bool { items[i].kind == CMotionJSON_KIND_OBJECT }

    /// Whether item `i` is an array.
    package func isArray(_ i: Int) -> Bool { items[i].kind == CMotionJSON_KIND_ARRAY }

    /// The number of elements of the array at `i` (0 for any other item).
    package func elementCount(_ i: Int) -> Int { isArray(i) ? Int(items[i].count) : 0 }

    /// The index of the item after the value at `i` (after all it holds).
    package func end(_ i: Int) -> Int {
        let item = items[i]
        return item.kind == CMotionJSON_KIND_ARRAY || item.kind == CMotionJSON_KIND_OBJECT ? Int(item.payload) : i + 1
    }

    /// The indexes of the elements of the array at `i`, in order (none when it is not an array).
    package func elements(_ i: Int) -> Elements { Elements(items: self, position: i + 1, remaining: elementCount(i)) }

    /// The indexes of an array's elements, found as they are read (no array of them is made).
    package struct Elements: Sequence, IteratorProtocol {
        let items: JSONItems
        var position: Int
        var remaining: Int

        package mutating func next() -> Int? {
            guard remaining > 0 else { return nil }
            remaining -= 1
            defer { position = items.end(position) }
            return position
        }
    }

    /// The string at `i`, or `nil` when it is not a string.
    package func string(_ i: Int) -> String? { items[i].kind == CMotionJSON_KIND_STRING ? items[i].string : nil }

    /// Runs `body` with the UTF-8 bytes of the string at `i` (validated by simdjson); `nil` when it is not a
    /// string.
    package func withUTF8<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        let item = items[i]
        guard item.kind == CMotionJSON_KIND_STRING else { return nil }
        return body(UnsafeBufferPointer(start: UnsafePointer<UInt8>(bitPattern: UInt(item.payload)), count: Int(item.count)))
    }

    /// The number at `i` (the nearest `Double`, integers too), or `nil` when it is not a number.
    package func number(_ i: Int) -> Double? { items[i].kind == CMotionJSON_KIND_NUMBER ? items[i].number : nil }

    /// `true` or `false` at `i`, or `nil` when it is neither.
    package func bool(_ i: Int) -> Bool? {
        switch items[i].kind {
        case CMotionJSON_KIND_TRUE: true
        case CMotionJSON_KIND_FALSE: false
        default: nil
        }
    }

    /// The value at `i` as a ``JSONValue`` (as ``JSONParser`` builds it), or `nil` when an object in it
    /// writes a key twice.
    package func value(at i: Int) -> JSONValue? {
        var builder = ValueBuilder(items: items, index: i)
        do throws(DuplicateKey) {
            return try builder.value()
        } catch {
            return nil
        }
    }

    /// Where each of `keys` has its value in the object at `i`: element `k` is the index of the value of
    /// `keys[k]`, or -1 when the object does not have it.
    /// - Parameters:
    ///   - i: An item.
    ///   - keys: The keys the format allows in this object (ASCII, at most 16).
    /// - Returns: `nil` when item `i` is not an object, or the object has a key not in `keys` or one key
    ///   twice.
    package func members(ofObject i: Int, keys: [StaticString]) -> SIMD16<Int32>? {
        precondition(keys.count <= 16, "JSONItems.members reads at most 16 keys")
        guard isObject(i) else { return nil }
        var found = SIMD16<Int32>(repeating: -1)
        var j = i + 1
        for _ in 0..<items[i].count {
            guard let k = Self.index(ofKey: items[j], in: keys), found[k] < 0 else { return nil }
            found[k] = Int32(j + 1)
            j = end(j + 1)
        }
        return found
    }

    /// Which of `keys` the string item `key` holds, compared byte for byte (length and first byte first).
    private static func index(ofKey key: CMotionJSON_item, in keys: [StaticString]) -> Int? {
        guard key.kind == CMotionJSON_KIND_STRING, key.count > 0,
            let bytes = UnsafePointer<UInt8>(bitPattern: UInt(key.payload))
        else { return nil }
        let count = Int(key.count)
        for k in keys.indices {
            let literal = keys[k]
            guard literal.utf8CodeUnitCount == count, literal.utf8Start[0] == bytes[0] else { continue }
            if memcmp(bytes, literal.utf8Start, count) == 0 { return k }
        }
        return nil
    }
}

extension CMotionJSON_item {
    /// Whether this is a string item holding exactly `literal` (ASCII), compared byte for byte.
    func `is`(_ literal: StaticString) -> Bool {
        guard kind == CMotionJSON_KIND_STRING, Int(count) == literal.utf8CodeUnitCount,
            let start = UnsafeRawPointer(bitPattern: UInt(payload))
        else { return false }
        return memcmp(start, literal.utf8Start, Int(count)) == 0
    }
}
