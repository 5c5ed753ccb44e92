import MotionAnimation
import MotionPluginKit

/// Performs `Tween`s: any number of properties of one target at once, one tween per property (a new
/// tween on a property replaces the running one). Holds one is-active token while any of its tweens runs.
///
/// Laid out for the frame loop: the performers created on one scheduler thread are members of one
/// ``TweenBatch`` (the SDK's `FrameBatch`), which keeps every member's tweens as values in one MotionAnimation
/// `TweenAnimations` (the frame arithmetic the benchmark's in-process Tween shares), keyed by the member's number
/// and the property's slot (``TweenBatch/key(member:slot:)``). A frame advances a run of members in one pass over
/// that buffer and queues the writes straight into the SDK's `set_slots` batch; a performer object is read by a
/// frame only when one of its tweens starts (without `from`) or stops. What the frame does not need (the
/// property's name for messages, the plan's name, each running tween's handle and component count) waits in
/// `plans`, so that stopping this performer's tweens (a named removal, a replacing tween, its destruction) takes
/// their handles from there and never scans the shared buffer.
final class TweenPerformer: SinglePlanPerformer, BatchedFrameUpdating {
    /// A property this performer has tweened while it runs: what its messages, named removal and a
    /// replacing tween need (its tween's key is ``TweenBatch/key(member:slot:)`` of its slot). 32 bytes.
    fileprivate struct PlanInfo {
        let slot: PropertySlot
        /// The running tween's handle in the batch's `TweenAnimations` (its `rawValue`), -1 once it has stopped.
        var handle: Int32
        /// The running tween's number of components (its `to`'s).
        var componentCount: Int32
        let propertyName: String

        var runningHandle: TweenHandle? { handle >= 0 ? TweenHandle(rawValue: handle) : nil }
    }

    /// The properties this performer tweens, with their plans' names. The first is inline in the performer, so
    /// that a performer of one property by an unnamed plan (the usual Tween) owns no other heap block; more
    /// properties and any name go to a ``Spill``, made when first needed.
    fileprivate struct PlanInfos: RandomAccessCollection, MutableCollection {
        /// What a performer rarely needs: its properties after the first and its plans' names (by index).
        final class Spill {
            var rest: [PlanInfo] = []
            var names: [Int: String] = [:]
        }

        /// The first, `nil` only when there is none (and then no spill).
        private var head: PlanInfo?
        private var spill: Spill?

        var startIndex: Int { 0 }
        var endIndex: Int { head == nil ? 0 : 1 + (spill?.rest.count ?? 0) }

        subscript(index: Int) -> PlanInfo {
            get { index == 0 ? head.unsafelyUnwrapped : spill.unsafelyUnwrapped.rest[index - 1] }
            set {
                if index == 0 { head = newValue } else { spill.unsafelyUnwrapped.rest[index - 1] = newValue }
            }
        }

        /// The name of the plan that tweens the property at `index`, `nil` for an unnamed plan.
        func name(at index: Int) -> String? { spill?.names[index] }

        mutating func setName(_ name: String?, at index: Int) {
            guard name != nil || spill != nil else { return }
            spilled().names[index] = name
        }

        mutating func append(_ info: PlanInfo, named name: String?) {
            if head == nil { head = info } else { spilled().rest.append(info) }
            setName(name, at: endIndex - 1)
        }

        mutating func removeAll() {
            head = nil
            spill = nil
        }

        private mutating func spilled() -> Spill {
            if let spill { return spill }
            let new = Spill()
            spill = new
            return new
        }
    }

    let frameBatch: TweenBatch
    fileprivate let context: PerformerContext
    /// The performer's number in its batch (the high half of its tweens' keys).
    fileprivate private(set) var member: Int32 = -1
    @exclusivity(unchecked) fileprivate var runningCount: Int32 = 0
    @exclusivity(unchecked) fileprivate var token = ActivityToken()
    @exclusivity(unchecked) fileprivate var plans = PlanInfos()

    init(context: PerformerContext) {
        self.context = context
        frameBatch = context.sharedFrameBatch { TweenBatch() }
        member = frameBatch.join(self)
    }

    deinit {
        token.release(context)
        frameBatch.leave(self)
    }

    func removePlan(named name: String) throws {
        var removed: Int32 = 0
        for index in plans.indices where plans.name(at: index) == name {
            guard let handle = plans[index].runningHandle else { continue }
            frameBatch.animations.remove(handle)
            plans[index].handle = -1
            removed += 1
        }
        guard removed > 0 else { return }
        runningCount -= removed
        if runningCount == 0 { stopRunning() }
    }

    func perform(_ tween: Tween, named name: String?) throws {
        let curve = try tween.validatedCurve()
        // A property this performer tweens already has its slot (stable for the run): no host calls.
        let known = plans.firstIndex { $0.propertyName == tween.property }
        let property = try known.map { plans[$0].slot.property } ?? context.propertyID(named: tween.property)
        // A vector of another length than the property's is a mistake in the plan, not a new shape for it.
        if let count = try? context.componentCount(of: property), count != tween.to.count {
            throw PluginError.invalidPlan(
                field: "to", "has \(tween.to.count) components but \(tween.property) has \(count). To fix, give it \(count)")
        }
        let slot = try known.map { plans[$0].slot } ?? context.slot(for: property)
        let key = TweenBatch.key(member: member, slot: slot)
        // The running tween this one replaces, stopped by its handle (no scan of the shared buffer).
        let replaced = known.flatMap { plans[$0].runningHandle }
        if let replaced { frameBatch.animations.remove(replaced) }
        let handle = frameBatch.animations.add(
            key: key, curve: curve, from: tween.from, to: tween.to, duration: tween.duration, delay: tween.delay,
            replacingExisting: false)
        // `to` has 1 to 4 components (`validatedCurve` and the component check above).
        let componentCount = Int32(truncatingIfNeeded: tween.to.count)
        if let known {
            plans.setName(name, at: known)
            plans[known].handle = handle.rawValue
            plans[known].componentCount = componentCount
        } else {
            plans.append(
                PlanInfo(slot: slot, handle: handle.rawValue, componentCount: componentCount, propertyName: tween.property), named: name)
        }
        if replaced == nil {
            runningCount += 1
            if runningCount == 1 { frameBatch.runningMembers += 1 }
        }
        token.hold(context)
    }

    /// The property's value when a tween without `from` starts (after its delay).
    fileprivate func startValue(_ key: Int64) -> [Double]? {
        guard let info = info(ofKey: key) else { return nil }
        let current = try? context.value(of: info.slot.property)
        if let current, current.count != Int(info.componentCount) {
            context.log(
                .warning,
                "Tween on \(info.propertyName): the property has \(current.count) components, \"to\" has \(info.componentCount); jumping to \"to\".")
        }
        return current
    }

    /// A write the batch's writer could not queue, made through this performer's context; `false` (and logged)
    /// when the host refused it (the tween stops).
    fileprivate func write(_ key: Int64, _ value: Components) -> Bool {
        guard let info = info(ofKey: key) else { return false }
        do {
            if value.count == 1 {
                try context.setValue(value.c0, at: info.slot)
            } else {
                try context.setValue(value.array, at: info.slot)
            }
            return true
        } catch {
            context.log(.error, "Tween on \(info.propertyName) stopped: \(error)")
            return false
        }
    }

    /// One of this performer's tweens stopped in a frame (its handle is free now); `true` when it was the last.
    fileprivate func tweenStopped(_ key: Int64) -> Bool {
        if let index = plans.firstIndex(where: { TweenBatch.key(member: member, slot: $0.slot) == key }) { plans[index].handle = -1 }
        runningCount -= 1
        return runningCount == 0
    }

    /// The property whose tween has key `key`.
    private func info(ofKey key: Int64) -> PlanInfo? {
        plans.first { TweenBatch.key(member: member, slot: $0.slot) == key }
    }

    /// The last tween stopped: the token ends (R5–R7) and the finished plans are forgotten.
    fileprivate func stopRunning() {
        frameBatch.runningMembers -= 1
        plans.removeAll()
        token.release(context)
    }
}

/// The tweens of every ``TweenPerformer`` created on one scheduler thread, and their frames: one pass over one
/// buffer per run of members the host updates together.
///
/// Each update advances exactly the tweens of the members it is handed (`motion_frames_v1.update_many`): when
/// those are all the members with a running tween, each once (as many as run one, and the SDK found the run as one
/// stretch of member numbers, ``FrameBatchMembers/hasDistinctMembers``; every member that runs one holds a token,
/// and the host updates each performer that holds one), the pass takes every tween; otherwise (another
/// scheduler's members share the thread, the host splits a frame into runs, or its order jumps between numbers)
/// it first stamps the run's members and skips the tweens of the others, which keep their state untouched. Tokens of members whose last tween stopped end after
/// the pass, in order, once the pass's writes have been handed to the host.
///
/// What costs per member or per tween, whatever the buffer holds: joining (a number, reused), leaving (its
/// running tweens removed by handle, each in constant time; their records are dropped by the next pass), a
/// tween's start, replacement and stop. A number a member leaves is given out again only once the buffer holds
/// no removed record (every record of the member that had it has been dropped).
final class TweenBatch: FrameBatch {
    let animations = TweenAnimations()
    /// The members by number (`nil`: a number free for reuse), unretained: a member leaves in its `deinit`.
    @exclusivity(unchecked) private var members: ContiguousArray<Unmanaged<TweenPerformer>?> = []
    /// Numbers free for a new member.
    @exclusivity(unchecked) private var freeNumbers: [Int32] = []
    /// Numbers of members that left, free once `animations` holds no removed record.
    @exclusivity(unchecked) private var leftNumbers: [Int32] = []
    /// How many members run at least one tween.
    @exclusivity(unchecked) fileprivate var runningMembers = 0
    /// Per member, the serial of the last update that included it (for a run of some of the members); filled up to
    /// the members' count by such a run only, so that a batch whose runs are all of its running members keeps no
    /// 8 bytes per member.
    @exclusivity(unchecked) private var stamps: ContiguousArray<UInt64> = []
    @exclusivity(unchecked) private var serial: UInt64 = 0
    /// Members whose last tween stopped in the current pass.
    @exclusivity(unchecked) private var stopped: ContiguousArray<Int32> = []

    /// A number for a new member.
    fileprivate func join(_ performer: TweenPerformer) -> Int32 {
        if !leftNumbers.isEmpty, animations.hasNoRemovedRecords {
            freeNumbers.append(contentsOf: leftNumbers)
            leftNumbers.removeAll(keepingCapacity: true)
        }
        if let free = freeNumbers.popLast() {
            members[Int(free)] = Unmanaged.passUnretained(performer)
            return free
        }
        precondition(members.count < Int(Int32.max), "a TweenBatch has at most 2^31 - 1 members")
        members.append(Unmanaged.passUnretained(performer))
        return Int32(members.count - 1)
    }

    /// A member is destroyed (its token has ended): its running tweens are removed by handle, and its number is
    /// free once their records have been dropped.
    fileprivate func leave(_ performer: TweenPerformer) {
        let member = performer.member
        if performer.runningCount > 0 {
            for info in performer.plans {
                if let handle = info.runningHandle { animations.remove(handle) }
            }
            runningMembers -= 1
        }
        members[Int(member)] = nil
        leftNumbers.append(member)
    }

    func update(_ run: FrameBatchMembers<TweenPerformer>, frame: Frame, writer: FrameBatchWriter) {
        // Every running member, each once: the run's count alone would also match a run that repeats one member and
        // leaves out another.
        if run.count == runningMembers, run.hasDistinctMembers {
            advance(to: frame, writer) { _ in true }
        } else {
            serial &+= 1
            if stamps.count < members.count { stamps.append(contentsOf: repeatElement(0, count: members.count - stamps.count)) }
            var isRepeated = false
            for performer in run {
                let member = Int(performer.member)
                if stamps[member] == serial { isRepeated = true }
                stamps[member] = serial
            }
            if run.count == runningMembers, !isRepeated {
                // Every running member after all, each once (the SDK could not tell, its order jumping between numbers:
                // reused ones, after performers went): the pass needs no test per tween.
                advance(to: frame, writer) { _ in true }
            } else {
                let serial = self.serial
                stamps.withUnsafeBufferPointer { stamps in
                    advance(to: frame, writer) { key in stamps[Self.member(ofKey: key)] == serial }
                }
            }
        }
        guard !stopped.isEmpty else { return }
        for member in stopped { members[Int(member)]?._withUnsafeGuaranteedRef { $0.stopRunning() } }
        stopped.removeAll(keepingCapacity: true)
    }

    /// One pass over the buffer for the tweens whose key `isIncluded` (inlined twice: for every member, with no
    /// test per tween, and for some).
    @inline(__always)
    private func advance(to frame: Frame, _ writer: FrameBatchWriter, where isIncluded: (Int64) -> Bool) {
        // What runs per tween per frame is the curve and the queued write; what runs once per tween (its start
        // value, a write the writer cannot queue, its end) is out of line, where it costs the loop nothing
        // (inlined, the member lookups measured as 20 instructions a tween a frame).
        animations.advance(to: frame.time, where: isIncluded) { key in
            self.startValue(key)
        } write: { key, value in
            let slot = PropertySlot(rawValue: Int32(truncatingIfNeeded: key), property: PropertyID(rawValue: -1))
            if value.count == 1
                ? writer.queue(value.c0, at: slot) : writer.queue((value.c0, value.c1, value.c2, value.c3), count: value.count, at: slot)
            {
                return true
            }
            // The value as scalars: passed in registers, so that the loop does not build it in memory for a call
            // it almost never makes (6 instructions a tween a frame, callgrind).
            return self.writeThroughMember(key, value.count, value.c0, value.c1, value.c2, value.c3)
        } finished: { key in
            self.tweenStopped(key)
        }
    }

    @inline(never)
    private func startValue(_ key: Int64) -> [Double]? {
        members[Self.member(ofKey: key)]?._withUnsafeGuaranteedRef { $0.startValue(key) }
    }

    @inline(never)
    private func writeThroughMember(_ key: Int64, _ count: Int, _ c0: Double, _ c1: Double, _ c2: Double, _ c3: Double) -> Bool {
        let value = Components(Array([c0, c1, c2, c3].prefix(count)))
        return members[Self.member(ofKey: key)]?._withUnsafeGuaranteedRef { $0.write(key, value) } ?? false
    }

    @inline(never)
    private func tweenStopped(_ key: Int64) {
        let member = Self.member(ofKey: key)
        if members[member]?._withUnsafeGuaranteedRef({ $0.tweenStopped(key) }) == true { stopped.append(Int32(member)) }
    }

    /// A tween's key: its member's number, and its property's slot (from a host without slots, ABI < 1.3, the
    /// property's id with bit 31 set, so that the key still names one property and the writer never queues it).
    static func key(member: Int32, slot: PropertySlot) -> Int64 {
        let low = slot.rawValue >= 0 ? UInt32(bitPattern: slot.rawValue) : 0x8000_0000 | UInt32(bitPattern: slot.property.rawValue)
        return Int64(member) << 32 | Int64(low)
    }

    static func member(ofKey key: Int64) -> Int { Int(key >> 32) }
}
