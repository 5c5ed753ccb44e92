import Foundation
import MotionCore
import MotionLive
import Testing

/// A small seeded generator (SplitMix64), so a failure reproduces.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Mutates valid inputs of the parsers MotionLive wrote (byte flips, cuts, insertions of JSON's own
/// characters) and checks each outcome: a value, or a 400 whose message starts with a JSON path.
@Suite struct ParserFuzzTests {
    static let alphabet = Array(#"{}[]":,0123456789.-eE truenullfalse\"#.utf8)

    static func mutate(_ seed: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        var bytes = seed
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            guard !bytes.isEmpty else { break }
            let i = Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<4, using: &random) {
            case 0: bytes[i] = alphabet.randomElement(using: &random)!
            case 1: bytes.remove(at: i)
            case 2: bytes.insert(alphabet.randomElement(using: &random)!, at: i)
            default: bytes = Array(bytes[..<i])
            }
        }
        return bytes
    }

    @Test func sensorLoggerPushesParseOrAreRefusedWithAPath() {
        let seed = Array(
            #"{"messageId": 1, "sessionId": "s", "deviceId": "d", "payload": [{"name": "gyroscope", "time": 1679068463216170800, "values": {"x": 0.1, "y": -2, "z": 3e-3}}, {"name": "barometer", "time": 1, "values": {"pressure": 1}}]}"#
                .utf8)
        var random = SplitMix64(state: 13)
        var parsed = 0
        for _ in 0..<20_000 {
            let bytes = Self.mutate(seed, &random)
            do {
                let push = try SensorLoggerPush(parsing: bytes)
                parsed += 1
                #expect(push.samples.count <= 1)
            } catch {
                #expect(error.status == 400)
                #expect(error.message.hasPrefix("$"), "\(String(decoding: bytes, as: UTF8.self)): \(error.message)")
            }
        }
        // Some mutations keep a valid push (a digit changed): both outcomes were exercised.
        #expect(parsed > 0 && parsed < 20_000)
    }

    @Test func timelineMessagesParseOrAreRefusedWithAPath() {
        let seed = Array(#"{"id": [1, "a"], "transaction": {"operations": [{"op": "add", "target": "card"}]}}"#.utf8)
        var random = SplitMix64(state: 7)
        var accepted = 0
        for _ in 0..<20_000 {
            let bytes = Self.mutate(seed, &random)
            let message = TransactionMessage(parsing: bytes)
            // The echoed id is always one JSON value.
            #expect((try? JSONParser.parse(Array(message.id.utf8))) != nil, "\(message.id)")
            switch message.transaction {
            case .success: accepted += 1
            case .failure(let refusal):
                #expect(refusal.status == 400)
                #expect(refusal.message.hasPrefix("$"))
            }
        }
        #expect(accepted > 0 && accepted < 20_000)
    }
}
