/// A plan type a plugin performs: a `Codable` value whose JSON is `{"type": <type>, ...fields}`.
///
/// Declare the fields as stored properties; the `"type"` key is handled by the SDK (the synthesized
/// `Codable` ignores it when decoding, and the SDK adds it when encoding for an emission). The manifest
/// must list the same type name and fields: the host validates plans against it and fills defaults in
/// before the plugin sees them, so optional fields with manifest defaults always arrive. The manifest is
/// the one place a default is written: declare such a field without `?` and without a Swift default, and
/// let `Codable` synthesize the decoding (a `?` field is one that may be absent, with no default).
///
/// ```swift
/// struct Tween: PluginPlan {
///     static let type = "Tween"
///     var property: String
///     var to: [Double]
///     var duration: Double
/// }
/// ```
public protocol PluginPlan: Codable, Sendable {
    /// The plan's type name, as in its JSON `"type"` and the manifest's `"plans"[].type`.
    static var type: String { get }
}

/// A performer class of a plugin: created once per target by the host, it receives the plans of
/// the types it lists.
///
/// Every call arrives on the scheduler thread ([scheduler-thread] in `motion_plugin.h`), one at a time,
/// so a performer needs no locks unless it starts threads of its own. Calls may nest: emitting a
/// transaction from `add(_:)` performs it before `emit` returns, which may call into this or another
/// performer of the plugin.
public protocol PluginPerformer: AnyObject, SendableMetatype {
    /// The class name as the manifest's `"performers"[].class` spells it. Default: the Swift type's name.
    static var className: String { get }

    /// The plan types this performer performs (their `type` names must be unique within the class).
    static var planTypes: [any PluginPlan.Type] { get }

    /// Creates the performer for one target.
    /// - Parameter context: the performer's line to the host (emission, tokens, properties, log); keep it.
    /// - Throws: any error refuses creation; a `PluginError` keeps its code, others become
    ///   `MOTION_ERR_INTERNAL`.
    init(context: PerformerContext) throws

    /// Performs a plan (a regular, unnamed add).
    /// - Parameter plan: a decoded value of one of `planTypes`; switch over it with `as`.
    /// - Throws: `PluginError` (its code and message reach the host); `DecodingError` becomes
    ///   `MOTION_ERR_INVALID_PLAN`; anything else `MOTION_ERR_INTERNAL`.
    func add(_ plan: any PluginPlan) throws

    /// Performs a named plan. Default: `add(plan)`.
    /// - Parameters:
    ///   - plan: the decoded plan.
    ///   - name: its name (non-empty, case-sensitive). Re-adding a name is preceded by `removePlan(named:)`.
    /// - Throws: as `add(_:)`.
    func add(_ plan: any PluginPlan, named name: String) throws

    /// Removes a named plan this performer holds. Default: does nothing.
    /// - Parameter name: the plan's name.
    /// - Throws: as `add(_:)`.
    func removePlan(named name: String) throws
}

extension PluginPerformer {
    /// The Swift type's name, e.g. `"TweenPerformer"`.
    public static var className: String { String(describing: self) }

    /// Calls `add(plan)`: by default a named plan is performed like a regular one.
    /// - Parameters:
    ///   - plan: the decoded plan.
    ///   - name: its name.
    /// - Throws: whatever `add(_:)` throws.
    public func add(_ plan: any PluginPlan, named name: String) throws { try add(plan) }

    /// Does nothing: by default removing a named plan has no effect.
    /// - Parameter name: the plan's name.
    public func removePlan(named name: String) throws {}
}

/// A performer of one plan type, which it receives typed: `planTypes`, the cast from `any PluginPlan`
/// and the named add come with it, so the performer writes one method. Every plan of the class reaches
/// `perform(_:named:)`; when the plan type is a `PlanFieldReading` and the host hands plans over by handle, the
/// SDK calls `perform(_:named:)` directly (no `add(_:)` in between), so do not replace `add(_:)` or
/// `add(_:named:)` in such a performer.
///
/// ```swift
/// final class PulsePerformer: SinglePlanPerformer {
///     init(context: PerformerContext) { ... }
///     func perform(_ plan: Pulse, named name: String?) throws { ... }
/// }
/// ```
public protocol SinglePlanPerformer: PluginPerformer {
    /// The plan type; `planTypes` is `[Plan.self]`.
    associatedtype Plan: PluginPlan

    /// Performs a plan.
    /// - Parameters:
    ///   - plan: the decoded plan.
    ///   - name: its name for a named add (`add(_:named:)`), `nil` for a regular add.
    /// - Throws: as `PluginPerformer.add(_:)`.
    func perform(_ plan: Plan, named name: String?) throws

    /// The SDK's own step for a plan by handle (motion/plans.h): builds `Plan` from the fields the host holds and
    /// hands it to `perform(_:named:)`. Do not implement it: the SDK's default does this, and the conformance
    /// compiles it for this class and its plan type, so that a plan read by handle is built and performed with no
    /// generic copies of it in between (about 1,000 instructions a Tween plan otherwise).
    /// - Parameters:
    ///   - fields: the plan's fields, valid during the call.
    ///   - performer: the performer.
    ///   - name: the plan's name for a named add, `nil` for a regular add.
    /// - Returns: `false`, with nothing performed, when `Plan` is not a `PlanFieldReading` type or a field cannot
    ///   be read that way (the SDK then decodes the plan from its JSON).
    /// - Throws: what `init(fields:)` (other than a field it cannot read) or `perform(_:named:)` throws.
    static func _performReading(_ fields: PlanFields, on performer: Self, named name: String?) throws -> Bool
}

extension SinglePlanPerformer {
    /// `false`: this class's plan type is not a `PlanFieldReading` type.
    @inlinable
    public static func _performReading(_ fields: PlanFields, on performer: Self, named name: String?) throws -> Bool { false }
}

extension SinglePlanPerformer where Plan: PlanFieldReading {
    /// Builds the plan from `fields` and performs it; `false` when a field cannot be read from them.
    @inlinable
    public static func _performReading(_ fields: PlanFields, on performer: Self, named name: String?) throws -> Bool {
        let plan: Plan
        do {
            plan = try Plan(fields: fields)
        } catch is PlanFieldsFallback {
            return false
        }
        try performer.perform(plan, named: name)
        return true
    }
}

extension SinglePlanPerformer {
    /// `[Plan.self]`.
    public static var planTypes: [any PluginPlan.Type] { [Plan.self] }

    /// Calls `perform(plan, named: nil)`.
    /// - Parameter plan: a decoded plan (the SDK decodes only `Plan`s for this class).
    /// - Throws: `.unknownPlanType` for a plan of another type; what `perform` throws.
    public func add(_ plan: any PluginPlan) throws { try perform(typed(plan), named: nil) }

    /// Calls `perform(plan, named: name)`.
    /// - Parameters:
    ///   - plan: a decoded plan.
    ///   - name: its name.
    /// - Throws: as `add(_:)`.
    public func add(_ plan: any PluginPlan, named name: String) throws { try perform(typed(plan), named: name) }

    private func typed(_ plan: any PluginPlan) throws(PluginError) -> Plan {
        // The existential opened and its type compared: a dynamic cast (`as? Plan`) cost about 400 instructions
        // a plan.
        func exactly<T: PluginPlan>(_ value: T) -> Plan? {
            guard T.self == Plan.self else { return nil }
            return withUnsafePointer(to: value) { $0.withMemoryRebound(to: Plan.self, capacity: 1) { $0.pointee } }
        }
        guard let plan = exactly(plan) ?? (plan as? Plan) else {
            throw PluginError(
                .unknownPlanType, "\(Self.className) performs only \(Plan.type), not \(type(of: plan).type).", field: "type")
        }
        return plan
    }
}

/// A performer that is updated once per frame while it holds at least one is-active token
/// (the `motion.frames/1` extension).
public protocol FrameUpdating: PluginPerformer {
    /// Advances the performer to `frame`. Set properties here; terminate your token when done.
    /// - Parameter frame: the frame's index, time and delta (s).
    func update(frame: Frame)
}

/// A performer that receives every device-motion sample (the `motion.device-motion/1` extension),
/// whether or not it holds a token.
public protocol DeviceMotionReceiving: PluginPerformer {
    /// Reacts to one sample.
    /// - Parameter sample: the sample, fields as Core Motion's `CMDeviceMotion`.
    func receive(sample: DeviceMotionSample)
}

/// One frame of the host's frame clock (`motion_frame`).
public struct Frame: Hashable, Sendable {
    /// Frame number: 0 for the clock's first frame, then +1 per frame.
    public var index: UInt64
    /// Seconds since the clock started.
    public var time: Double
    /// Seconds since the previous frame (0 on frame 0).
    public var delta: Double

    /// Creates a frame.
    /// - Parameters:
    ///   - index: the frame number.
    ///   - time: s since the clock started.
    ///   - delta: s since the previous frame.
    public init(index: UInt64, time: Double, delta: Double) {
        self.index = index
        self.time = time
        self.delta = delta
    }
}
