import CMotionABI
import Foundation
import Testing

/// The required fields of a `Probe`, to splice into test plans.
let probeBase = #""text":"t","number":1,"integer":2,"flag":true,"vector":[]"#

/// Malformed plans and what their error message must mention.
let malformedPlans: [(String, String)] = [
    (#"{"type":"Probe","#, "not valid JSON"),
    (#"{"type":"Probe"} x"#, "not valid JSON"),
    (#"{"type":"Probe","number":01}"#, "not valid JSON"),
    (#"{"type":"Probe","number":1.}"#, "not valid JSON"),
    (#"{"type":"Probe","number":-}"#, "not valid JSON"),
    (#"{"type":"Probe","number":1e999}"#, "not valid JSON"),
    (#"{"type":"Probe","text":"a\x"}"#, "not valid JSON"),
    (#"{"type":"Probe","text":"\ud800"}"#, "not valid JSON"),
    ("{\"type\":\"Probe\",\"text\":\"a\u{01}\"}", "not valid JSON"),
    (#"{"type":"Probe","text":"open}"#, "not valid JSON"),
    (#"{"type":"Probe",'text':1}"#, "not valid JSON"),
    (#"{"type":"Probe","flag":tru}"#, "not valid JSON"),
    (#"{"type":"Probe""# + String(repeating: "[", count: 300), "not valid JSON"),
    (#"{"type":"Probe","nested":"# + String(repeating: "[", count: 300), "not valid JSON"),
    (#"{"type":"Probe","integer":1.5,"text":"t","number":1,"flag":true,"vector":[]}"#, "integer"),
    (#"{"type":"Probe","integer":1,"text":7,"number":1,"flag":true,"vector":[]}"#, "text: expected String, found a number."),
    (#"{"type":"Probe","integer":1,"text":"t","number":1,"flag":true}"#, "vector"),
    (#"{"type":"Probe",\#(probeBase),"nested":{"name":"n","values":[1,"two"]}}"#, "nested.values[1]"),
    (#"{"type":"Probe",\#(probeBase),"small":256}"#, "small"),
    (#"{"type":"Probe",\#(probeBase),"vector":[1,null]}"#, "vector[1]"),
    (#"{"text":"t"}"#, "type"),
    (#"{"type":7}"#, "type"),
    ("[1,2]", "plan object"),
    ("", "plan"),
]

/// MotionPluginKit's plan JSON parser and decoder, through the PlanProbe fixture plugin: it decodes a
/// `Probe` plan and emits it back re-encoded, so each case shows what the SDK understood.
@Suite("Plan JSON decoding in MotionPluginKit")
struct PlanDecodingTests {
    let plugin: Plugin

    init() throws {
        plugin = try #require(try PluginLibrary.open("FixturePlanProbe").callEntry())
    }

    /// Adds `json` to a fresh Probe performer; returns the status, message and the decoded plan.
    func probe(_ json: String) throws -> (motion_status, String, [String: Any]?) {
        let context = FakeContext(target: "probe")
        let (created, _, _) = plugin.create("ProbePerformer", for: context)
        let performer = try #require(created)
        defer { plugin.destroy(performer) }
        let (status, text) = plugin.add(json, to: performer)
        let plan = context.emitted.first.flatMap { operations(of: $0).first?["plan"] as? [String: Any] }
        return (status, text, plan)
    }

    @Test("Every field kind decodes, with escapes, surrogate pairs, exponents and whitespace")
    func fieldKinds() throws {
        let json = """
             { "type" : "Probe" ,
              "text":"a\\n\\"q\\" \\u00e9 \\ud83d\\ude00 \\/ \\\\ é",
              "number": -1.25e2, "integer": -9007199254740991, "flag": false,
              "vector": [0, 0.5, 1E-3, 12345678901234567890],
              "nested": {"name": "n", "values": [1, 2, 3], "ignored": {"deep": [null, true]}},
              "optional": null, "small": 255, "ratio": 0.25, "unknown": "is ignored" }\t\r
            """
        let (status, message, plan) = try probe(json)
        #expect(status == MOTION_OK, "\(message)")
        let decoded = try #require(plan)
        #expect(decoded["type"] as? String == "Probe")
        #expect(decoded["text"] as? String == "a\n\"q\" é 😀 / \\ é")
        #expect(decoded["number"] as? Double == -125)
        #expect((decoded["integer"] as? NSNumber)?.int64Value == -9_007_199_254_740_991)
        #expect(decoded["flag"] as? Bool == false)
        #expect(decoded["vector"] as? [Double] == [0, 0.5, 0.001, 12_345_678_901_234_567_168])
        let nested = try #require(decoded["nested"] as? [String: Any])
        #expect(nested["name"] as? String == "n" && nested["values"] as? [Int] == [1, 2, 3])
        #expect(decoded["optional"] == nil)
        #expect(decoded["small"] as? Int == 255)
        #expect(decoded["ratio"] as? Double == 0.25)
    }

    @Test("A repeated key takes its last value")
    func repeatedKey() throws {
        let (status, _, plan) = try probe(#"{"type":"Probe",\#(probeBase),"number":3,"number":4}"#)
        #expect(status == MOTION_OK)
        #expect(plan?["number"] as? Double == 4)
    }

    @Test(
        "Malformed JSON and mistyped fields fail as MOTION_ERR_INVALID_PLAN naming the place", arguments: malformedPlans
    )
    func malformed(json: String, mention: String) throws {
        let (status, message, plan) = try probe(json)
        if json.isEmpty {
            #expect(status == MOTION_ERR_INVALID_ARGUMENT)  // a zero-length plan never reaches the decoder
        } else {
            #expect(status == MOTION_ERR_INVALID_PLAN)
        }
        #expect(message.contains(mention), "message: \(message)")
        #expect(plan == nil)
    }

    @Test("An unknown plan type is MOTION_ERR_UNKNOWN_PLAN_TYPE listing the known ones")
    func unknownType() throws {
        let (status, message, _) = try probe(#"{"type":"Prob"}"#)
        #expect(status == MOTION_ERR_UNKNOWN_PLAN_TYPE)
        #expect(message.contains("\"Prob\"") && message.contains("performs Probe"))
    }
}
