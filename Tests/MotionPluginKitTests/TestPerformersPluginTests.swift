import CMotionABI
import Testing

/// FixtureTestPerformers: MotionTesting's test performers across the C ABI, loaded with dlopen.
@Suite("Test performers plugin")
struct TestPerformersPluginTests {
    /// The debug log lines that name `target` (each test uses its own target, so parallel tests do not mix).
    func calls(on target: String) -> [String] {
        FakeHost.logLines(containing: "@\(target)").filter { $0.level == MOTION_LOG_DEBUG }.map(\.message)
    }

    @Test("Every call is logged with the in-process call log's strings, the plan JSON as received")
    func callLog() throws {
        let plugin = try #require(try PluginLibrary.open("FixtureTestPerformers").callEntry())
        let context = FakeContext(target: "log-a")
        let performer = try #require(plugin.create("RecordingPerformer", for: context).0)
        #expect(plugin.add(#"{"n":1,"type":"Record"}"#, to: performer).0 == MOTION_OK)
        #expect(plugin.add(#"{"type":"RecordToo"}"#, named: "x", to: performer).0 == MOTION_OK)
        #expect(plugin.removePlan(named: "x", from: performer) == MOTION_OK)
        plugin.destroy(performer)
        #expect(
            calls(on: "log-a") == [
                "create RecordingPerformer@log-a", #"add RecordingPerformer@log-a {"n":1,"type":"Record"}"#,
                #"addNamed RecordingPerformer@log-a x {"type":"RecordToo"}"#, "removeNamed RecordingPerformer@log-a x",
                "destroy RecordingPerformer@log-a",
            ])
    }

    @Test("A plan type of another class is refused with MOTION_ERR_UNKNOWN_PLAN_TYPE, after the add is logged")
    func otherClassPlan() throws {
        let plugin = try #require(try PluginLibrary.open("FixtureTestPerformers").callEntry())
        let context = FakeContext(target: "log-other")
        let performer = try #require(plugin.create("OtherRecordingPerformer", for: context).0)
        defer { plugin.destroy(performer) }
        let (status, text) = plugin.add(#"{"type":"Record"}"#, to: performer)
        #expect(status == MOTION_ERR_UNKNOWN_PLAN_TYPE)
        #expect(text == #"OtherRecordingPerformer does not perform plan type "Record"."#)
        #expect(calls(on: "log-other").last == #"add OtherRecordingPerformer@log-other {"type":"Record"}"#)
    }

    @Test(
        "SetValue sets a number or a vector, and names the missing field like the in-process performer",
        arguments: [
            (#"{"type":"SetValue","property":"opacity","value":0.5}"#, MOTION_OK, [0.5], ""),
            (#"{"type":"SetVector","property":"opacity","value":[1,2.5]}"#, MOTION_OK, [1, 2.5], ""),
            (#"{"type":"SetValue","value":1}"#, MOTION_ERR_INVALID_PLAN, nil, #"SetValue needs a string "property""#),
            (#"{"type":"SetValue","property":"opacity"}"#, MOTION_ERR_INVALID_PLAN, nil, #"needs a numeric "value""#),
        ])
    func setValue(json: String, status: motion_status, value: [Double]?, mention: String) throws {
        let plugin = try #require(try PluginLibrary.open("FixtureTestPerformers").callEntry())
        let context = FakeContext(target: "set-value")
        let performer = try #require(plugin.create("SetValuePerformer", for: context).0)
        defer { plugin.destroy(performer) }
        let (result, text) = plugin.add(json, to: performer)
        #expect(result == status)
        #expect(context.value("opacity") == value)
        if !mention.isEmpty { #expect(text.contains(mention), "\(text)") }
    }

    @Test("Emit emits its transaction as given and fails the add with the host's status and message")
    func emit() throws {
        let plugin = try #require(try PluginLibrary.open("FixtureTestPerformers").callEntry())
        let context = FakeContext(target: "emit")
        let performer = try #require(plugin.create("EmittingPerformer", for: context).0)
        defer { plugin.destroy(performer) }
        let transaction = #"{"operations":[{"op":"add","target":"emit","plan":{"type":"Nowhere"}}]}"#
        #expect(plugin.add(#"{"type":"Emit","transaction":\#(transaction)}"#, to: performer).0 == MOTION_OK)
        #expect(sameJSON(context.emitted, [transaction]))
        context.router.withLock { $0 = addRouter([:]) }
        let (status, text) = plugin.add(#"{"type":"Emit","transaction":\#(transaction)}"#, to: performer)
        #expect(status == MOTION_ERR_UNKNOWN_PLAN_TYPE)
        #expect(text.contains("Nowhere"), "\(text)")
        #expect(plugin.add(#"{"type":"Emit"}"#, to: performer).0 == MOTION_OK)
        #expect(context.emitted.count == 2)
    }

    @Test("HoldTokens takes count tokens and terminates them after N frame updates (0: at once, absent: never)")
    func holdTokens() throws {
        let plugin = try #require(try PluginLibrary.open("FixtureTestPerformers").callEntry())
        let context = FakeContext(target: "tokens")
        let performer = try #require(plugin.create("TokenPerformer", for: context).0)
        #expect(plugin.add(#"{"count":2,"terminateAfterFrames":2,"type":"HoldTokens"}"#, to: performer).0 == MOTION_OK)
        #expect(plugin.add(#"{"count":1,"terminateAfterFrames":0,"type":"HoldTokens"}"#, to: performer).0 == MOTION_OK)
        #expect(plugin.add(#"{"type":"HoldTokens"}"#, to: performer).0 == MOTION_OK)
        #expect(context.activeTokenCount == 3)
        #expect(context.terminatedTokenCount == 1)
        plugin.update(performer, index: 7, time: 0.7, delta: 0.1)
        #expect(context.activeTokenCount == 3)
        plugin.update(performer, index: 8, time: 0.8, delta: 0.1)
        #expect(context.activeTokenCount == 1)
        plugin.update(performer, index: 9, time: 0.9, delta: 0.1)
        #expect(context.activeTokenCount == 1)
        plugin.destroy(performer)
        #expect(
            calls(on: "tokens").filter { $0.hasPrefix("update ") || $0.hasPrefix("destroy ") } == [
                "update TokenPerformer@tokens 7", "update TokenPerformer@tokens 8", "update TokenPerformer@tokens 9",
                "destroy TokenPerformer@tokens",
            ])
    }

    @Test("An unknown class is refused with MOTION_ERR_UNKNOWN_CLASS naming the classes")
    func unknownClass() throws {
        let plugin = try #require(try PluginLibrary.open("FixtureTestPerformers").callEntry())
        let (performer, status, text) = plugin.create("Nope", for: FakeContext(target: "unknown-class"))
        #expect(performer == nil)
        #expect(status == MOTION_ERR_UNKNOWN_CLASS)
        #expect(text.contains(#"no performer class "Nope"; it has RecordingPerformer"#), "\(text)")
    }
}
