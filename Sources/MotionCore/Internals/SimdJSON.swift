import CMotionJSON

/// The only calls into the C shim `CMotionJSON` (simdjson's DOM parser behind plain C functions).
enum SimdJSON {
    /// The deepest nesting of arrays and objects a document may have (`CMotionJSON_MAX_DEPTH`).
    static let maximumDepth = Int(CMotionJSON_MAX_DEPTH)

    /// Parses `bytes` with the calling thread's simdjson parser (`CMotionJSON_parse`) and runs `body`
    /// with the flattened document, whose items (and the strings they point at) live only during `body`.
    /// - Parameter bytes: UTF-8 JSON, not empty (an empty buffer may have no address).
    /// - Returns: `body`'s result, or simdjson's error code (which says what went wrong but not where).
    static func withItems<R, E: Error>(
        of bytes: UnsafeRawBufferPointer, _ body: (UnsafeBufferPointer<CMotionJSON_item>) throws(E) -> R
    ) throws(E) -> Result<R, SimdJSONErrorCode> {
        precondition(!bytes.isEmpty, "SimdJSON.withItems needs at least one byte")
        var items: UnsafePointer<CMotionJSON_item>?
        var count = 0
        let code = CMotionJSON_parse(bytes.baseAddress!.assumingMemoryBound(to: CChar.self), bytes.count, &items, &count)
        guard code == 0, let items else { return .failure(SimdJSONErrorCode(rawValue: code)) }
        return .success(try body(UnsafeBufferPointer(start: items, count: count)))
    }
}

/// A simdjson error code (`simdjson::error_code`).
struct SimdJSONErrorCode: Error, RawRepresentable {
    let rawValue: Int32

    /// simdjson's one-line description (`CMotionJSON_error_message`).
    var message: String { String(cString: CMotionJSON_error_message(rawValue)) }
}

extension CMotionJSON_item {
    /// The string (or key) this item holds (`CMotionJSON_KIND_STRING`): simdjson has validated its UTF-8.
    var string: String {
        let start = UnsafePointer<UInt8>(bitPattern: UInt(payload))
        return String(decoding: UnsafeBufferPointer(start: start, count: Int(count)), as: UTF8.self)
    }

    /// The number this item holds (`CMotionJSON_KIND_NUMBER`).
    var number: Double { Double(bitPattern: payload) }
}
