import Foundation
import Testing

@testable import MotionCore

/// SplitMix64 (Steele, Lea and Flood 2014): a seeded generator, so a failing number can be found again.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Finite doubles from random bit patterns (every exponent, subnormals, both signs), after some edge cases.
func randomDoubles(count: Int, seed: UInt64) -> [Double] {
    var numbers: [Double] = [
        0, -0.0, 1, -1, 0.1, 0.30000000000000004, 1.0000000000000002, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
        .leastNormalMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 9_007_199_254_740_992,
        9_007_199_254_740_994, 1e15, 1e16, 1e22, 1e23, Double("2.2250738585072011e-308")!,
    ]
    var generator = SplitMix64(seed: seed)
    while numbers.count < count {
        let x = Double(bitPattern: generator.next())
        if x.isFinite { numbers.append(x) }
    }
    return numbers
}

/// The numbers as the plan fields of transactions (a plan of 500 numbers each), as the runtime writes plans.
func transactionJSON(carrying numbers: ArraySlice<Double>) throws -> Data {
    let plan = Plan(type: "Record", fields: ["values": .array(numbers.map { .number($0) })])
    var bytes = Array(#"{"operations":[{"op":"add","target":"a","plan":"#.utf8)
    try plan.writeJSON(into: &bytes)
    bytes += Array("}]}".utf8)
    return Data(bytes)
}

@Suite("JSON numbers as written")
struct JSONNumberTests {
    @Test(arguments: ["0.30000000000000004", "1.0000000000000002", "2.2250738585072014e-308", "9007199254740993", "-0.0"])
    func numberInATransactionIsReadAsWritten(literal: String) throws {
        let json = #"{"operations": [{"op": "add", "target": "a", "plan": {"type": "Record", "x": \#(literal)}}]}"#
        let transaction = try Transaction(jsonData: Data(json.utf8))
        let read = try #require(transaction.operations.first?.plan?["x"]?.number)
        let expected = try #require(Double(literal))
        #expect(read.bitPattern == expected.bitPattern, "\(literal) read as \(read)")
    }

    @Test func randomDoublesRoundTripBitForBitThroughWriteAndRead() throws {
        let numbers = randomDoubles(count: 20_000, seed: 11)
        var wrong: [String] = []
        for start in stride(from: 0, to: numbers.count, by: 500) {
            let slice = numbers[start..<min(start + 500, numbers.count)]
            let transaction = try Transaction(jsonData: transactionJSON(carrying: slice))
            let read = try #require(transaction.operations.first?.plan?["values"]?.array)
            try #require(read.count == slice.count)
            for (x, value) in zip(slice, read) where value.number?.bitPattern != x.bitPattern {
                wrong.append("\(x) read as \(value.number.map { "\($0)" } ?? "\(value)")")
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) of \(numbers.count) numbers changed, e.g. \(wrong.prefix(5))")
    }

    @Test func writtenNumbersAreTheShortestThatReadBack() throws {
        var longer: [String] = []
        for x in randomDoubles(count: 5_000, seed: 12) {
            let text = JSONText.number(x)
            try #require(Double(text)?.bitPattern == x.bitPattern, "\(text) does not read back as \(x)")
            // Significant digits: the mantissa's digits without leading and trailing zeros.
            let mantissa = text.prefix { $0 != "e" && $0 != "E" }.filter(\.isNumber)
            let digits = mantissa.drop { $0 == "0" }.reversed().drop { $0 == "0" }.count
            guard digits > 1 else { continue }
            // The nearest number of one digit fewer (glibc's printf rounds exactly) must not read back.
            let shorter = String(format: "%.\(digits - 2)e", x)
            if Double(shorter)?.bitPattern == x.bitPattern { longer.append("\(text) (\(shorter) reads back too)") }
        }
        #expect(longer.isEmpty, "\(longer.prefix(5))")
    }

    @Test func negativeZeroIsWrittenWithItsSign() throws {
        #expect(JSONText.number(-0.0) == "-0.0")
        #expect(JSONText.number(0) == "0")
        let read = try #require(try Transaction(jsonData: transactionJSON(carrying: [-0.0])).operations.first?.plan?["values"])
        #expect(read.array?.first?.number?.sign == .minus)
    }
}
