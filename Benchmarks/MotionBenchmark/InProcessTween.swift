import MotionAnimation
import MotionCore

/// The `Tween` performer of TweenKit (Plugins/TweenKit/TweenPerformer.swift) as a MotionCore performer
/// compiled into the host: the same frame arithmetic (MotionAnimation's `TweenAnimations`, which TweenKit's
/// performer uses too), fields, timing curves and token handling. Only reading the plan, the property and the
/// token is written here.
///
/// Laid out for the frame loop: one shared performer (MotionCore's `SharedPerformer`) per scene is the `Tween`
/// performer of every target, each a member of it. It keeps every member's tweens as values in one flat
/// `TweenAnimations` (each tween's key is its member's number and its property's slot, resolved when the plan
/// arrives). A frame advances them in one pass over that buffer; a member is 32 bytes of ``members`` (its token
/// generator, the id of the token it holds while it runs tweens, its target's index and its count of running
/// tweens), where a performer object per target took a 64-byte heap block and 16 bytes of a member list. It takes
/// its token by id (`IsActiveTokenGenerator.generateID()`), which saves a 48-byte token object per member. The
/// tweens run in the order they were added, where TweenKit runs each performer's in turn: the same order whenever
/// each member has one tween at a time (as in every benchmark here).
final class InProcessTweenPerformer: FrameUpdatingSharedPerformer {
    /// One member: a target's `Tween` performer (32 bytes).
    private struct Member {
        var generator: IsActiveTokenGenerator
        /// The id of the token it holds while it runs tweens, or 0.
        var tokenID: UInt64 = 0
        /// Its target's index in the scene, or -1 once it was destroyed.
        var target: Int32
        var runningCount: Int32 = 0
    }

    let scene: Scene
    let animations = TweenAnimations()
    /// The members by number (the high half of their tweens' keys). Touched by one call at a time on the
    /// scheduler's thread (a finished tween's member is written by index, not through a pointer held across the
    /// token's end, which may call back into this performer).
    @exclusivity(unchecked) private var members: ContiguousArray<Member> = []
    /// Numbers of destroyed members whose tweens are gone, for new members.
    @exclusivity(unchecked) private var freeMembers: [Int32] = []
    /// Destroyed members whose tweens are still in ``animations``: dropped in one pass before the next frame or
    /// plan (a scan per destroyed member would make a scheduler's teardown quadratic).
    @exclusivity(unchecked) private var destroyedMembers: [Int32] = []
    private var lastFrameIndex = -1

    init(scene: Scene) { self.scene = scene }

    func makeMember(_ context: PerformerContext) throws -> PerformerMember {
        guard context.scene === scene else { throw BenchmarkError("a Tween performer serves the targets of one scene") }
        let member = Member(generator: context.tokenGenerator, target: Int32(context.targetIndex))
        if let free = freeMembers.popLast() {
            members[Int(free)] = member
            return PerformerMember(rawValue: UInt64(free))
        }
        precondition(members.count < Int(Int32.max), "a Tween performer has fewer than 2^31 members")
        // Grown by half, not doubled (as MotionCore grows its per-performer arrays).
        if members.count == members.capacity { members.reserveCapacity(max(16, members.count + members.count / 2)) }
        members.append(member)
        return PerformerMember(rawValue: UInt64(members.count - 1))
    }

    func addPlan(_ plan: Plan, to member: PerformerMember) throws {
        guard let property = plan["property"]?.string, let to = plan["to"]?.array?.compactMap(\.number), (1...4).contains(to.count)
        else {
            throw BenchmarkError("Tween needs \"property\" and \"to\" (1 to 4 numbers)")
        }
        let from = plan["from"]?.array?.compactMap(\.number)
        guard from == nil || from?.count == to.count else { throw BenchmarkError("Tween's \"from\" must match \"to\"") }
        let curve = try TimingCurve(named: plan["timing"]?.string ?? "easeInOut")
        dropDestroyedMembers()
        let number = Int(member.rawValue)
        let slot = scene.slot(for: scene.propertyID(property), ofTargetAt: Int(members[number].target))
        let key = Int64(number) << 32 | Int64(slot.rawValue)
        // One tween per property: a new plan replaces a running one (found by a scan, only when this member
        // runs any).
        let replaces = members[number].runningCount > 0 && animations.componentCount(key: key) != nil
        animations.add(
            key: key, curve: curve, from: from, to: to, duration: plan["duration"]?.number ?? 0.3, delay: plan["delay"]?.number ?? 0,
            replacingExisting: replaces)
        if !replaces { members[number].runningCount += 1 }
        if members[number].tokenID == 0 { members[number].tokenID = members[number].generator.generateID() ?? 0 }
    }

    func destroyMember(_ member: PerformerMember) {
        // Its token was ended by the scheduler (R37): forget it.
        members[Int(member.rawValue)] = Member(generator: members[Int(member.rawValue)].generator, target: -1)
        destroyedMembers.append(Int32(member.rawValue))
    }

    /// Drops the tweens of destroyed members, in one pass, and frees their numbers.
    private func dropDestroyedMembers() {
        guard !destroyedMembers.isEmpty else { return }
        let members = self.members
        animations.removeAll { key in members[Self.member(ofKey: key)].target < 0 }
        freeMembers += destroyedMembers
        destroyedMembers.removeAll()
    }

    /// Advances every member's tweens (once per frame, whichever run of members is handed over first).
    func update(_ members: UnsafeBufferPointer<PerformerMember>, frame: Frame) {
        guard frame.index != lastFrameIndex else { return }
        lastFrameIndex = frame.index
        dropDestroyedMembers()
        let scene = self.scene
        animations.advance(to: frame.time) { key in
            scene.value(at: Self.slot(ofKey: key))?.components
        } write: { key, value in
            let slot = Self.slot(ofKey: key)
            if value.count == 1 {
                scene.setScalar(value.c0, at: slot)
            } else {
                var vector = PropertyValue(value.c0)
                for i in 1..<value.count { vector[i] = value[i] }
                scene.setValue(vector, at: slot)
            }
            return true
        } finished: { key in
            self.tweenFinished(member: Self.member(ofKey: key))
        }
    }

    /// One of member `number`'s tweens finished.
    private func tweenFinished(member number: Int) {
        members[number].runningCount -= 1
        guard members[number].runningCount == 0, members[number].tokenID != 0 else { return }
        let (generator, tokenID) = (members[number].generator, members[number].tokenID)
        members[number].tokenID = 0
        try? generator.terminate(tokenID: tokenID)
    }

    static func member(ofKey key: Int64) -> Int { Int(key >> 32) }
    static func slot(ofKey key: Int64) -> PropertySlot { PropertySlot(rawValue: Int32(truncatingIfNeeded: key)) }

    /// The in-process `Tween` performer class: one shared performer per scene (a scheduler's members share it).
    static func registry() -> InProcessRegistry {
        let registry = InProcessRegistry()
        var shared: InProcessTweenPerformer?
        registry.registerMembers(
            planTypes: ["Tween"], className: "TweenPerformer",
            sharedPerformer: { context in
                let scene = context.scene
                if shared?.scene !== scene { shared = InProcessTweenPerformer(scene: scene) }
                return shared!
            })
        return registry
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
