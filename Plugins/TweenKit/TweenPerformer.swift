import MotionAnimation
import MotionPluginKit

/// Performs `Tween`s: any number of properties of one target at once, one tween per property (a new
/// tween on a property replaces the running one). Holds one is-active token while any tween runs.
///
/// The tweens themselves are values in MotionAnimation's `TweenAnimations` (the frame arithmetic the
/// benchmark's in-process Tween shares), keyed by the property's slot and id (``key(_:)``), so a frame
/// writes through the slot with no lookup; what the frame does not need (the property's name for messages,
/// the plan's name) waits in `plans`.
final class TweenPerformer: SinglePlanPerformer, FrameUpdating {
    /// What a running tween's messages and named removal need, by the tween's key.
    private struct PlanInfo {
        let key: Int64
        let propertyName: String
        let name: String?
    }

    private let context: PerformerContext
    private let animations = TweenAnimations()
    private var plans: [PlanInfo] = []
    private var token = ActivityToken()

    init(context: PerformerContext) {
        self.context = context
    }

    deinit {
        token.release(context)
    }

    func removePlan(named name: String) throws {
        let keys = plans.filter { $0.name == name }.map(\.key)
        guard !keys.isEmpty else { return }
        animations.removeAll { keys.contains($0) }
        forgetFinishedPlans()
        if animations.isEmpty { token.release(context) }
    }

    func perform(_ tween: Tween, named name: String?) throws {
        let curve = try tween.validatedCurve()
        // A property a running tween moves already has its id and slot (stable for the run): no host calls.
        let knownIndex = plans.firstIndex { $0.propertyName == tween.property }
        let known = knownIndex.map { plans[$0].key }
        let property = try known.map { Self.slot($0).property } ?? context.propertyID(named: tween.property)
        // A vector of another length than the property's is a mistake in the plan, not a new shape for it.
        if let count = try? context.componentCount(of: property), count != tween.to.count {
            throw PluginError.invalidPlan(
                field: "to", "has \(tween.to.count) components but \(tween.property) has \(count). To fix, give it \(count)")
        }
        let key = try known ?? Self.key(context.slot(for: property))
        animations.add(key: key, curve: curve, from: tween.from, to: tween.to, duration: tween.duration, delay: tween.delay)
        // One entry per key (a key stands for one property): the replaced tween's, or a new one.
        let info = PlanInfo(key: key, propertyName: tween.property, name: name)
        if let knownIndex { plans[knownIndex] = info } else { plans.append(info) }
        token.hold(context)
    }

    func update(frame: Frame) {
        let running = animations.count
        let context = self.context
        animations.advance(to: frame.time) { key in
            self.startValue(key)
        } write: { key, value in
            do {
                if value.count == 1 {
                    try context.setValue(value.c0, at: Self.slot(key))
                } else {
                    try context.setValue(value.array, at: Self.slot(key))
                }
                return true
            } catch {
                self.writeFailed(key, error)
                return false
            }
        }
        if animations.count < running { forgetFinishedPlans() }
        if animations.isEmpty { token.release(context) }
    }

    /// The property's value when a tween without `from` starts (after its delay).
    private func startValue(_ key: Int64) -> [Double]? {
        let current = try? context.value(of: Self.slot(key).property)
        if let current, let info = plans.first(where: { $0.key == key }),
            let count = animations.componentCount(key: key), current.count != count
        {
            context.log(
                .warning,
                "Tween on \(info.propertyName): the property has \(current.count) components, \"to\" has \(count); jumping to \"to\".")
        }
        return current
    }

    /// Logs a write the host refused (the tween stops).
    private func writeFailed(_ key: Int64, _ error: any Error) {
        let name = plans.first { $0.key == key }?.propertyName ?? "property \(Self.slot(key).property.rawValue)"
        context.log(.error, "Tween on \(name) stopped: \(error)")
    }

    /// A tween's key: its property's slot (-1 from a host without slots) and id, in one number.
    private static func key(_ slot: PropertySlot) -> Int64 {
        Int64(slot.rawValue) << 32 | Int64(UInt32(bitPattern: slot.property.rawValue))
    }

    private static func slot(_ key: Int64) -> PropertySlot {
        PropertySlot(
            rawValue: Int32(truncatingIfNeeded: key >> 32), property: PropertyID(rawValue: Int32(truncatingIfNeeded: key)))
    }

    private func forgetFinishedPlans() {
        let running = Set(animations.keys)
        plans.removeAll { !running.contains($0.key) }
    }
}
