import Foundation
import Testing

@testable import MotionCore

/// `Transaction(jsonData:)` reads the usual transaction straight from simdjson's items and leaves anything
/// else to the parsed `JSONValue`: the two must build the same transaction, and every error must still come
/// from the parsed value.
@Suite("Transactions read from the parser's items")
struct TransactionItemReaderTests {
    /// The transaction the parsed-value reader builds (the reference).
    private func throughParsedValue(_ json: String) throws -> Transaction {
        try Transaction(json: JSONParser.parse(Data(json.utf8)))
    }

    private func throughItems(_ json: String) -> Transaction? {
        Data(json.utf8).withUnsafeBytes { Transaction.fastDecoded($0) }
    }

    @Test(arguments: [
        #"{"operations": []}"#,
        #"{"operations": [{"op": "add", "target": "card", "plan": {"type": "Tween", "property": "opacity", "to": [1], "duration": 0.5}}]}"#,
        #"{"operations": [{"plan": {"duration": 0.3, "type": "FadeIn"}, "target": "card", "op": "add"}]}"#,
        #"{"operations": [{"op": "addNamed", "target": "a", "name": "drag", "plan": {"type": "Draggable"}}, {"op": "removeNamed", "target": "a", "name": "drag"}]}"#,
        #"{"operations": [{"op": "add", "target": "t\u00e9 \"q\"", "plan": {"type": "Record", "nested": {"a": [1, -0.0, 1e-05, true, false, null, "s"], "b": {}}, "n": 0.30000000000000004}}]}"#,
    ])
    func aUsualTransactionReadsTheSameFromTheItemsAsFromTheParsedValue(json: String) throws {
        let fast = try #require(throughItems(json), "the item reader left a usual transaction to the parsed value")
        #expect(fast == (try throughParsedValue(json)))
        #expect(try Transaction(jsonData: Data(json.utf8)) == fast)
    }

    @Test func aNumberReadFromTheItemsKeepsEveryBit() throws {
        let json = #"{"operations": [{"op": "add", "target": "a", "plan": {"type": "Record", "x": -0.0, "y": 2.2250738585072014e-308}}]}"#
        let plan = try #require(throughItems(json)?.operations.first?.plan)
        #expect(plan["x"]?.number?.bitPattern == (-0.0).bitPattern)
        #expect(plan["y"]?.number == 2.2250738585072014e-308)
    }

    /// Shapes the item reader leaves alone: the parsed value reads them, or refuses them with its message.
    @Test(
        arguments: [
            (#"{"operations": [], "extra": 1}"#, nil),
            (#"{"operations": [{"op": "add", "target": "a", "plan": {"type": "A"}, "comment": "x"}]}"#, nil),
            (#"{"operations": [{"op": "add", "target": "a", "name": "n", "plan": {"type": "A"}}]}"#, nil),
            (
                #"{"operations": [{"op": "add", "target": "a", "plan": {"type": "A", "x": 1, "x": 2}}]}"#,
                #"$: invalid JSON at line 1, column 76: duplicate key "x" (first at line 1, column 68). To fix, keep one of them"#
            ),
            (
                #"{"operations": [{"op": "add", "op": "add", "target": "a", "plan": {"type": "A"}}]}"#,
                #"$: invalid JSON at line 1, column 31: duplicate key "op" (first at line 1, column 18). To fix, keep one of them"#
            ),
            (
                #"{"operations": [{"op": "add", "target": "a", "plan": {"type": "A", "o": {"k": 1, "k": 2}}}]}"#,
                #"$: invalid JSON at line 1, column 82: duplicate key "k" (first at line 1, column 74). To fix, keep one of them"#
            ),
            (
                #"{"operations": [{"op": "add", "target": "a", "plan": {"type": ""}}]}"#,
                #"$.operations[0].plan.type: A plan's "type" must be a non-empty string, not ""."#
            ),
            (
                #"{"operations": [{"op": "add", "target": "a"}]}"#, "$.operations[0].plan: missing; this operation needs a plan"
            ),
            (
                #"{"operations": [{"op": "move", "target": "a", "plan": {"type": "A"}}]}"#,
                #"$.operations[0].op: Unknown operation "move": expected "add", "addNamed" or "removeNamed"."#
            ),
            (
                #"{"operations": [{"op": "add", "target": 3, "plan": {"type": "A"}}]}"#,
                "$.operations[0].target: expected a target name (a string), found 3"
            ),
        ] as [(String, String?)])
    func unusualTransactionsAreLeftToTheParsedValue(json: String, message: String?) throws {
        #expect(throughItems(json) == nil)
        if let message {
            #expect(throws: CommitError.self) { try Transaction(jsonData: Data(json.utf8)) }
            do {
                _ = try Transaction(jsonData: Data(json.utf8))
            } catch {
                #expect(error.message == message)
            }
        } else {
            #expect(try Transaction(jsonData: Data(json.utf8)) == (try throughParsedValue(json)))
        }
    }

    @Test func aByteOrderMarkIsLeftToTheParsedValue() throws {
        let json = Data([0xEF, 0xBB, 0xBF] + Array(#"{"operations": []}"#.utf8))
        #expect(json.withUnsafeBytes { Transaction.fastDecoded($0) } == nil)
        #expect(try Transaction(jsonData: json).operations.isEmpty)
    }
}
