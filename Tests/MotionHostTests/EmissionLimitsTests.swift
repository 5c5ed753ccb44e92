import Testing

@testable import MotionHost

@Suite("Counting an emitted transaction's operations before parsing it")
struct EmissionLimitsTests {
    static let threeOperations =
        #"{"operations":[{"op":"removeNamed","target":"t","name":"{{\"{[{"},"#
        + #"{"op":"add","target":"t","plan":{"type":"Emit","transaction":{"operations":[{"op":"add"},{"op":"add"}]}}},"#
        + #"{"op":"removeNamed","target":"t","name":"}]}\\"}]}"#

    func problem(_ json: String, limit: Int) -> String? {
        Array(json.utf8).withUnsafeBytes { EmissionLimits.problem(json: $0, operationLimit: limit) }
    }

    @Test("braces inside strings (even after an escaped quote) and inside nested plans are not operations")
    func countsOnlyTheOperationsArraysObjects() {
        #expect(problem(Self.threeOperations, limit: 3) == nil)
        #expect(
            problem(Self.threeOperations, limit: 2)
                == "the emitted transaction has more than MOTION_EMIT_MAX_OPERATIONS (2) operations; nothing of it was applied. To fix, emit it as several smaller transactions"
        )
    }

    @Test("a transaction of exactly MOTION_EMIT_MAX_BYTES is within the cap; one byte more is not")
    func byteCap() {
        let padding = String(repeating: " ", count: EmissionLimits.maximumBytes - 17)
        #expect(problem(#"{"operations":[]}"# + padding, limit: 1) == nil)
        #expect(
            problem(#"{"operations":[]}"# + padding + " ", limit: 1)?.hasPrefix(
                "the emitted transaction is 1048577 bytes, more than MOTION_EMIT_MAX_BYTES (1048576)") == true)
    }
}
