import CMotionABI
import Foundation
import Testing

/// CPerformers (entry/vtable path) and CDeclarative (plain functions) loaded with dlopen.
@Suite("C plugins through the C ABI")
struct CPluginTests {
    @Test("Nudge moves a property by an offset over its duration, holding a token until done")
    func nudge() throws {
        let plugin = try #require(try PluginLibrary.open("CPerformers").callEntry())
        let context = FakeContext(target: "nudge-box")
        context.setValue([10, 20], for: "position")
        let (created, _, _) = plugin.create("Nudger", for: context)
        let performer = try #require(created)
        defer { plugin.destroy(performer) }
        #expect(
            plugin.add(#"{"type":"Nudge","property":"position","by":[5,-10],"duration":0.5}"#, to: performer).0
                == MOTION_OK)
        #expect(context.activeTokenCount == 1)
        var values: [[Double]] = []
        for (index, time) in [0.0, 0.25, 0.5].enumerated() {
            plugin.update(performer, index: UInt64(index), time: time, delta: index == 0 ? 0 : 0.25)
            values.append(context.value("position") ?? [])
        }
        #expect(values == [[10, 20], [12.5, 15], [15, 10]])
        #expect(context.activeTokenCount == 0)
        #expect(context.terminatedTokenCount == 1)
    }

    @Test("update_many (ABI 1.1) moves several Nudgers in one call as update would one by one")
    func nudgeMany() throws {
        let plugin = try #require(try PluginLibrary.open("CPerformers").callEntry())
        #expect(plugin.frames?.pointee.update_many != nil)
        let contexts = [FakeContext(target: "nudge-many-0"), FakeContext(target: "nudge-many-1")]
        let performers = try contexts.map { try #require(plugin.create("Nudger", for: $0).0) }
        defer { performers.forEach(plugin.destroy) }
        for (i, performer) in performers.enumerated() {
            #expect(plugin.add(#"{"type":"Nudge","property":"x","by":[\#(4 * (i + 1))],"duration":1}"#, to: performer).0 == MOTION_OK)
        }
        var values: [[[Double]?]] = []
        for (index, time) in [0.0, 0.5, 1].enumerated() {
            plugin.updateMany(performers, index: UInt64(index), time: time, delta: index == 0 ? 0 : 0.5)
            values.append(contexts.map { $0.value("x") })
        }
        #expect(values == [[[0], [0]], [[2], [4]], [[4], [8]]])
        #expect(contexts.map(\.activeTokenCount) == [0, 0])
    }

    @Test(
        "Bad Nudge plans and plan types are refused with a status and a message",
        arguments: [
            (#"{"type":"Nudge","by":[1]}"#, MOTION_ERR_INVALID_PLAN, "property"),
            (#"{"type":"Nudge","property":"x","by":[]}"#, MOTION_ERR_INVALID_PLAN, "by"),
            (#"{"type":"Nudge","property":"x","by":[1],"duration":-2}"#, MOTION_ERR_INVALID_PLAN, "duration"),
            (#"{"type":"Sequence","transactions":[]}"#, MOTION_ERR_UNKNOWN_PLAN_TYPE, "Sequence"),
            (#"{"property":"x"}"#, MOTION_ERR_INVALID_PLAN, "type"),
            ("not json", MOTION_ERR_INVALID_PLAN, "type"),
        ])
    func badNudges(json: String, status: motion_status, mention: String) throws {
        let plugin = try #require(try PluginLibrary.open("CPerformers").callEntry())
        let context = FakeContext(target: "nudge-bad")
        let (created, _, _) = plugin.create("Nudger", for: context)
        let performer = try #require(created)
        defer { plugin.destroy(performer) }
        let (result, text) = plugin.add(json, to: performer)
        #expect(result == status)
        #expect(text.contains(mention), "message: \(text)")
        #expect(context.activeTokenCount == 0)
    }

    @Test("Sequence emits its transactions in order, as given (the same JSON), and stops at the first failure")
    func sequence() throws {
        let plugin = try #require(try PluginLibrary.open("CPerformers").callEntry())
        let context = FakeContext(target: "sequence-card")
        let (created, status, text) = plugin.create("Sequencer", for: context)
        let performer = try #require(created, "\(status) \(text)")
        defer { plugin.destroy(performer) }
        let first = #"{"operations":[{"op":"add","target":"a","plan":{"type":"Tween","property":"x","to":[1]}}]}"#
        let second = #"{"operations":[{"op":"removeNamed","target":"b","name":"drag"}]}"#
        let third = #"{"operations":[{"op":"add","target":"c","plan":{"type":"Nudge","property":"y","by":[2]}}]}"#
        let plan = #"{"type":"Sequence","transactions":["# + [first, second, third].joined(separator: ", ") + "]}"
        #expect(plugin.add(plan, to: performer).0 == MOTION_OK)
        #expect(sameJSON(context.emitted, [first, second, third]))

        // Now the host fails the second emission: the third is never emitted.
        let failing = FakeContext(target: "sequence-failing")
        let (failingCreated, _, _) = plugin.create("Sequencer", for: failing)
        let failingPerformer = try #require(failingCreated)
        defer { plugin.destroy(failingPerformer) }
        failing.router.withLock {
            $0 = { json in json.contains("removeNamed") ? (MOTION_ERR_EMISSION_FAILED, "no such name") : (MOTION_OK, "")
            }
        }
        let (result, message) = plugin.add(plan, to: failingPerformer)
        #expect(result == MOTION_ERR_EMISSION_FAILED)
        #expect(message.contains("transactions[1]") && message.contains("no such name"))
        #expect(sameJSON(failing.emitted, [first, second]))
    }

    @Test("An unknown class is refused with MOTION_ERR_UNKNOWN_CLASS")
    func unknownClass() throws {
        let plugin = try #require(try PluginLibrary.open("CPerformers").callEntry())
        let (performer, status, text) = plugin.create("Wobbler", for: FakeContext(target: "c-unknown"))
        #expect(performer == nil)
        #expect(status == MOTION_ERR_UNKNOWN_CLASS)
        #expect(text.contains("Wobbler"))
    }
}

/// The declared functions of CDeclarative, as the host would call them (here directly, not via libffi).
struct LevelFunctions {
    typealias Create =
        @convention(c) (UnsafePointer<CChar>?, UnsafePointer<motion_host_v1>?, OpaquePointer?) ->
        UnsafeMutableRawPointer?
    typealias Destroy = @convention(c) (UnsafeMutableRawPointer?) -> Void
    typealias Update = @convention(c) (UnsafeMutableRawPointer?, Double, Double) -> Void
    typealias Set = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Double, Int64, Bool) -> Int32
    typealias Blink = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Double, Int64) -> Int32

    let create: Create
    let destroy: Destroy
    let update: Update
    let set: Set
    let blink: Blink

    init() throws {
        let library = try PluginLibrary.open("CDeclarative")
        #expect(library.entry == nil)  // a declarative plugin needs no entry symbol
        create = unsafeBitCast(try #require(library.symbol("level_create")), to: Create.self)
        destroy = unsafeBitCast(try #require(library.symbol("level_destroy")), to: Destroy.self)
        update = unsafeBitCast(try #require(library.symbol("level_update")), to: Update.self)
        set = unsafeBitCast(try #require(library.symbol("level_set")), to: Set.self)
        blink = unsafeBitCast(try #require(library.symbol("level_blink")), to: Blink.self)
    }
}

@Suite("CDeclarative's declared C functions")
struct CDeclarativeTests {
    @Test(
        "SetLevel takes a string, a double, an int64 and a bool",
        arguments: [
            (0.73, Int64(4), false, MOTION_OK, 0.75),
            (1.7, 0, true, MOTION_OK, 1.0),
            (-0.2, 10, true, MOTION_OK, 0.0),
            (0.5, 0, false, MOTION_OK, 0.5),
            (2.26, 2, false, MOTION_OK, 2.5),
            (0.5, -1, false, MOTION_ERR_INVALID_PLAN, -1),
            (.nan, 0, false, MOTION_ERR_INVALID_PLAN, -1),
        ])
    func setLevel(level: Double, steps: Int64, clamp: Bool, status: motion_status, expected: Double) throws {
        let functions = try LevelFunctions()
        let context = FakeContext(target: "level-\(level)-\(steps)-\(clamp)")
        let performer = try #require(functions.create(context.targetName, FakeHost.interface.pointer, context.handle))
        defer { functions.destroy(performer) }
        #expect(functions.set(performer, "brightness", level, steps, clamp) == status)
        #expect(context.value("brightness") == (status == MOTION_OK ? [expected] : nil))
    }

    @Test("Blink toggles its property over frames while holding a token, and ends shown")
    func blink() throws {
        let functions = try LevelFunctions()
        let context = FakeContext(target: "level-blink")
        let performer = try #require(functions.create(context.targetName, FakeHost.interface.pointer, context.handle))
        defer { functions.destroy(performer) }
        #expect(functions.blink(performer, "visible", 1.0, 2) == MOTION_OK)
        #expect(context.value("visible") == [1])
        #expect(context.activeTokenCount == 1)
        var values: [Double] = []
        for frame in 1...8 {
            functions.update(performer, Double(frame) * 0.25, 0.25)
            values.append(context.value("visible")?.first ?? -1)
        }
        #expect(values == [1, 0, 0, 1, 1, 0, 0, 1])
        #expect(context.activeTokenCount == 0)
        #expect(context.terminatedTokenCount == 1)
        #expect(functions.blink(performer, "visible", 0, 2) == MOTION_ERR_INVALID_PLAN)
        #expect(functions.blink(performer, "visible", 1, 0) == MOTION_ERR_INVALID_PLAN)
    }

    @Test("create refuses a missing host")
    func createRefusesMissingHost() throws {
        let functions = try LevelFunctions()
        let context = FakeContext(target: "level-no-host")
        #expect(functions.create(context.targetName, nil, context.handle) == nil)
    }
}

/// Whether two lists of JSON texts hold the same JSON values (key order and spacing aside): the host
/// hands a nested value back as compact JSON with sorted keys.
func sameJSON(_ lhs: [String], _ rhs: [String]) -> Bool {
    func parse(_ text: String) -> NSObject? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) as? NSObject
    }
    return lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { pair in parse(pair.0).map { $0.isEqual(parse(pair.1)) } ?? false }
}
