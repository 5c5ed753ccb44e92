import CMotionABI
import Testing

/// TweenKit loaded with dlopen and driven through its C interface by the fake host.
@Suite("TweenKit through the C ABI")
struct TweenKitTests {
    let plugin: Plugin

    init() throws {
        plugin = try #require(try PluginLibrary.open("TweenKit").callEntry())
    }

    /// Drives frames at the given times (s) and returns the property's value after each.
    func run(_ performer: OpaquePointer, _ context: FakeContext, times: [Double], property: String) -> [[Double]] {
        var previous = times.first ?? 0
        var values: [[Double]] = []
        for (index, time) in times.enumerated() {
            plugin.update(performer, index: UInt64(index), time: time, delta: time - previous)
            previous = time
            values.append(context.value(property) ?? [])
        }
        return values
    }

    @Test("A linear Tween runs over frames from the current value, holding a token until done")
    func linearTween() throws {
        let context = FakeContext(target: "tween-linear")
        context.setValue([0, 10], for: "position")
        let (created, _, _) = plugin.create("TweenPerformer", for: context)
        let performer = try #require(created)
        defer { plugin.destroy(performer) }
        let plan = #"{"type":"Tween","property":"position","to":[1,20],"duration":0.5,"timing":"linear"}"#
        #expect(plugin.add(plan, to: performer).0 == MOTION_OK)
        #expect(context.activeTokenCount == 1)
        #expect(plugin.frames != nil)
        let values = run(performer, context, times: [1, 1.25, 1.5], property: "position")
        #expect(values == [[0, 10], [0.5, 15], [1, 20]])
        #expect(context.activeTokenCount == 0)
        #expect(context.terminatedTokenCount == 1)
    }

    @Test("Delay, explicit from and control points shape the tween")
    func delayedBezierTween() throws {
        let context = FakeContext(target: "tween-bezier")
        let (created, _, _) = plugin.create("TweenPerformer", for: context)
        let performer = try #require(created)
        defer { plugin.destroy(performer) }
        let plan =
            #"{"type":"Tween","property":"opacity","from":[0],"to":[1],"duration":1,"delay":0.5,"controlPoints":[0.42,0,1,1]}"#
        #expect(plugin.add(plan, to: performer).0 == MOTION_OK)
        let values = run(performer, context, times: [0, 0.25, 0.5, 1.0, 1.5], property: "opacity")
        #expect(values[0] == [] && values[1] == [])  // still in its delay: nothing written
        #expect(values[2] == [0])
        let middle = try #require(values[3].first)
        #expect(middle > 0.2 && middle < 0.45)  // ease-in at half time: CSS ease-in(0.5) ≈ 0.315
        #expect(values[4] == [1])
        #expect(context.activeTokenCount == 0)
    }

    @Test(
        "Bad plans are reported as status and message, never a trap",
        arguments: [
            ("{", MOTION_ERR_INVALID_PLAN, "plan"),
            ("[]", MOTION_ERR_INVALID_PLAN, "plan"),
            (#"{"type":"Tween"}"#, MOTION_ERR_INVALID_PLAN, "property"),
            (#"{"type":"Nope"}"#, MOTION_ERR_UNKNOWN_PLAN_TYPE, "Nope"),
            (#"{"type":"Tween","property":"x","to":"one"}"#, MOTION_ERR_INVALID_PLAN, "to"),
            (#"{"type":"Tween","property":"x","to":[1],"duration":-1}"#, MOTION_ERR_INVALID_PLAN, "duration"),
            (#"{"type":"Tween","property":"x","to":[1],"timing":"bouncy"}"#, MOTION_ERR_INVALID_PLAN, "timing"),
            (#"{"type":"Tween","property":"x","to":[1],"controlPoints":[2,0,0,1]}"#, MOTION_ERR_INVALID_PLAN, "x1"),
            (#"{"type":"Tween","property":"x","from":[0,0],"to":[1]}"#, MOTION_ERR_INVALID_PLAN, "from"),
            (#"{"type":"Tween","property":"x","to":[1,2,3,4,5]}"#, MOTION_ERR_INVALID_PLAN, "to"),
        ])
    func badPlans(json: String, status: motion_status, mention: String) throws {
        let context = FakeContext(target: "tween-bad")
        let (created, _, _) = plugin.create("TweenPerformer", for: context)
        let performer = try #require(created)
        defer { plugin.destroy(performer) }
        let (result, text) = plugin.add(json, to: performer)
        #expect(result == status)
        #expect(text.contains(mention), "message: \(text)")
        #expect(context.activeTokenCount == 0)
        // The performer stays usable after a failed add.
        #expect(plugin.add(#"{"type":"Tween","property":"x","to":[1]}"#, to: performer).0 == MOTION_OK)
    }

    @Test("An unknown class is refused with MOTION_ERR_UNKNOWN_CLASS naming the known ones")
    func unknownClass() {
        let context = FakeContext(target: "tween-unknown-class")
        let (performer, status, text) = plugin.create("Tweener", for: context)
        #expect(performer == nil)
        #expect(status == MOTION_ERR_UNKNOWN_CLASS)
        #expect(text.contains("Tweener") && text.contains("TweenPerformer") && text.contains("org.motion.tweenkit"))
    }

    /// A TweenPerformer and a FadePerformer on `context`, the fade's emitted Tweens routed to the former; the
    /// caller destroys both.
    func fadeAndTweenPerformers(on context: FakeContext) throws -> (tweens: OpaquePointer, fades: OpaquePointer) {
        let (tweenCreated, _, _) = plugin.create("TweenPerformer", for: context)
        let (fadeCreated, _, _) = plugin.create("FadePerformer", for: context)
        let tweens = try #require(tweenCreated)
        let fades = try #require(fadeCreated)
        context.router.withLock { $0 = addRouter(["Tween": Route(plugin: plugin, performer: tweens)]) }
        return (tweens, fades)
    }

    @Test("FadeIn emits a Tween on opacity to its own target, performed before add returns")
    func fadeInComposes() throws {
        let context = FakeContext(target: "fade-card")
        let (tweens, fades) = try fadeAndTweenPerformers(on: context)
        defer {
            plugin.destroy(fades)
            plugin.destroy(tweens)
        }
        #expect(plugin.add(#"{"type":"FadeIn","duration":0.5,"delay":0,"timing":"linear"}"#, to: fades).0 == MOTION_OK)
        // Emitted: one add of a Tween on opacity, 0 -> 1, to this target.
        let emitted = try #require(context.emitted.first)
        let operation = try #require(operations(of: emitted).first)
        #expect(operation["op"] as? String == "add")
        #expect(operation["target"] as? String == "fade-card")
        let plan = try #require(operation["plan"] as? [String: Any])
        #expect(plan["type"] as? String == "Tween")
        #expect(plan["property"] as? String == "opacity")
        #expect(plan["from"] as? [Double] == [0] && plan["to"] as? [Double] == [1])
        #expect(plan["duration"] as? Double == 0.5)
        // Performed synchronously: the Tween performer already holds its token.
        #expect(context.activeTokenCount == 1)
        let values = run(tweens, context, times: [0, 0.25, 0.5], property: "opacity")
        #expect(values == [[0], [0.5], [1]])
        #expect(context.activeTokenCount == 0)
    }

    @Test("FadeOut tweens opacity from its current value to 0")
    func fadeOut() throws {
        let context = FakeContext(target: "fade-out-card")
        context.setValue([0.8], for: "opacity")
        let (tweens, fades) = try fadeAndTweenPerformers(on: context)
        defer {
            plugin.destroy(fades)
            plugin.destroy(tweens)
        }
        #expect(plugin.add(#"{"type":"FadeOut","duration":1,"timing":"linear"}"#, to: fades).0 == MOTION_OK)
        let values = run(tweens, context, times: [0, 0.5, 1], property: "opacity")
        #expect(values.count == 3 && abs(values[1][0] - 0.4) < 1e-12)
        #expect(values.first == [0.8] && values.last == [0])
    }

    @Test("Plan defaults come from the manifest only: a FadeIn filled in as the host fills it works, an unfilled one names the field")
    func defaultsComeFromTheManifest() throws {
        let context = FakeContext(target: "fade-defaults")
        let (tweens, fades) = try fadeAndTweenPerformers(on: context)
        defer {
            plugin.destroy(fades)
            plugin.destroy(tweens)
        }
        #expect(plugin.add(#"{"type":"FadeIn"}"#, to: fades).0 == MOTION_OK)
        let emitted = try #require(context.emitted.first)
        let tween = try #require(operations(of: emitted).first?["plan"] as? [String: Any])
        #expect(tween["duration"] as? Double == 0.3 && tween["delay"] as? Double == 0 && tween["timing"] as? String == "easeOut")
        let (status, text) = plugin.add(asWritten: #"{"type":"FadeIn","delay":0,"timing":"easeOut"}"#, to: fades)
        #expect(status == MOTION_ERR_INVALID_PLAN)
        #expect(text.contains("duration"))
    }

    @Test("A failed emission fails the FadeIn with the host's status")
    func failedEmission() throws {
        let context = FakeContext(target: "fade-failing")
        let (fadeCreated, _, _) = plugin.create("FadePerformer", for: context)
        let fades = try #require(fadeCreated)
        defer { plugin.destroy(fades) }
        context.router.withLock { $0 = addRouter([:]) }
        let (status, text) = plugin.add(#"{"type":"FadeIn"}"#, to: fades)
        #expect(status == MOTION_ERR_UNKNOWN_PLAN_TYPE)
        #expect(text.contains("Tween"))
    }

    @Test("SpringTo comes to rest exactly at its destination and releases its token")
    func springComesToRest() throws {
        let context = FakeContext(target: "spring-rest")
        context.setValue([0], for: "x")
        let (created, _, _) = plugin.create("SpringPerformer", for: context)
        let performer = try #require(created)
        defer { plugin.destroy(performer) }
        #expect(plugin.add(#"{"type":"SpringTo","property":"x","destination":[100]}"#, to: performer).0 == MOTION_OK)
        #expect(context.activeTokenCount == 1)
        var frame: UInt64 = 0
        var maximum = 0.0
        while context.activeTokenCount > 0 && frame < 600 {
            frame += 1
            plugin.update(performer, index: frame, time: Double(frame) / 60, delta: 1.0 / 60)
            maximum = max(maximum, context.value("x")?.first ?? 0)
        }
        #expect(context.activeTokenCount == 0)
        #expect(context.value("x") == [100])
        #expect(maximum > 100)  // the default spring (ζ ≈ 0.81) overshoots
        #expect(frame > 10 && frame < 120)
    }

    @Test("Re-targeting a moving spring keeps its velocity")
    func springRetargetKeepsVelocity() throws {
        let moving = FakeContext(target: "spring-moving")
        moving.setValue([0], for: "x")
        let (created, _, _) = plugin.create("SpringPerformer", for: moving)
        let performer = try #require(created)
        defer { plugin.destroy(performer) }
        #expect(plugin.add(#"{"type":"SpringTo","property":"x","destination":[100]}"#, to: performer).0 == MOTION_OK)
        for frame in 1...3 {
            plugin.update(performer, index: UInt64(frame), time: Double(frame) / 60, delta: 1.0 / 60)
        }
        let position = try #require(moving.value("x")?.first)
        #expect(position > 0)
        // The same position at rest, on another target, pulled to the same new destination.
        let resting = FakeContext(target: "spring-resting")
        resting.setValue([position], for: "x")
        let (restingCreated, _, _) = plugin.create("SpringPerformer", for: resting)
        let restingPerformer = try #require(restingCreated)
        defer { plugin.destroy(restingPerformer) }
        let retarget = #"{"type":"SpringTo","property":"x","destination":[-50]}"#
        #expect(plugin.add(retarget, to: performer).0 == MOTION_OK)
        #expect(plugin.add(retarget, to: restingPerformer).0 == MOTION_OK)
        #expect(moving.activeTokenCount == 1)  // still one token for the re-targeted spring
        plugin.update(performer, index: 4, time: 4.0 / 60, delta: 1.0 / 60)
        plugin.update(restingPerformer, index: 4, time: 4.0 / 60, delta: 1.0 / 60)
        let kept = try #require(moving.value("x")?.first)
        let fresh = try #require(resting.value("x")?.first)
        #expect(kept > fresh)  // its velocity towards +100 carried over
    }

    @Test("Removing a named Tween stops it and releases the token")
    func namedPlanRemoval() throws {
        let context = FakeContext(target: "tween-named")
        context.setValue([0], for: "x")
        let (created, _, _) = plugin.create("TweenPerformer", for: context)
        let performer = try #require(created)
        defer { plugin.destroy(performer) }
        let plan = #"{"type":"Tween","property":"x","to":[10],"duration":1,"timing":"linear"}"#
        #expect(plugin.add(plan, named: "slide", to: performer).0 == MOTION_OK)
        _ = run(performer, context, times: [0, 0.5], property: "x")
        #expect(context.value("x") == [5])
        #expect(plugin.removePlan(named: "slide", from: performer) == MOTION_OK)
        #expect(context.activeTokenCount == 0)
        #expect(context.terminatedTokenCount == 1)
        plugin.update(performer, index: 2, time: 1, delta: 0.5)
        #expect(context.value("x") == [5])
    }

    @Test("Destroying a moving performer terminates its token")
    func destroyTerminatesToken() throws {
        let context = FakeContext(target: "tween-destroyed")
        let (created, _, _) = plugin.create("TweenPerformer", for: context)
        let performer = try #require(created)
        #expect(
            plugin.add(#"{"type":"Tween","property":"x","from":[0],"to":[1],"duration":10}"#, to: performer).0
                == MOTION_OK)
        #expect(context.activeTokenCount == 1)
        plugin.destroy(performer)
        #expect(context.activeTokenCount == 0)
        #expect(context.terminatedTokenCount == 1)
    }

    @Test("TweenKit offers the frames extension only")
    func extensions() {
        #expect(plugin.frames?.pointee.struct_size == UInt32(MemoryLayout<motion_frames_v1>.size))
        #expect(plugin.deviceMotion == nil)
        #expect(plugin.interface.pointee.get_extension("motion.unknown/1") == nil)
    }

    @Test("update_many moves each Tween as update would and hands the host their writes in set_properties calls")
    func updateManyBatchesWrites() throws {
        let contexts = [FakeContext(target: "many-0"), FakeContext(target: "many-1")]
        let performers = try contexts.map { context in try #require(plugin.create("TweenPerformer", for: context).0) }
        defer { performers.forEach(plugin.destroy) }
        for (index, performer) in performers.enumerated() {
            let plan = #"{"type":"Tween","property":"x","from":[0],"to":[\#(10 * (index + 1))],"duration":1,"timing":"linear"}"#
            #expect(plugin.add(plan, to: performer).0 == MOTION_OK)
        }
        #expect(plugin.frames?.pointee.update_many != nil)
        let callsBefore = FakeHost.setPropertiesCalls.load(ordering: .relaxed)
        var values: [[[Double]?]] = []
        for (frame, time) in [0, 0.5, 1].enumerated() {
            plugin.updateMany(performers, index: UInt64(frame), time: time, delta: frame == 0 ? 0 : 0.5)
            values.append(contexts.map { $0.value("x") })
        }
        #expect(values == [[[0], [0]], [[5], [10]], [[10], [20]]])
        #expect(contexts.map { $0.state.withLock(\.batchedWrites) } == [3, 3])
        // One set_properties call per update_many here (6 writes fit one queue).
        #expect(FakeHost.setPropertiesCalls.load(ordering: .relaxed) - callsBefore >= 3)
        #expect(contexts.map(\.activeTokenCount) == [0, 0])
    }

    @Test("Inside update_many a read sees the writes queued before it (the queue is handed over first)")
    func updateManyFlushesBeforeRead() throws {
        // Two performers share one context, so the second reads what the first writes: the first tweens x
        // from 0 to 100; the second starts at t = 0.5 with no "from", so it starts from x as it is then.
        let context = FakeContext(target: "many-shared")
        context.setValue([0], for: "x")
        let first = try #require(plugin.create("TweenPerformer", for: context).0)
        let second = try #require(plugin.create("TweenPerformer", for: context).0)
        defer { [first, second].forEach(plugin.destroy) }
        #expect(plugin.add(#"{"type":"Tween","property":"x","from":[0],"to":[100],"duration":1,"timing":"linear"}"#, to: first).0 == MOTION_OK)
        plugin.updateMany([first], index: 0, time: 0, delta: 0)
        #expect(plugin.add(#"{"type":"Tween","property":"x","to":[500],"duration":1,"timing":"linear"}"#, to: second).0 == MOTION_OK)
        plugin.updateMany([first, second], index: 1, time: 0.5, delta: 0.5)
        // The second started from the first's queued 50 (from the stale 0 it would have written 0).
        #expect(context.value("x") == [50])
        plugin.updateMany([first, second], index: 2, time: 1, delta: 0.5)
        #expect(context.value("x") == [275])  // 50 + (500 - 50) * 0.5, written after the first's 100
    }

    @Test("update_many of some of the performers sharing a batch moves only their tweens; the others wait untouched")
    func updateManyOfSomeMembers() throws {
        // Both performers are created on this thread, so their tweens share one TweenBatch; the host updates the
        // second only from t = 1 (as a performer of another scheduler, or of a later run, would be).
        let contexts = [FakeContext(target: "some-0"), FakeContext(target: "some-1")]
        let performers = try contexts.map { context in try #require(plugin.create("TweenPerformer", for: context).0) }
        defer { performers.forEach(plugin.destroy) }
        for performer in performers {
            let plan = #"{"type":"Tween","property":"x","from":[0],"to":[10],"duration":1,"timing":"linear"}"#
            #expect(plugin.add(plan, to: performer).0 == MOTION_OK)
        }
        plugin.updateMany([performers[0]], index: 0, time: 0, delta: 0)
        plugin.updateMany([performers[0]], index: 1, time: 0.5, delta: 0.5)
        #expect(contexts.map { $0.value("x") } == [[5], nil])
        // The second's tween starts at its first frame, t = 1.
        plugin.updateMany(performers, index: 2, time: 1, delta: 0.5)
        #expect(contexts.map { $0.value("x") } == [[10], [0]])
        #expect(contexts.map(\.activeTokenCount) == [0, 1])
        plugin.updateMany([performers[1]], index: 3, time: 1.5, delta: 0.5)
        #expect(contexts.map { $0.value("x") } == [[10], [5]])
        plugin.updateMany([performers[1]], index: 4, time: 2, delta: 0.5)
        #expect(contexts.map { $0.value("x") } == [[10], [10]])
        #expect(contexts.map(\.activeTokenCount) == [0, 0])
    }

    @Test("update_many with one member twice and another left out moves the given member once and leaves the other untouched")
    func updateManyWithARepeatedMember() throws {
        // The run's count equals the batch's running members (2), but the run is not them: counting alone took the
        // pass over every tween and moved the second.
        let contexts = [FakeContext(target: "twice-0"), FakeContext(target: "twice-1")]
        let performers = try contexts.map { context in try #require(plugin.create("TweenPerformer", for: context).0) }
        defer { performers.forEach(plugin.destroy) }
        for performer in performers {
            let plan = #"{"type":"Tween","property":"x","from":[0],"to":[10],"duration":1,"timing":"linear"}"#
            #expect(plugin.add(plan, to: performer).0 == MOTION_OK)
        }
        plugin.updateMany(performers, index: 0, time: 0, delta: 0)
        plugin.updateMany([performers[0], performers[0]], index: 1, time: 0.5, delta: 0.5)
        #expect(contexts.map { $0.value("x") } == [[5], [0]])
        plugin.updateMany(performers, index: 2, time: 0.75, delta: 0.25)
        #expect(contexts.map { $0.value("x") } == [[7.5], [7.5]])
        #expect(contexts.map(\.activeTokenCount) == [1, 1])
    }

    @Test("A member that joins after an update_many of some members is advanced by the next such update")
    func memberJoiningAfterARunOfSome() throws {
        // A run of some of the members stamps them in a table the batch fills only for such runs: the third
        // performer joins after one, and the next run of some must stamp it too.
        let contexts = (0..<3).map { FakeContext(target: "late-\($0)") }
        let plan = #"{"type":"Tween","property":"x","from":[0],"to":[10],"duration":1,"timing":"linear"}"#
        let first = try #require(plugin.create("TweenPerformer", for: contexts[0]).0)
        let second = try #require(plugin.create("TweenPerformer", for: contexts[1]).0)
        #expect(plugin.add(plan, to: first).0 == MOTION_OK)
        #expect(plugin.add(plan, to: second).0 == MOTION_OK)
        plugin.updateMany([first], index: 0, time: 0, delta: 0)
        let third = try #require(plugin.create("TweenPerformer", for: contexts[2]).0)
        defer { [first, second, third].forEach(plugin.destroy) }
        #expect(plugin.add(plan, to: third).0 == MOTION_OK)
        plugin.updateMany([first, third], index: 1, time: 0.5, delta: 0.5)
        plugin.updateMany([first, third], index: 2, time: 1, delta: 0.5)
        // The third started at t = 0.5, the second has not had a frame.
        #expect(contexts.map { $0.value("x") } == [[10], nil, [5]])
        #expect(contexts.map(\.activeTokenCount) == [0, 1, 1])
    }

    @Test("A destroyed performer's running tweens leave the shared batch; a new performer reuses its number")
    func destroyedMemberLeavesBatch() throws {
        let contexts = [FakeContext(target: "leave-0"), FakeContext(target: "leave-1"), FakeContext(target: "leave-2")]
        let first = try #require(plugin.create("TweenPerformer", for: contexts[0]).0)
        let second = try #require(plugin.create("TweenPerformer", for: contexts[1]).0)
        let plan = #"{"type":"Tween","property":"x","from":[0],"to":[10],"duration":1,"timing":"linear"}"#
        #expect(plugin.add(plan, to: first).0 == MOTION_OK)
        #expect(plugin.add(plan, to: second).0 == MOTION_OK)
        plugin.updateMany([first, second], index: 0, time: 0, delta: 0)
        plugin.destroy(first)
        #expect(contexts[0].activeTokenCount == 0)
        // The third takes the first's number: none of the first's tweens may move it.
        let third = try #require(plugin.create("TweenPerformer", for: contexts[2]).0)
        defer { [second, third].forEach(plugin.destroy) }
        #expect(plugin.add(#"{"type":"Tween","property":"y","from":[0],"to":[4],"duration":1,"timing":"linear"}"#, to: third).0 == MOTION_OK)
        plugin.updateMany([second, third], index: 1, time: 0.5, delta: 0.5)
        #expect(contexts.map { $0.value("x") } == [[0], [5], nil])
        #expect(contexts[2].value("y") == [0])
        plugin.updateMany([second, third], index: 2, time: 1, delta: 0.5)
        #expect(contexts[1].value("x") == [10])
        #expect(contexts[2].value("y") == [2])
        #expect(contexts.map(\.activeTokenCount) == [0, 0, 1])
    }

    @Test("update_many groups a batch's members in any order, with reused numbers, and stops at a performer of another class")
    func updateManyGroupsMembersOutOfOrder() throws {
        // The SDK finds where a run of a batch's members ends from its table of members by number; here the host's
        // order is not the numbers' order (t3 takes t1's freed number) and a Spring follows the Tweens.
        let contexts = (0..<4).map { FakeContext(target: "group-\($0)") }
        let spring = FakeContext(target: "group-spring")
        spring.setValue([0], for: "x")
        let t0 = try #require(plugin.create("TweenPerformer", for: contexts[0]).0)
        let t1 = try #require(plugin.create("TweenPerformer", for: contexts[1]).0)
        let t2 = try #require(plugin.create("TweenPerformer", for: contexts[2]).0)
        plugin.destroy(t1)
        let t3 = try #require(plugin.create("TweenPerformer", for: contexts[3]).0)
        let s = try #require(plugin.create("SpringPerformer", for: spring).0)
        defer { [t0, t2, t3, s].forEach(plugin.destroy) }
        for (index, performer) in [t0, t2, t3].enumerated() {
            let plan = #"{"type":"Tween","property":"x","from":[0],"to":[\#(10 * (index + 1))],"duration":1,"timing":"linear"}"#
            #expect(plugin.add(plan, to: performer).0 == MOTION_OK)
        }
        #expect(plugin.add(#"{"type":"SpringTo","property":"x","destination":[100]}"#, to: s).0 == MOTION_OK)
        plugin.updateMany([t2, t0, s, t3], index: 0, time: 0, delta: 0)
        plugin.updateMany([t0, t2, t3, s], index: 1, time: 0.5, delta: 0.5)
        // Each Tween moved once per frame (a member missed or updated twice would be off), t1 never wrote.
        #expect(contexts.map { $0.value("x") } == [[5], nil, [10], [15]])
        #expect((spring.value("x")?.first ?? 0) > 0)
        plugin.updateMany([s, t3, t2, t0], index: 2, time: 1, delta: 0.5)
        #expect(contexts.map { $0.value("x") } == [[10], nil, [20], [30]])
        #expect(contexts.map(\.activeTokenCount) == [0, 0, 0, 0])
    }

    @Test("A named removal and a replacing tween stop their own tween by its handle; the batch's others run on")
    func namedRemovalAndReplacementInASharedBatch() throws {
        let contexts = [FakeContext(target: "own-0"), FakeContext(target: "own-1")]
        let performers = try contexts.map { context in try #require(plugin.create("TweenPerformer", for: context).0) }
        defer { performers.forEach(plugin.destroy) }
        let x = #"{"type":"Tween","property":"x","from":[0],"to":[10],"duration":1,"timing":"linear"}"#
        #expect(plugin.add(x, named: "slide", to: performers[0]).0 == MOTION_OK)
        #expect(plugin.add(#"{"type":"Tween","property":"y","from":[0],"to":[4],"duration":1,"timing":"linear"}"#, to: performers[0]).0 == MOTION_OK)
        #expect(plugin.add(x, to: performers[1]).0 == MOTION_OK)
        plugin.updateMany(performers, index: 0, time: 0, delta: 0)
        #expect(plugin.removePlan(named: "slide", from: performers[0]) == MOTION_OK)
        // The second's x is replaced: the new tween starts at its first frame, t = 0.5.
        #expect(
            plugin.add(#"{"type":"Tween","property":"x","from":[100],"to":[200],"duration":1,"timing":"linear"}"#, to: performers[1]).0 == MOTION_OK)
        plugin.updateMany(performers, index: 1, time: 0.5, delta: 0.5)
        #expect(contexts.map { $0.value("x") } == [[0], [100]])
        #expect(contexts[0].value("y") == [2])
        plugin.updateMany(performers, index: 2, time: 1, delta: 0.5)
        #expect(contexts.map { $0.value("x") } == [[0], [150]])
        #expect(contexts[0].value("y") == [4])
        #expect(contexts.map(\.activeTokenCount) == [0, 1])
        plugin.updateMany([performers[1]], index: 3, time: 1.5, delta: 0.5)
        #expect(contexts[1].value("x") == [200])
        #expect(contexts.map(\.activeTokenCount) == [0, 0])
    }
}
