import CMotionABI
import Foundation
import MotionCore
import Testing

@testable import MotionHost

/// Plans by handle across the sandbox: the wire's binary form of a plan (``WireWriter/plan(_:)``, no JSON), and a
/// plugin that takes plans by handle being handed them so in its sandbox, with what it reads and its errors as in
/// process.
@Suite(.serialized) struct SandboxPlanWireTests {
    /// A plan with a field of every JSON kind, numbers JSON text rounds (negative zero, a subnormal, a large
    /// integer), strings with escapes and non-ASCII, and empty and nested containers.
    let plan = Plan(
        type: "Tween",
        fields: [
            "property": "opacity", "to": [0.25, -0.0, 1e300, 5e-324], "duration": 0.5, "on": true, "off": false,
            "nothing": .null, "large": .number(9_007_199_254_740_993), "quote": "a \"b\"\n\u{1}é✓",
            "empty": "", "none": .array([]), "bare": .object([:]),
            "nested": .object(["a": 1, "b": .array([.object(["c": .array([.null, "x", 2])])])]),
        ])

    /// `plan` written and read back.
    func roundTrip(_ plan: Plan) throws -> Plan? {
        var out = WireWriter()
        let isWritten = out.plan(plan)
        try #require(isWritten)
        var reader = WireReader(out.bytes)
        return reader.plan()
    }

    @Test func aPlanReadsBackWithItsTypeAndEveryFieldExactly() throws {
        let read = try #require(try roundTrip(plan))
        #expect(read == plan)
        // Equal doubles can differ in sign (0 == -0): the bits must be the ones sent.
        guard case .array(let to)? = read["to"], case .number(let zero) = to[1], case .number(let tiny) = to[3] else {
            Issue.record("\"to\" read back as \(String(describing: read["to"]))")
            return
        }
        #expect(zero.sign == .minus && tiny.bitPattern == 1)
        var json: [UInt8] = []
        var expected: [UInt8] = []
        try read.writeJSON(into: &json)
        try plan.writeJSON(into: &expected)
        #expect(json == expected)
    }

    @Test func aTypedPlanTravelsAsItsFields() throws {
        struct Nudge: PlanValue {
            static let planType = "Nudge"
            var by: Double
        }
        let read = try #require(try roundTrip(Plan(Nudge(by: 2.5))))
        #expect(read.type == "Nudge" && read.fields == ["by": 2.5])
    }

    @Test func aPlanCompletedWithDefaultsTravelsWithTheFieldsGivenAndTheDefaults() throws {
        let defaults = PlanDefaults([("easing", "easeInOut"), ("delay", 0), ("curve", .array([0.25, 0.1]))])
        let completed = Plan(type: "Tween", fields: ["property": "x", "to": [1], "duration": 0.5], defaults: defaults)
        let read = try #require(try roundTrip(completed))
        #expect(read.type == "Tween")
        #expect(
            read.fields == [
                "property": "x", "to": [1], "duration": 0.5, "easing": "easeInOut", "delay": 0, "curve": .array([0.25, 0.1]),
            ])
        // A default too deep to write is refused as a given field is, the writer left as it was.
        var value: JSONValue = 1
        for _ in 0..<WireWriter.maximumPlanDepth + 1 { value = .array([value]) }
        var out = WireWriter()
        out.u32(7)
        let isWritten = out.plan(Plan(type: "Tween", fields: ["property": "x"], defaults: PlanDefaults([("deep", value)])))
        #expect(!isWritten)
        #expect(out.bytes == [7, 0, 0, 0])
    }

    @Test func aPlanNestedDeeperThanTheParserAllowsIsNotWrittenAndLeavesTheWriterAsItWas() {
        var value: JSONValue = 1
        for _ in 0..<WireWriter.maximumPlanDepth + 1 { value = .array([value]) }
        var out = WireWriter()
        out.u32(7)
        let isWritten = out.plan(Plan(type: "Deep", fields: ["value": value]))
        #expect(!isWritten)
        #expect(out.bytes == [7, 0, 0, 0])
        // One level less is written and read back.
        guard case .array(let items) = value else { return }
        var fits = WireWriter()
        let fitsIsWritten = fits.plan(Plan(type: "Deep", fields: ["value": items[0]]))
        #expect(fitsIsWritten)
        var reader = WireReader(fits.bytes)
        let read = reader.plan()
        #expect(read?["value"] == items[0])
    }

    @Test func everyCutShortFormIsRefusedNotRead() {
        var out = WireWriter()
        _ = out.plan(plan)
        for length in 0..<out.bytes.count {
            var reader = WireReader(Array(out.bytes[..<length]))
            let read = reader.plan()
            #expect(read == nil, "\(length) of \(out.bytes.count) bytes")
        }
    }

    @Test(arguments: [
        ("an unknown tag", [UInt8](repeating: 0, count: 4) + [1, 0, 0, 0] + [1, 0, 0, 0, UInt8(ascii: "f")] + [9]),
        ("a count past the bytes", [UInt8](repeating: 0, count: 4) + [1, 0, 0, 0] + [1, 0, 0, 0, UInt8(ascii: "f")] + [5, 0xff, 0xff, 0xff, 0x7f]),
        ("a field count past the bytes", [UInt8](repeating: 0, count: 4) + [0xff, 0xff, 0xff, 0xff]),
    ])
    func malformedBytesAreRefused(_ what: String, _ bytes: [UInt8]) {
        var reader = WireReader(bytes)
        let read = reader.plan()
        #expect(read == nil, "\(what)")
    }

    // MARK: The sandbox's motion.plans/1, beside the host's

    /// `names` as a layout of the host's.
    func layout(_ names: [String]) -> motion_plan_layout {
        let copies = names.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        return copies.map { UnsafePointer($0) }.withUnsafeBufferPointer { HostInterface.plansExtension.pointee.layout($0.baseAddress, $0.count) }
    }

    /// A field as comparable text: kind, count, values' bits and the string's bytes.
    func describe(_ field: motion_plan_field) -> String {
        let values = withUnsafeBytes(of: field.values) { Array($0.bindMemory(to: UInt64.self)) }
        let text = field.text.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: field.length), as: UTF8.self) }
        return "\(field.kind) \(field.count) \(values) \(text.map { "\"\($0)\"" } ?? "nil") \(field.length)"
    }

    /// What `extensionTable` answers for `plan`: its read of `names` (and of the first name alone), then its JSON.
    func answers(of table: motion_plans_v1, _ plan: Plan, names: [String], isSandbox: Bool) throws -> [String] {
        let layout = layout(names)
        var fields = [motion_plan_field](repeating: motion_plan_field(), count: names.count)
        var json = [CChar](repeating: 0, count: 2048)
        var length = 0
        var small = [CChar](repeating: 0, count: 4)
        var smallLength = 0
        let run: (OpaquePointer) -> [String] = { handle in
            let status = table.read(handle, layout, &fields, names.count)
            let invalid = table.read(handle, layout, &fields, names.count + 1)
            let jsonStatus = table.json(handle, &json, json.count, &length)
            let tooSmall = table.json(handle, &small, small.count, &smallLength)
            return ["\(status) \(invalid) \(jsonStatus) \(tooSmall) \(length) \(smallLength)"] + fields.map(describe)
                + [String(cString: json)]
        }
        if isSandbox {
            var out = WireWriter()
            let isWritten = out.plan(plan)
            try #require(isWritten)
            return try #require(out.bytes.withUnsafeBytes { SandboxPlans.withHandle($0, run) })
        }
        return PlansInFlight.withHandle(plan, run)
    }

    @Test func theSandboxReadsAPlanByHandleExactlyAsTheHostDoes() throws {
        let names = ["to", "type", "missing", "duration", "on", "off", "nothing", "large", "quote", "empty", "none", "bare", "nested", "property"]
        let host = try answers(of: HostInterface.plansExtension.pointee, plan, names: names, isSandbox: false)
        let sandbox = try answers(of: SandboxPlans.table.pointee, plan, names: names, isSandbox: true)
        #expect(sandbox == host)
        #expect(
            host.first
                == "\(MOTION_OK) \(MOTION_ERR_INVALID_ARGUMENT) \(MOTION_OK) \(MOTION_ERR_BUFFER_TOO_SMALL) \(host.last!.utf8.count) \(host.last!.utf8.count)"
        )
        // A vector of more than four numbers, or with a string in it, is for json (OTHER), as the host says.
        let wide = Plan(type: "T", fields: ["a": [1, 2, 3, 4, 5], "b": [1, "x"], "c": [1, 2, 3, 4]])
        #expect(
            try answers(of: SandboxPlans.table.pointee, wide, names: ["c", "b", "a", "a"], isSandbox: true)
                == answers(of: HostInterface.plansExtension.pointee, wide, names: ["c", "b", "a", "a"], isSandbox: false))
    }

    @Test func theSandboxRefusesAHandleNotInFlight() throws {
        var out = WireWriter()
        _ = out.plan(plan)
        let layout = layout(["to"])
        var field = motion_plan_field()
        let table = SandboxPlans.table.pointee
        let kept = out.bytes.withUnsafeBytes { SandboxPlans.withHandle($0) { $0 } }
        let handle = try #require(kept)
        #expect(table.read(handle, layout, &field, 1) == MOTION_ERR_INVALID_ARGUMENT)
        var length = 7
        #expect(table.json(handle, nil, 0, &length) == MOTION_ERR_INVALID_ARGUMENT && length == 0)
        // And, while one is in flight, a layout the host did not make.
        let status = out.bytes.withUnsafeBytes { SandboxPlans.withHandle($0) { table.read($0, 1 << 20, &field, 1) } }
        #expect(status == MOTION_ERR_INVALID_ARGUMENT)
    }

    // MARK: Through a sandbox

    /// A host of PlanProbe and TweenKit, in process or both isolated.
    static func host(isolated: Bool) throws -> PluginHost {
        let manifests = try ["Tests/Fixtures/plugins/plan-probe.json", "manifests/tweenkit.json"].map {
            try PluginManifest.load(contentsOf: Fixtures.packageRoot.appendingPathComponent($0))
        }
        let products = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        return PluginHost(
            catalog: PluginCatalog(plugins: manifests),
            loader: LibraryLoader(
                configuration: HostConfiguration(plugins: isolated ? ["*": .process] : [:]), extraLibraryDirectories: [products]))
    }

    @Test func anIsolatedSDKPluginIsHandedItsPlansByHandle() throws {
        let host = try Self.host(isolated: true)
        let scene = Scene()
        scene.addTarget("p", properties: ["x": 0])
        let scheduler = Scheduler(scene: scene, registry: host)
        try scheduler.commit(Transaction([.add(Plan(type: "Tween", fields: ["property": "x", "to": [1], "duration": 1]), target: "p")]))
        let plugin = try #require(host.isolatedPlugins.first)
        #expect(plugin.members.map(\.takesPlansByHandle) == [true])
    }

    /// Every event of a commit, as its trace line.
    final class TraceLines: Tracer {
        var lines: [String] = []
        func trace(_ event: TraceEvent) { lines.append("\(event)") }
    }

    /// A plan refused by the plugin (read by handle; read from the JSON the host writes for it when a field is a
    /// nested object, which `motion_plans_v1.read` cannot give; decoded by the SDK's Codable path) fails its commit
    /// with the in-process error, word for word, after the same trace: the Tween before it applied, the one after
    /// it not.
    @Test(arguments: [
        Plan(type: "ReadingProbe", fields: ["text": "refuse", "number": 1, "flag": true, "vector": [1, 2]]),
        Plan(type: "ReadingProbe", fields: ["text": "fine", "number": 1, "flag": true, "vector": .object(["x": 1])]),
        Plan(type: "Probe", fields: ["text": "t", "number": 1, "integer": 2.5, "flag": true, "vector": [1]]),
    ])
    func aRefusedPlanFailsItsCommitAsInProcess(_ refused: Plan) throws {
        var outcomes: [(error: String, applied: Int, trace: [String], x: String?)] = []
        for isolated in [false, true] {
            let host = try Self.host(isolated: isolated)
            let scene = Scene()
            scene.addTarget("p", properties: ["x": 0])
            scene.addTarget("q", properties: ["x": 0])
            let scheduler = Scheduler(scene: scene, registry: host)
            let tracer = TraceLines()
            scheduler.addTracer(tracer)
            let tween = Plan(type: "Tween", fields: ["property": "x", "to": [1], "duration": 1])
            do {
                try scheduler.commit(Transaction([.add(tween, target: "q"), .add(refused, target: "p"), .add(tween, target: "p")]))
                Issue.record("the commit of \(refused.type) succeeded (isolated: \(isolated))")
            } catch {
                scheduler.advanceFrame(to: 0)
                scheduler.advanceFrame(to: 0.5)
                outcomes.append(("\(error)", error.appliedOperationCount, tracer.lines, scene.target("q")?["x"].map { "\($0)" }))
            }
        }
        try #require(outcomes.count == 2)
        #expect(outcomes[0].applied == 1)
        #expect(outcomes[0].error.contains("operation 1, target \"p\", plan type \"\(refused.type)\""), "\(outcomes[0].error)")
        #expect(outcomes[0].x != "0.0" && outcomes[0].x != nil)
        #expect(outcomes[1].error == outcomes[0].error)
        #expect(outcomes[1].applied == outcomes[0].applied)
        #expect(outcomes[1].trace == outcomes[0].trace)
        #expect(outcomes[1].x == outcomes[0].x)
    }
}
