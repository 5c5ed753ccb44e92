import CMotionABI

/// The caps on one emitted transaction (`motion_host_v1.emit_transaction`), checked before the host
/// parses it: `MOTION_EMIT_MAX_BYTES` of JSON and `MOTION_EMIT_MAX_OPERATIONS` operations. A transaction
/// over either is refused whole with `MOTION_ERR_TOO_LARGE` (ABI 1.2); nothing of it is applied.
///
/// Thread rule: pure functions, any thread.
enum EmissionLimits {
    /// The most bytes of JSON one emitted transaction may have (`MOTION_EMIT_MAX_BYTES`, 1 MiB).
    static let maximumBytes = Int(MOTION_EMIT_MAX_BYTES)
    /// The most operations one emitted transaction may have (`MOTION_EMIT_MAX_OPERATIONS`).
    static let maximumOperations = Int(MOTION_EMIT_MAX_OPERATIONS)

    /// Why `json` is over a cap, or `nil` when it is within both.
    ///
    /// Operations are counted without parsing, in one pass over the bytes that skips strings: the objects
    /// that are direct members of an array that is a direct member of the root object (the
    /// `"operations"` array's elements). The count is exact for a well-formed transaction and at most
    /// the bytes' length for anything else; the scan stops at the first object over the cap.
    /// - Parameters:
    ///   - json: The plugin's buffer, valid during the call.
    ///   - operationLimit: The operation cap (``maximumOperations``; smaller in tests).
    /// - Returns: A one-line message naming the cap and the fix.
    static func problem(json: UnsafeRawBufferPointer, operationLimit: Int = maximumOperations) -> String? {
        if json.count > maximumBytes {
            return
                "the emitted transaction is \(json.count) bytes, more than MOTION_EMIT_MAX_BYTES (\(maximumBytes)); nothing of it was applied. To fix, emit it as several smaller transactions"
        }
        var depth = 0
        var rootIsObject = false
        var firstLevelIsArray = false
        var isInString = false
        var isEscaped = false
        var operations = 0
        for byte in json {
            if isInString {
                if isEscaped {
                    isEscaped = false
                } else if byte == UInt8(ascii: "\\") {
                    isEscaped = true
                } else if byte == UInt8(ascii: "\"") {
                    isInString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                isInString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                if depth == 1 {
                    rootIsObject = byte == UInt8(ascii: "{")
                } else if depth == 2 {
                    firstLevelIsArray = byte == UInt8(ascii: "[")
                } else if depth == 3, byte == UInt8(ascii: "{"), rootIsObject, firstLevelIsArray {
                    operations += 1
                    if operations > operationLimit {
                        return
                            "the emitted transaction has more than MOTION_EMIT_MAX_OPERATIONS (\(operationLimit)) operations; nothing of it was applied. To fix, emit it as several smaller transactions"
                    }
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
            default:
                break
            }
        }
        return nil
    }
}
