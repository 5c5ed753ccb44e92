import Foundation
import MotionCore
import MotionTesting
import Testing

struct Nudge: PlanValue, Equatable {
    static let planType = "Record"
    var by: Double
}

@Suite("Plans and copying")
struct PlanAndTransactionTests {
    @Test func performerAndTracerReceiveACopyOfATypedPlan() throws {  // R1
        let h = Harness()
        var nudge = Nudge(by: 1)
        var transaction = Transaction()
        transaction.add(nudge, to: "a")
        nudge.by = 99
        try h.scheduler.commit(transaction)
        let performer = try #require(h.scheduler.performer(forTarget: "a", className: "RecordingPerformer") as? RecordingPerformer)
        #expect(try performer.plans.first?.decode(Nudge.self) == Nudge(by: 1))
        guard case .planAdded(let traced, _) = h.tracer.events.last else {
            Issue.record("no add trace")
            return
        }
        #expect(traced["by"] == .number(1))
    }

    @Test func transactionRecordsCopies() throws {  // R2
        let h = Harness()
        var p = plan("Record", ["n": 1])
        var transaction = Transaction()
        transaction.add(p, to: "a")
        p = plan("Record", ["n": 2])
        try h.scheduler.commit(transaction)
        #expect(h.calls.contains(#"add RecordingPerformer@a {"n":1,"type":"Record"}"#))
        #expect(!h.calls.contains(#"add RecordingPerformer@a {"n":2,"type":"Record"}"#))
        _ = p
    }

    @Test func commitIsSynchronous() throws {  // R3
        let h = Harness()
        try h.commit { $0.add(plan("SetValue", ["property": "opacity", "value": 0.5]), to: "a") }
        #expect(h.scene.target("a")?["opacity"] == 0.5)
    }

    @Test func operationsApplyInRecordedOrderAcrossTargets() throws {  // R4
        let h = Harness()
        try h.commit {
            $0.add(plan("Record", ["n": 1]), to: "a")
            $0.add(plan("Record", ["n": 2]), to: "b")
            $0.add(plan("Record", ["n": 3]), to: "a")
        }
        #expect(
            h.log.entries(startingWith: "add ") == [
                #"add RecordingPerformer@a {"n":1,"type":"Record"}"#,
                #"add RecordingPerformer@b {"n":2,"type":"Record"}"#,
                #"add RecordingPerformer@a {"n":3,"type":"Record"}"#,
            ])
    }

    @Test func transactionRoundTripsThroughJSON() throws {
        var transaction = Transaction()
        transaction.add(plan("Tween", ["to": [1, 2], "duration": 0.5, "timing": "easeIn"]), to: "card")
        transaction.add(plan("Draggable"), named: "drag", to: "card")
        transaction.removePlan(named: "drag", from: "card")
        let decoded = try Transaction(jsonData: transaction.jsonData())
        #expect(decoded == transaction)
        #expect(decoded.operations.count == 3)
    }

    @Test func fastAndCodableDecodingAgree() throws {
        let json = #"""
            {"operations": [
              {"op": "add", "target": "a", "plan": {"type": "T", "b": true, "f": false, "n": null, "one": 1, "x": 1.5,
                "v": [0, -2.25, 1e3], "o": {"s": "é\n", "k": [true, {"z": 0}]}}},
              {"op": "addNamed", "target": "b", "name": "x", "plan": {"type": "U"}},
              {"op": "removeNamed", "target": "b", "name": "x"}]}
            """#
        let data = Data(json.utf8)
        let fast = try Transaction(jsonData: data)
        let codable = try JSONDecoder().decode(Transaction.self, from: data)
        #expect(fast == codable)
        #expect(fast.operations.first?.plan?["b"] == .bool(true))
        #expect(fast.operations.first?.plan?["one"] == .number(1))
        #expect(fast.operations.first?.plan?["o"]?.object?["s"] == .string("é\n"))
    }

    @Test func aPlanCompletedWithDefaultsReadsAsTheFilledInPlan() throws {
        // A manifest's defaults ride beside the given fields instead of in a copy of them.
        let defaults = PlanDefaults([(key: "duration", value: 0.3), (key: "timing", value: "easeInOut")])
        let plan = Plan(type: "Tween", fields: ["property": "x", "to": [1]], defaults: defaults)
        let filled = Plan(type: "Tween", fields: ["property": "x", "to": [1], "duration": 0.3, "timing": "easeInOut"])
        #expect(plan.fields == filled.fields)
        #expect(plan == filled)
        #expect(plan["duration"] == 0.3)
        #expect(plan["property"] == "x")
        #expect(plan["delay"] == nil)
        #expect(plan.fieldParts.given == ["property": "x", "to": [1]])
        #expect(plan.fieldParts.defaults.map(\.key) == ["duration", "timing"])
        let json = try #require(String(data: plan.jsonData(), encoding: .utf8))
        #expect(json == #"{"duration":0.3,"property":"x","timing":"easeInOut","to":[1],"type":"Tween"}"#)
        #expect(try JSONDecoder().decode(Plan.self, from: plan.jsonData()) == filled)
    }

    @Test func typedPlanEncodesWithItsType() throws {
        let json = try #require(String(data: Plan(Nudge(by: 2)).jsonData(), encoding: .utf8))
        #expect(json == #"{"by":2,"type":"Record"}"#)
    }

    @Test(arguments: [
        (#"{"operations": [{"op": "add", "target": "a", "plan": {"n": 1}}]}"#, "$.operations[0].plan.type: missing"),
        (#"{"operations": [{"op": "add", "target": "a", "plan": {"type": 3}}]}"#, "$.operations[0].plan.type"),
        (#"{"operations": [{"op": "move", "target": "a"}]}"#, "Unknown operation \"move\""),
        (#"{"operations": [{"op": "add", "plan": {"type": "Record"}}]}"#, "$.operations[0].target: missing"),
        (#"{"operations": [{"op": "add", "target": "a", "plan": {"type": "Record"}"#, "$: "),
    ])
    func badTransactionJSONIsRejectedWithItsPath(json: String, expected: String) {
        let h = Harness()
        #expect {
            try h.scheduler.commit(jsonData: Array(json.utf8))
        } throws: { error in
            guard let error = error as? CommitError else { return false }
            return error.code == .invalidTransaction && error.message.contains(expected)
        }
        #expect(h.calls.isEmpty)
    }
}
