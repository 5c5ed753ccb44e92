import MotionAnimation
import MotionCore

/// The `Tween` performer of TweenKit (Plugins/TweenKit/TweenPerformer.swift) as a MotionCore performer
/// compiled into the host: the same frame arithmetic (MotionAnimation's `TweenAnimations`, which TweenKit's
/// performer uses too), fields, timing curves and token handling. Only reading the plan, the property and the
/// token is written here.
///
/// Laid out for the frame loop: the performers of one scene are members of one ``InProcessTweenBatch``, which
/// keeps every member's tweens as values in one flat `TweenAnimations` (each tween's key is its member's
/// number and its property's slot, resolved when the plan arrives). A frame advances them in one pass over
/// that buffer; a performer object holds only what its plans and its token need (a 56-byte object, a
/// 64-byte heap block: its batch, number, count of running tweens, token generator and token id; its target
/// is in its batch's member list), and is not read by a frame. It takes its token by id
/// (`IsActiveTokenGenerator.generateID()`), which saves a 48-byte token object per performer. The tweens run in the order they were added, where TweenKit runs each performer's
/// in turn: the same order whenever each performer has one tween at a time (as in every benchmark here).
final class InProcessTweenPerformer: BatchedFrameUpdating {
    private unowned(unsafe) let batch: InProcessTweenBatch
    /// The performer's number in its batch (the high half of its tweens' keys).
    private let member: Int32
    private var runningCount: Int32 = 0
    private var generator: IsActiveTokenGenerator?
    /// The id of the token it holds while it runs tweens, or 0.
    private var tokenID: UInt64 = 0

    /// A performer of `batch`, which registers it with its target.
    fileprivate init(batch: InProcessTweenBatch, member: Int32) {
        self.batch = batch
        self.member = member
    }

    var frameBatch: (any FrameBatch)? { batch }
    var frameBatchMember: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }

    func setIsActiveTokenGenerator(_ generator: IsActiveTokenGenerator) { self.generator = generator }

    /// Advances the batch's frame (once per frame, whichever member is asked first).
    func update(frame: Frame) { batch.update(UnsafeBufferPointer(start: nil, count: 0), frame: frame) }

    func addPlan(_ plan: Plan) throws {
        guard let property = plan["property"]?.string, let to = plan["to"]?.array?.compactMap(\.number), (1...4).contains(to.count)
        else {
            throw BenchmarkError("Tween needs \"property\" and \"to\" (1 to 4 numbers)")
        }
        let from = plan["from"]?.array?.compactMap(\.number)
        guard from == nil || from?.count == to.count else { throw BenchmarkError("Tween's \"from\" must match \"to\"") }
        let curve = try TimingCurve(named: plan["timing"]?.string ?? "easeInOut")
        let target = batch.target(of: member)
        let slot = target.slot(for: target.scene.propertyID(property))
        let key = Int64(member) << 32 | Int64(slot.rawValue)
        // One tween per property: a new plan replaces a running one (found by a scan, only when this performer
        // runs any).
        let replaces = runningCount > 0 && batch.animations.componentCount(key: key) != nil
        batch.animations.add(
            key: key, curve: curve, from: from, to: to, duration: plan["duration"]?.number ?? 0.3, delay: plan["delay"]?.number ?? 0,
            replacingExisting: replaces)
        if !replaces { runningCount += 1 }
        if tokenID == 0 { tokenID = generator?.generateID() ?? 0 }
    }

    /// One of this performer's tweens finished (called by its batch's frame).
    fileprivate func tweenFinished() {
        runningCount -= 1
        if runningCount == 0, tokenID != 0 {
            defer { tokenID = 0 }
            try? generator?.terminate(tokenID: tokenID)
        }
    }

    static func member(ofKey key: Int64) -> Int { Int(key >> 32) }
    static func slot(ofKey key: Int64) -> PropertySlot { PropertySlot(rawValue: Int32(truncatingIfNeeded: key)) }
}

/// The tweens of every ``InProcessTweenPerformer`` of one scene, and their frame: one pass over one buffer per
/// frame, whatever runs of members the scheduler hands over (the first call of a frame advances them all; a
/// member holds a token exactly while it has tweens here, so the scheduler's members are these tweens' owners).
final class InProcessTweenBatch: FrameBatch {
    let scene: Scene
    let animations = TweenAnimations()
    /// The members by number, with their targets, unretained: the scheduler keeps its performers for its
    /// life, the scene its targets, and this batch is its performers' (a performer holds it unowned; the
    /// registry's factory holds it).
    private var members: ContiguousArray<(performer: Unmanaged<InProcessTweenPerformer>, target: Unmanaged<Target>)> = []
    private var lastFrameIndex = -1

    init(scene: Scene) { self.scene = scene }

    /// A new member on `target`.
    fileprivate func makeMember(target: Target) -> InProcessTweenPerformer {
        let performer = InProcessTweenPerformer(batch: self, member: Int32(members.count))
        // Grown by half, not doubled (as MotionCore grows its per-performer arrays).
        if members.count == members.capacity { members.reserveCapacity(max(16, members.count + members.count / 2)) }
        members.append((Unmanaged.passUnretained(performer), Unmanaged.passUnretained(target)))
        return performer
    }

    /// The target of member `member`.
    fileprivate func target(of member: Int32) -> Target { members[Int(member)].target.takeUnretainedValue() }

    func update(_ members: UnsafeBufferPointer<OpaquePointer>, frame: Frame) {
        guard frame.index != lastFrameIndex else { return }
        lastFrameIndex = frame.index
        let scene = self.scene
        self.members.withUnsafeBufferPointer { performers in
            animations.advance(to: frame.time) { key in
                scene.value(at: InProcessTweenPerformer.slot(ofKey: key))?.components
            } write: { key, value in
                let slot = InProcessTweenPerformer.slot(ofKey: key)
                if value.count == 1 {
                    scene.setScalar(value.c0, at: slot)
                } else {
                    var vector = PropertyValue(value.c0)
                    for i in 1..<value.count { vector[i] = value[i] }
                    scene.setValue(vector, at: slot)
                }
                return true
            } finished: { key in
                performers[InProcessTweenPerformer.member(ofKey: key)].performer._withUnsafeGuaranteedRef { $0.tweenFinished() }
            }
        }
    }

    /// The in-process `Tween` performer class over one batch per scene (a scheduler's performers share it).
    static func registry() -> InProcessRegistry {
        let registry = InProcessRegistry()
        var batch: InProcessTweenBatch?
        registry.register(planTypes: ["Tween"], className: "TweenPerformer") { context in
            let scene = context.target.scene
            if batch?.scene !== scene { batch = InProcessTweenBatch(scene: scene) }
            return batch!.makeMember(target: context.target)
        }
        return registry
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
