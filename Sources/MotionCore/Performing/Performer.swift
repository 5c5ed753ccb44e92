/// An object that fulfils plans of one or more plan types for one target.
///
/// The scheduler creates one performer per (target, performer class), lazily, when the first plan
/// that needs it is committed (Documentation/RUNTIME.md R5–R9), and keeps it for its own lifetime (R42). Adopt the
/// optional capability protocols for more: ``NamedPlanPerforming``, ``ComposablePerforming``,
/// ``ContinuousPerforming``, ``FrameUpdating``.
///
/// Thread rule: every call comes on the scheduler's thread.
public protocol Performer: AnyObject {
    /// Performs a plan (Documentation/RUNTIME.md R9, R10, R20).
    /// - Parameter plan: The scheduler's own copy of the plan (R1).
    /// - Throws: Any error to refuse the plan; the commit fails with it (R12).
    func addPlan(_ plan: Plan) throws
}

/// A performer that accepts named plans (Documentation/RUNTIME.md R13–R21).
public protocol NamedPlanPerforming: Performer {
    /// Performs a plan under a name. The scheduler has already removed any earlier plan of that name
    /// on this target (R16, R17).
    /// - Throws: Any error to refuse the plan.
    func addPlan(_ plan: Plan, named name: String) throws

    /// Stops performing the plan of that name. Called only for names this performer holds (R15).
    /// - Throws: Any error; the commit fails with it.
    func removePlan(named name: String) throws
}

/// A performer that emits transactions of its own (composition, Documentation/RUNTIME.md R22–R26).
public protocol ComposablePerforming: Performer {
    /// Hands the performer its emitter, once, right after creation and before its first plan (R11).
    func setEmitter(_ emitter: TransactionEmitter)
}

/// A performer that works over time and says so with is-active tokens (Documentation/RUNTIME.md R27–R37).
public protocol ContinuousPerforming: Performer {
    /// Hands the performer its token generator, once, right after creation and before its first plan (R11).
    func setIsActiveTokenGenerator(_ generator: IsActiveTokenGenerator)
}

/// A continuous performer that is updated once per frame while it holds at least one is-active token.
public protocol FrameUpdating: ContinuousPerforming {
    /// Advances the performer to a frame.
    /// - Parameter frame: The frame's index, time and delta since the previous frame (seconds).
    func update(frame: Frame)
}

/// Frame-updated performers that are cheaper to update many at a time than one by one: the performers
/// of one plugin, whose updates cross a C ABI (`motion_frames_v1.update_many`).
///
/// The scheduler updates performers in one order. Where several members of one batch come one after
/// another in that order, it calls ``update(_:frame:)`` once for all of them instead of calling each
/// one's ``FrameUpdating/update(frame:)``; the order of updates is unchanged.
///
/// Thread rule: called on the scheduler's thread.
public protocol FrameBatch: AnyObject {
    /// Advances each member to `frame`, in the order given, as that many calls of
    /// ``FrameUpdating/update(frame:)`` would.
    /// - Parameters:
    ///   - members: The members' ``BatchedFrameUpdating/frameBatchMember`` handles (at least one), each of a
    ///     performer that held an is-active token when the call began; valid during the call only.
    ///   - frame: The frame.
    func update(_ members: UnsafeBufferPointer<OpaquePointer>, frame: Frame)
}

/// A frame-updated performer that can be updated together with others of its ``FrameBatch``.
public protocol BatchedFrameUpdating: FrameUpdating {
    /// The batch this performer is updated with, or `nil` to be updated alone. Read once, when the
    /// scheduler creates the performer.
    var frameBatch: (any FrameBatch)? { get }
    /// What identifies this performer to its batch (for a plugin, its `motion_performer *`): the same value for
    /// the performer's life. Read each time the performer joins the scheduler's update list (its first token
    /// after it held none), not kept in its record.
    var frameBatchMember: OpaquePointer { get }
}

/// One performer of a ``SharedPerformer``: the number its shared performer gave it when the scheduler asked for
/// a performer on a target (``SharedPerformer/makeMember(_:)``), which the scheduler keeps in its record and
/// passes back with every call for that performer.
///
/// The scheduler gives it no meaning: a shared performer chooses it (an index into its own dense table of
/// members, or a plugin host's context handle) and must keep it unique among its live members; it may give a
/// destroyed member's number to a later one.
public struct PerformerMember: Hashable, Sendable, CustomStringConvertible {
    /// The shared performer's number for the member (any 64-bit value).
    public let rawValue: UInt64

    /// A member number.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public var description: String { "member \(rawValue)" }
}

/// One object that is the performers of one performer class on many targets: its members.
///
/// For the scheduler a member is a performer like any other (Documentation/RUNTIME.md R5–R43 hold member by
/// member): one per (target, performer class), made on the first plan that needs it (``makeMember(_:)``), given
/// that target's plans in order, with its own emitter and is-active tokens (the context's), destroyed with its
/// scheduler or when ``Scheduler/recreatePerformers(of:)`` replaces it (``destroyMember(_:)``). What it saves is
/// the object per target: a ``Performer`` is a heap object each (64 bytes or more), a member is whatever its
/// shared performer keeps for it in its own tables (for the benchmark's in-process Tween, 32 bytes of a dense
/// array), plus a word in the scheduler's tables.
///
/// A class of members is a ``PerformerClass`` made with `init(name:origin:...:sharedPerformer:)`; its factory
/// returns the shared performer that serves a target (the same object for every target of a scene, say) and
/// the scheduler then asks it for the member. Adopt ``NamedPlanSharedPerforming`` for named plans and
/// ``FrameUpdatingSharedPerformer`` for frame updates. A member is not a ``Performer``: the scheduler's
/// ``Scheduler/forEachPerformer(_:)`` and ``Scheduler/performer(forTarget:className:)`` do not list members
/// (``Scheduler/member(forTarget:className:)`` finds one).
///
/// Thread rule: every call comes on the scheduler's thread.
public protocol SharedPerformer: AnyObject {
    /// Makes a member for `context.target`: called once per (target, class) by each scheduler the shared
    /// performer serves, before the member's first plan (R5–R9), or again for a target whose member
    /// ``Scheduler/recreatePerformers(of:)`` replaces (R43; the old member is destroyed after). The context's
    /// emitter and token generator are the member's, handed over once here (R11): keep what the member needs.
    /// - Parameter context: The member's target, class, emitter and token generator.
    /// - Returns: The member's number, unique among this shared performer's live members.
    /// - Throws: Any error to refuse; the commit fails with it (R12) and no member exists.
    func makeMember(_ context: PerformerContext) throws -> PerformerMember

    /// Performs a plan for one member (R9, R10, R20).
    /// - Parameters:
    ///   - plan: The scheduler's own copy of the plan (R1).
    ///   - member: The member, a number ``makeMember(_:)`` returned and ``destroyMember(_:)`` has not been given.
    /// - Throws: Any error to refuse the plan; the commit fails with it (R12).
    func addPlan(_ plan: Plan, to member: PerformerMember) throws

    /// Destroys a member: its scheduler is going (R42), or a new member replaced it (R43). Its outstanding
    /// tokens were ended by the scheduler before (R37); ending them again fails (R33). Called once per member;
    /// the number is not passed again unless ``makeMember(_:)`` returns it anew.
    /// - Parameter member: The member.
    func destroyMember(_ member: PerformerMember)
}

/// A shared performer whose members accept named plans (Documentation/RUNTIME.md R13–R21), as
/// ``NamedPlanPerforming`` for a performer.
public protocol NamedPlanSharedPerforming: SharedPerformer {
    /// Performs a plan under a name for one member. The scheduler has already removed any earlier plan of that
    /// name on the member's target (R16, R17).
    /// - Throws: Any error to refuse the plan.
    func addPlan(_ plan: Plan, named name: String, to member: PerformerMember) throws

    /// Stops performing the plan of that name for one member. Called only for names the member holds (R15).
    /// - Throws: Any error; the commit fails with it.
    func removePlan(named name: String, from member: PerformerMember) throws
}

/// A shared performer whose members are updated once per frame while they hold at least one is-active token,
/// as ``FrameUpdating`` performers of one ``FrameBatch`` are.
///
/// The scheduler updates its frame-updated performers in one order (the order they first took a token); where
/// several members of one shared performer come one after another in it, it calls ``update(_:frame:)`` once for
/// all of them.
public protocol FrameUpdatingSharedPerformer: SharedPerformer {
    /// Advances each member to `frame`, in the order given.
    /// - Parameters:
    ///   - members: The members (at least one), each holding an is-active token when the call began; valid during
    ///     the call only.
    ///   - frame: The frame's index, time and delta since the previous frame (seconds).
    func update(_ members: UnsafeBufferPointer<PerformerMember>, frame: Frame)
}

/// What a performer class's factory receives: the target the performer acts on, and the emitter and
/// token generator the scheduler will hand the performer right after creation (R11). A factory may use
/// them already (a plugin may emit or take a token inside `create_performer`).
public struct PerformerContext {
    /// The scene of the target the new performer acts on.
    public let scene: Scene
    /// The index of that target in its scene (``Scene/target(at:)``, ``Scene/targetID(at:)``), stable for the scene's
    /// life: what a member of a ``SharedPerformer`` keeps instead of the object.
    public let targetIndex: Int
    /// The target the new performer acts on; it outlives the performer. Its object is made (once, by its scene) the
    /// first time code asks for it: a shared performer that keeps ``targetIndex`` instead makes none.
    public var target: Target { scene.target(at: targetIndex) }
    /// The target's name.
    public var targetID: TargetID { scene.targetID(at: targetIndex) }
    /// The performer class being instantiated.
    public let performerClass: PerformerClass
    /// The emitter of the performer being created.
    public let emitter: TransactionEmitter
    /// The token generator of the performer being created.
    public let tokenGenerator: IsActiveTokenGenerator
}

/// A performer class: a name and a factory, plus an optional plan check that runs before any
/// performer sees a plan.
///
/// Performers are keyed by (target, performer class); classes compare by identity, so a registry
/// must return the same `PerformerClass` instance for every plan type it maps to one class (R8).
///
/// Thread rule: created anywhere; used on the scheduler's thread.
public final class PerformerClass {
    /// The class's name, e.g. `"TweenPerformer"`, as traces and errors show it.
    public let name: String
    /// Where the class comes from, e.g. `"in-process"` or a plugin's manifest path; used in errors.
    public let origin: String
    let make: (PerformerContext) throws -> any Performer
    /// The factory of a class of members (``SharedPerformer``): the shared performer that serves a target; `nil`
    /// for a class of performers (``make``).
    let sharedPerformer: ((PerformerContext) throws -> any SharedPerformer)?
    let preparePlan: ((Plan) throws -> Plan)?
    let checkPlanOnTarget: ((Plan, Target) throws -> Void)?
    let preparePlanOnTarget: ((Plan, Target) throws -> Plan)?
    /// Counts the changes of the class's plan preparation (``preparationDidChange()``): a plan prepared while it
    /// had the same value is prepared the same way now (R43 gives such a plan again in that form).
    private(set) var preparationRevision = 0

    /// Says that the class's plan preparation changed (a plugin's manifest was read again with other plan
    /// declarations: defaults, ranges, fields): plans prepared before are prepared again when
    /// ``Scheduler/recreatePerformers(of:)`` gives them again. While it is not called, the plans kept for that are
    /// given again in the form their commit prepared and checked (the same class with the same rules, and a target's
    /// properties are never removed, so the checks would pass again and give the same plan: R43).
    ///
    /// Thread rule: on the thread of the schedulers that use the class.
    public func preparationDidChange() { preparationRevision &+= 1 }

    /// Creates a performer class.
    /// - Parameters:
    ///   - name: The class's name.
    ///   - origin: Where it comes from, for errors and traces.
    ///   - preparePlan: Checks a plan before a performer sees it and may return it completed (for
    ///     example with defaults filled in). Throwing fails the operation before a performer is created.
    ///   - checkPlanOnTarget: Checks a prepared plan against the target it is for (for example that a field
    ///     naming a property names one the target has). Throwing fails the operation before a performer is
    ///     created or sees the plan.
    ///   - preparePlanOnTarget: Checks a plan and its target in one call and may return it completed, after
    ///     `preparePlan` and `checkPlanOnTarget`: for a class that checks both in one pass over the plan's fields
    ///     (the plugin host's manifest validation). Throwing fails the operation as they do.
    ///   - make: Creates a performer for a target. Throwing fails the operation (R12).
    public convenience init(
        name: String, origin: String = "in-process",
        preparePlan: ((Plan) throws -> Plan)? = nil,
        checkPlanOnTarget: ((Plan, Target) throws -> Void)? = nil,
        preparePlanOnTarget: ((Plan, Target) throws -> Plan)? = nil,
        make: @escaping (PerformerContext) throws -> any Performer
    ) {
        self.init(
            name: name, origin: origin, preparePlan: preparePlan, checkPlanOnTarget: checkPlanOnTarget,
            preparePlanOnTarget: preparePlanOnTarget, make: make, sharedPerformer: nil)
    }

    /// Creates a class of members of shared performers (``SharedPerformer``): the scheduler keeps one member per
    /// (target, class), as it keeps one performer per (target, class) of another class (R5–R8), and asks
    /// `sharedPerformer` which shared performer makes it.
    /// - Parameters:
    ///   - name: The class's name.
    ///   - origin: Where it comes from, for errors and traces.
    ///   - preparePlan: As for a class of performers.
    ///   - checkPlanOnTarget: As for a class of performers.
    ///   - preparePlanOnTarget: As for a class of performers.
    ///   - sharedPerformer: The shared performer that makes the member for a target (for example one per scene,
    ///     made on the first call for that scene); its ``SharedPerformer/makeMember(_:)`` is then called with the
    ///     same context. Throwing fails the operation (R12).
    public convenience init(
        name: String, origin: String = "in-process",
        preparePlan: ((Plan) throws -> Plan)? = nil,
        checkPlanOnTarget: ((Plan, Target) throws -> Void)? = nil,
        preparePlanOnTarget: ((Plan, Target) throws -> Plan)? = nil,
        sharedPerformer: @escaping (PerformerContext) throws -> any SharedPerformer
    ) {
        self.init(
            name: name, origin: origin, preparePlan: preparePlan, checkPlanOnTarget: checkPlanOnTarget,
            preparePlanOnTarget: preparePlanOnTarget, make: { _ in throw SharedClassError(className: name) },
            sharedPerformer: sharedPerformer)
    }

    private init(
        name: String, origin: String, preparePlan: ((Plan) throws -> Plan)?, checkPlanOnTarget: ((Plan, Target) throws -> Void)?,
        preparePlanOnTarget: ((Plan, Target) throws -> Plan)?, make: @escaping (PerformerContext) throws -> any Performer,
        sharedPerformer: ((PerformerContext) throws -> any SharedPerformer)?
    ) {
        self.name = name
        self.origin = origin
        self.preparePlan = preparePlan
        self.checkPlanOnTarget = checkPlanOnTarget
        self.preparePlanOnTarget = preparePlanOnTarget
        self.make = make
        self.sharedPerformer = sharedPerformer
    }
}

/// What a class of members gives when asked for a performer object (``PerformerClass/make`` of a class made with
/// a shared performer); the scheduler never asks.
struct SharedClassError: Error, CustomStringConvertible {
    let className: String
    var description: String { "performer class \(className) makes members of a shared performer, not performer objects" }
}

/// Maps plan types to performer classes. The scheduler asks it once per plan type and caches the answer.
///
/// The registry is a value passed to the scheduler explicitly, never a global: in-process
/// registrations (``InProcessRegistry``), the plugin host's manifests, or a chain of both
/// (``RegistryChain``).
public protocol PerformerRegistry: AnyObject {
    /// The performer class for a plan type.
    /// - Returns: `nil` when no class performs that plan type.
    /// - Throws: When the plan type is known but its class cannot be made available (for example a
    ///   plugin library that fails its checks); the commit fails with this error as the cause.
    func performerClass(forPlanType type: String) throws -> PerformerClass?

    /// Every plan type this registry can perform, for error messages ("did you mean").
    var planTypes: [String] { get }
}

/// Performer classes registered in-process, by plan type.
///
/// Thread rule: register before committing; use from the scheduler's thread.
public final class InProcessRegistry: PerformerRegistry {
    private var classes: [String: PerformerClass] = [:]

    /// An empty registry.
    public init() {}

    /// Registers a performer class for one or more plan types (R8: several plan types may share a class).
    /// - Parameters:
    ///   - planTypes: The plan types the class performs. A plan type registered again moves to this class.
    ///   - name: The class's name.
    ///   - make: Creates a performer for a target.
    /// - Returns: The registered class.
    @discardableResult
    public func register(
        planTypes: [String], className name: String,
        make: @escaping (PerformerContext) throws -> any Performer
    ) -> PerformerClass {
        let performerClass = PerformerClass(name: name, make: make)
        register(performerClass, for: planTypes)
        return performerClass
    }

    /// Registers a class of members of shared performers (``SharedPerformer``) for one or more plan types.
    /// - Parameters:
    ///   - planTypes: The plan types the class performs. A plan type registered again moves to this class.
    ///   - name: The class's name.
    ///   - sharedPerformer: The shared performer that makes the member for a target.
    /// - Returns: The registered class.
    ///
    /// Named apart from ``register(planTypes:className:make:)`` so that a trailing closure that only throws still
    /// names one method.
    @discardableResult
    public func registerMembers(
        planTypes: [String], className name: String,
        sharedPerformer: @escaping (PerformerContext) throws -> any SharedPerformer
    ) -> PerformerClass {
        let performerClass = PerformerClass(name: name, sharedPerformer: sharedPerformer)
        register(performerClass, for: planTypes)
        return performerClass
    }

    /// Registers an existing performer class for one or more plan types.
    public func register(_ performerClass: PerformerClass, for planTypes: [String]) {
        for type in planTypes { classes[type] = performerClass }
    }

    public func performerClass(forPlanType type: String) -> PerformerClass? { classes[type] }

    public var planTypes: [String] { classes.keys.sorted() }
}

/// Several registries asked in order; the first that knows a plan type answers.
public final class RegistryChain: PerformerRegistry {
    /// The registries, in the order they are asked.
    public let registries: [any PerformerRegistry]

    /// A chain of registries, asked in order.
    public init(_ registries: [any PerformerRegistry]) { self.registries = registries }

    public func performerClass(forPlanType type: String) throws -> PerformerClass? {
        for registry in registries {
            if let found = try registry.performerClass(forPlanType: type) { return found }
        }
        return nil
    }

    public var planTypes: [String] { Array(Set(registries.flatMap(\.planTypes))).sorted() }
}
