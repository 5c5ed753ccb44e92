import MotionPluginKit

/// Performs `FadeIn` and `FadeOut` by composition: each emits a `Tween` on "opacity" to its own target,
/// which the host hands to that target's `TweenPerformer` before `add` returns.
final class FadePerformer: PluginPerformer {
    static let planTypes: [any PluginPlan.Type] = [FadeIn.self, FadeOut.self]

    private let context: PerformerContext

    init(context: PerformerContext) {
        self.context = context
    }

    func add(_ plan: any PluginPlan) throws {
        let tween: Tween
        switch plan {
        case let fade as FadeIn:
            tween = Tween(
                property: "opacity", from: [0], to: [1], duration: fade.duration, delay: fade.delay, timing: fade.timing
            )
        case let fade as FadeOut:
            tween = Tween(property: "opacity", to: [0], duration: fade.duration, delay: fade.delay, timing: fade.timing)
        default:
            throw PluginError(.unknownPlanType, "FadePerformer performs only FadeIn and FadeOut.", field: "type")
        }
        _ = try tween.validatedCurve()
        try context.emit(tween)
    }
}
