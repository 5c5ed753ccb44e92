import CMotionABI
import Foundation
import Testing

/// MotionPluginKit's plans by handle (ABI 1.4, motion/plans.h), through the PlanProbe fixture and the fake host's
/// `motion.plans/1`: a `PlanFieldReading` type is read in one host call, any other type (and any field a reader
/// cannot take) is decoded from the host's JSON, and either way a plan means, and fails, as it does by JSON.
@Suite("Plans by handle in MotionPluginKit", .serialized)
struct PlansByHandleTests {
    let plugin: Plugin

    init() throws {
        plugin = try #require(try PluginLibrary.open("FixturePlanProbe").callEntry())
    }

    /// Adds `json` to a fresh performer of `className`, by handle or as JSON; returns the status, message and
    /// the plan as the performer understood it (emitted back to probe-echo).
    func add(_ json: String, to className: String, byHandle: Bool) throws -> (motion_status, String, String?) {
        let context = FakeContext(target: "probe")
        let (created, _, _) = plugin.create(className, for: context)
        let performer = try #require(created)
        defer { plugin.destroy(performer) }
        let (status, text) = byHandle ? plugin.add(byHandle: json, to: performer) : plugin.add(asWritten: json, to: performer)
        let plan = context.emitted.first.flatMap { operations(of: $0).first?["plan"] }.map(canonical)
        return (status, text, plan)
    }

    /// A JSON value's text with sorted keys, to compare plans.
    func canonical(_ value: Any) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]), as: UTF8.self)
    }

    @Test func anSDKPluginOffersPlanHandlesToAHostThatReadsThem() throws {
        let handles = try #require(plugin.planHandles)
        #expect(Int(handles.pointee.struct_size) == MemoryLayout<motion_plan_handles_v1>.size)
        #expect(handles.pointee.add_plan != nil && handles.pointee.add_named_plan != nil)
    }

    @Test(arguments: [
        #"{"type":"ReadingProbe","text":"t é","number":-1.5,"flag":true,"vector":[1,2,3]}"#,
        #"{"type":"ReadingProbe","text":"","number":0,"flag":false,"vector":[],"optional":[0.25]}"#,
        #"{"type":"ReadingProbe","text":"t","number":2,"flag":true,"vector":[1],"optional":null}"#,
        // More than 4 numbers: the reader cannot take it, and the plan is decoded from the host's JSON.
        #"{"type":"ReadingProbe","text":"t","number":2,"flag":true,"vector":[1,2,3,4,5,6]}"#,
    ])
    func aReaderPlanMeansByHandleWhatItMeansAsJSON(json: String) throws {
        let jsonCalls = FakePlans.jsonCalls.load(ordering: .relaxed)
        let byHandle = try add(json, to: "ReadingProbePerformer", byHandle: true)
        let asJSON = try add(json, to: "ReadingProbePerformer", byHandle: false)
        #expect(byHandle.0 == MOTION_OK, "\(byHandle.1)")
        #expect(byHandle.2 != nil && byHandle.2 == asJSON.2)
        // Only the long vector needed the JSON.
        #expect(FakePlans.jsonCalls.load(ordering: .relaxed) - jsonCalls == (json.contains("4,5,6") ? 1 : 0))
    }

    /// The SDK makes a string field's `String` once while its bytes repeat (`PlanLayout.keptString`, for the thread
    /// that read the class's first plan): a change of bytes, of length, past 16 bytes or onto another thread is still
    /// read as given, by handle as by JSON.
    @Test func aStringReadByHandleFollowsEveryChangeOfItsBytes() throws {
        let texts = [
            "x", "x", "y", "ab", "ac", "ac", "", "", "0123456789abcdef", "0123456789abcdeg", "0123456789abcdefg",
            "0123456789abcdefh", "é", "e\u{301}", "\u{1F600}", "x",
        ]
        // The suite's plugin is used on one thread at a time here (the other thread runs while this one waits).
        nonisolated(unsafe) let suite = self
        @Sendable func check(_ texts: [String]) throws -> [String] {
            try texts.map { text in
                let json = suite.canonical(["type": "ReadingProbe", "text": text, "number": 1, "flag": true, "vector": []] as [String: Any])
                let (status, message, plan) = try suite.add(json, to: "ReadingProbePerformer", byHandle: true)
                #expect(status == MOTION_OK, "\(message)")
                let echoed = try #require(plan.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
                return try #require(echoed["text"] as? String)
            }
        }
        #expect(try check(texts) == texts)
        // On another thread, which makes its own strings.
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var elsewhere: Result<[String], any Error> = .success([])
        let thread = Thread {
            elsewhere = Result { try check(texts.reversed()) }
            done.signal()
        }
        thread.start()
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(try elsewhere.get() == texts.reversed())
    }

    @Test(arguments: [
        (#"{"type":"ReadingProbe","text":7,"number":1,"flag":true,"vector":[]}"#, "text: expected String, found a number."),
        (#"{"type":"ReadingProbe","text":"t","flag":true,"vector":[]}"#, "number"),
        (#"{"type":"ReadingProbe","text":"t","number":1,"flag":true,"vector":[1,"two"]}"#, "vector[1]"),
        (#"{"type":"ReadingProbe","text":"refuse","number":1,"flag":true,"vector":[]}"#, "text: is \"refuse\""),
    ])
    func aBadReaderPlanFailsByHandleAsItFailsAsJSON(json: String, mention: String) throws {
        let byHandle = try add(json, to: "ReadingProbePerformer", byHandle: true)
        let asJSON = try add(json, to: "ReadingProbePerformer", byHandle: false)
        #expect(byHandle.0 == MOTION_ERR_INVALID_PLAN && asJSON.0 == MOTION_ERR_INVALID_PLAN)
        #expect(byHandle.1 == asJSON.1)
        #expect(byHandle.1.contains(mention), "message: \(byHandle.1)")
        #expect(byHandle.2 == nil)
    }

    @Test func aPlanTypeWithoutAReaderIsDecodedFromTheHostsJSON() throws {
        let json = #"{"type":"Probe",\#(probeBase),"nested":{"name":"n","values":[1,2]},"small":3}"#
        let jsonCalls = FakePlans.jsonCalls.load(ordering: .relaxed)
        let byHandle = try add(json, to: "ProbePerformer", byHandle: true)
        let asJSON = try add(json, to: "ProbePerformer", byHandle: false)
        #expect(byHandle.0 == MOTION_OK, "\(byHandle.1)")
        #expect(byHandle.2 != nil && byHandle.2 == asJSON.2)
        #expect(FakePlans.jsonCalls.load(ordering: .relaxed) - jsonCalls == 1)
        // And a type the class does not perform is refused naming the ones it does, as by JSON.
        let unknown = try add(#"{"type":"Prob"}"#, to: "ProbePerformer", byHandle: true)
        #expect(unknown.0 == MOTION_ERR_UNKNOWN_PLAN_TYPE && unknown.1.contains("performs Probe"))
    }
}
