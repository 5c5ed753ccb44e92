import FoundationEssentials

/// Commits transactions of plans, creates one performer per (target, performer class) to fulfil them,
/// and reports whether any performer is still working.
///
/// "One scheduler per interaction or transition." Behaviours: Documentation/RUNTIME.md R1–R43.
///
/// Thread rule: create and use a scheduler on one thread (its thread). Is-active tokens may be
/// terminated, and transactions emitted, from any thread: that work is applied at the scheduler's next
/// turn (``processPendingWork()``, which every ``advanceFrame(to:)`` starts with), and activity changes
/// are always delivered on the scheduler's thread (R36). Every public member checks the rule in debug
/// builds (a call from another thread traps, naming the member); `commit` refuses another thread in every
/// build.
///
/// Lifetime: performers live as long as the scheduler (R42), unless ``recreatePerformers(of:)`` replaces
/// them (R43). Emitters, token generators and tokens do not keep it alive (R41); when it goes, outstanding
/// tokens are terminated and traced (R37).
public final class Scheduler {
    /// How deeply emissions may nest before a commit fails (R25).
    public static let maximumEmissionDepth = 32

    /// The targets the scheduler's performers act on.
    public let scene: Scene
    /// Where plan types find their performer classes.
    public let registry: any PerformerRegistry

    let inbox = SchedulerInbox()
    @exclusivity(unchecked) private var classCache: [String: PerformerClass] = [:]
    /// The plan type last looked up in ``classCache`` and its class (commits often repeat a plan type).
    @exclusivity(unchecked) private var lastClass: (type: String, performerClass: PerformerClass)?
    /// Every performer's record, in creation order, a value each in one dense array indexed by
    /// ``PerformerKey/index`` (no object, dictionary entry or table of tokens per performer: 48 bytes
    /// each, ``PerformerRecord``). A record replaced by ``recreatePerformers(of:)`` is overwritten in place (R43). Per-frame reads
    /// (a token count) go through the array each time, never through a pointer held across a performer call,
    /// which may add records.
    @exclusivity(unchecked) private var records: ContiguousArray<PerformerRecord> = []
    /// Per target, by its index in the scene: its first performer's record, or -1; the target's other
    /// performers follow through ``PerformerRecord/nextOnTarget`` (a target has one per class it uses, R6).
    @exclusivity(unchecked) private var firstPerformerOfTarget: [Int32] = []
    /// The performer classes the records name by ``PerformerRecord/performerClass``, each once, in the order
    /// they first made a performer (a class's index is 4 bytes in every record where its reference took 8).
    @exclusivity(unchecked) private var performerClasses: [PerformerClass] = []
    private var performerClassIndices: [ObjectIdentifier: Int32] = [:]
    /// The bytes each performer's record takes in ``records`` (for tests of the layout).
    static var performerRecordStride: Int { MemoryLayout<PerformerRecord>.stride }
    /// The next creation attempt's ``PerformerKey/incarnation`` (never reused).
    private var nextIncarnation: UInt32 = 0
    /// The record index, by incarnation, of each performer whose record is not at its key's index: one
    /// whose factory emitted a transaction that made other performers first (R22), which took that index.
    private var movedRecords: [UInt32: Int32] = [:]
    /// The performer holding each (target, name), by record index (R13–R19).
    private var namedPlans: [NamedPlanKey: Int32] = [:]
    /// Outstanding tokens past their performer's first (which its record holds), by id: token objects, and
    /// the owners of tokens taken by id (``IsActiveTokenGenerator/generateID()``).
    private var extraTokens: [UInt64: IsActiveToken] = [:]
    private var extraTokenIDs: [UInt64: PerformerKey] = [:]
    /// Each performer's plans, by record index, kept only when ``recordsPlansForRecreation`` is set (R43).
    private var planLogs: [Int32: PlanLog] = [:]
    /// The boxes of frame-updated performers that are not batched, by record index (``FrameSlot/handle``).
    private var updaterBoxes: [Int32: FrameUpdaterBox] = [:]
    /// The frame batches of batched performers, each once; a frame slot names its batch by index here. A batch
    /// no performer uses any more (its performers were replaced, R43) is let go and its index reused.
    private var frameBatches: [FrameGroup?] = []
    /// The members' numbers (``PerformerMember``) by record index, for the records of members of shared performers
    /// (``SharedPerformer``): empty while the scheduler has none, then as long as the last member's record index + 1
    /// (8 bytes per performer, where a performer object per target took 64 or more). Other records' entries are 0.
    @exclusivity(unchecked) private var memberNumbers: ContiguousArray<UInt64> = []
    /// The boxes the members' records hold, one per shared performer, by its `ObjectIdentifier`.
    private var sharedPerformerBoxes: [ObjectIdentifier: SharedPerformerBox] = [:]
    private var frameBatchIndices: [ObjectIdentifier: Int32] = [:]
    /// What each performer type seen conforms to, by the type's `ObjectIdentifier`: found once per type, where five
    /// dynamic casts per performer made cost 1,200–2,200 instructions in `swift_conformsToProtocol` with a plugin
    /// library loaded (callgrind). Keyed by the performer's dynamic type, not its class: a class's factory may make
    /// performers of different types.
    private var conformancesOfType: [ObjectIdentifier: PerformerConformances] = [:]
    /// The type last looked up in ``conformancesOfType`` and its answers (a scheduler's performers share a few types).
    @exclusivity(unchecked) private var lastConformances: (type: ObjectIdentifier, conformances: PerformerConformances)?
    private var terminatedBeforeSeen: Set<UInt64> = []
    private var activeTokenCount = 0
    private var observers: [any ActivityObserver] = []
    @exclusivity(unchecked) private var tracers: [any Tracer] = []
    /// The plans being performed, outermost first (the emission chain, R25), each with the first
    /// emission that failed inside its performer call, if any. Every access to it (and to the other properties
    /// marked so, read on each commit) is instantaneous, on the scheduler's thread: no dynamic exclusivity check.
    @exclusivity(unchecked) private var handling: [(type: String, target: TargetID, emissionFailure: CommitError?)] = []
    /// The frame-updated performers that took a token, in the order they first took one: 16 bytes each,
    /// what a frame reads of a performer besides its token count (see ``FrameSlot``).
    @exclusivity(unchecked) private var frameUpdaters: ContiguousArray<FrameSlot> = []
    private var frameUpdatersNeedCompaction = false
    /// How many times a performer's token count has dropped to zero: a frame compares it with its value
    /// at the frame's start to know whether a member of a batch may have stopped being active.
    private var tokenCountsEnded = 0
    /// Where ``advanceFrame(to:)`` collects a batch's members: kept between frames, grown as needed,
    /// written without an array's uniqueness check per member.
    private var batchMembers = UnsafeMutableBufferPointer<UInt>.allocate(capacity: 64)
    private var isAdvancingFrame = false
    /// The performer being made (its factory runs), which has no record yet.
    private var creating: (key: PerformerKey, description: PerformerDescription)?
    private var tokensDuringCreation: [HeldToken] = []
    /// Set while ``recreatePerformers(of:)`` runs: activity changes wait for its end, and emissions are not
    /// performed (R43).
    private var isRecreating = false

    /// Whether each performer's plans are kept so that ``recreatePerformers(of:)`` can give them again (R43).
    /// Off by default: the log holds every plain plan ever added, so it grows with every commit (a live host
    /// taking 10,000 transactions a second would grow without bound). Turn it on before the first commit
    /// when performers may be re-created (hot reload); plans committed while it is off are not re-added.
    @exclusivity(unchecked) public var recordsPlansForRecreation = false
    private var nextFrameIndex = 0
    private var lastFrameTime = 0.0

    /// A new scheduler; it is idle (R27).
    /// - Parameters:
    ///   - scene: The targets plans act on.
    ///   - registry: Maps plan types to performer classes.
    public init(scene: Scene, registry: any PerformerRegistry) {
        self.scene = scene
        self.registry = registry
        inbox.attach(self)
    }

    deinit {
        batchMembers.deallocate()
        inbox.close()
        for work in inbox.drain() {
            if case .tokenGenerated(let token, _) = work { token.invalidate() }
        }
        // R37: outstanding tokens are terminated and reported when the scheduler goes away.
        for token in outstandingTokens(where: { _ in true }) {
            token.object?.invalidate()
            let description = record(of: token.owner).map { describe($0) } ?? PerformerDescription(target: "?", className: "?")
            trace(.tokenTerminated(id: token.id, performer: description))
        }
        if activeTokenCount > 0 {
            activeTokenCount = 0
            trace(.activityChanged(isActive: false))
            for observer in observers { observer.schedulerActivityDidChange(isActive: false) }
        }
        // R42: the performers go here, while this scheduler still holds the scene, so one may read its target as it
        // goes (a plugin's context is valid until destroy_performer returns, motion/core.h). Left to the release of
        // the stored properties, whose order is the compiler's, a debug build released the scene first.
        // The records' own references to their first tokens' objects (``FirstToken``) first: removing a record does
        // not release it.
        for index in records.indices { records[index].firstToken.clear() }
        // Members of shared performers have no object of their own to release: each is destroyed here, in creation
        // order, before the performer objects go.
        for index in records.indices { destroyMember(ofRecord: index) }
        updaterBoxes.removeAll()
        records.removeAll()
        frameBatches.removeAll()
    }

    // MARK: Activity and tracing

    /// Whether any is-active token of any performer is outstanding (R30, R31).
    public var isActive: Bool {
        checkThread("isActive")
        return activeTokenCount > 0
    }

    /// The number of outstanding is-active tokens.
    public var outstandingTokenCount: Int {
        checkThread("outstandingTokenCount")
        return activeTokenCount
    }

    /// The performers that hold outstanding is-active tokens, in creation order, each with how many it
    /// holds (to say who keeps a scheduler active).
    public var tokenHolders: [(performer: PerformerDescription, tokens: Int)] {
        checkThread("tokenHolders")
        return records.indices.filter { records[$0].tokenCount > 0 }.map { (describe($0), Int(records[$0].tokenCount)) }
    }

    /// Adds an activity observer; adding one already added changes nothing (R38). The scheduler holds
    /// it strongly until it is removed.
    public func addActivityObserver(_ observer: any ActivityObserver) {
        checkThread("addActivityObserver(_:)")
        guard !observers.contains(where: { $0 === observer }) else { return }
        observers.append(observer)
    }

    /// Removes an activity observer; it is told nothing more (R38).
    public func removeActivityObserver(_ observer: any ActivityObserver) {
        checkThread("removeActivityObserver(_:)")
        observers.removeAll { $0 === observer }
    }

    /// Adds a tracer; adding one already added changes nothing.
    public func addTracer(_ tracer: any Tracer) {
        checkThread("addTracer(_:)")
        guard !tracers.contains(where: { $0 === tracer }) else { return }
        tracers.append(tracer)
    }

    /// Removes a tracer.
    public func removeTracer(_ tracer: any Tracer) {
        checkThread("removeTracer(_:)")
        tracers.removeAll { $0 === tracer }
    }

    /// The performers created so far, in creation order.
    public var performerDescriptions: [PerformerDescription] {
        checkThread("performerDescriptions")
        return records.indices.map(describe)
    }

    /// How many performers the scheduler holds (it destroys one before it goes itself only to replace it by
    /// a new one of its class, R43).
    public var performerCount: Int {
        checkThread("performerCount")
        return records.count
    }

    /// Calls `body` with every performer object, in creation order (for example to hand performers
    /// sensor samples). Members of shared performers (``SharedPerformer``) are not objects and are not listed.
    public func forEachPerformer(_ body: (any Performer) -> Void) {
        checkThread("forEachPerformer(_:)")
        for index in records.indices where !isMember(index) { body(records[index].performer) }
    }

    /// The performer object for a target and class name, if the scheduler created one; `nil` for a class of members
    /// of shared performers (``member(forTarget:className:)``).
    public func performer(forTarget target: TargetID, className: String) -> (any Performer)? {
        checkThread("performer(forTarget:className:)")
        guard let index = recordIndex(forTarget: target, className: className), !isMember(index) else { return nil }
        return records[index].performer
    }

    /// The member for a target and class name, with the shared performer it belongs to, if the scheduler made one
    /// (``SharedPerformer``); `nil` for a class of performer objects (``performer(forTarget:className:)``).
    public func member(forTarget target: TargetID, className: String) -> (performer: any SharedPerformer, member: PerformerMember)? {
        checkThread("member(forTarget:className:)")
        guard let index = recordIndex(forTarget: target, className: className), let box = sharedBox(index) else { return nil }
        return (box.shared, PerformerMember(rawValue: memberNumber(index)))
    }

    private func recordIndex(forTarget target: TargetID, className: String) -> Int? {
        records.indices.first {
            scene.targetID(at: Int(records[$0].target)) == target && performerClasses[Int(records[$0].performerClass)].name == className
        }
    }

    /// The thread rule, checked at every public entry point: in debug builds a call from another thread
    /// traps with a message naming the entry point; `assert` is compiled out of release builds, so the
    /// per-frame path pays nothing there. (`commit` also refuses another thread in release builds, with
    /// ``CommitError`` code `wrongThread`.)
    @inline(__always)
    private func checkThread(_ entryPoint: StaticString) {
        assert(
            inbox.isOnSchedulerThread,
            "Scheduler.\(entryPoint) was called off the scheduler's thread, and a scheduler is used on the thread that created it. To fix, call it on that thread; from other threads, terminate tokens or emit through a TransactionEmitter, which the scheduler applies at its next turn."
        )
    }

    @inline(__always)
    private func trace(_ event: @autoclosure () -> TraceEvent) {
        guard !tracers.isEmpty else { return }
        let event = event()
        for tracer in tracers { tracer.trace(event) }
    }

    // MARK: Committing

    /// Commits a transaction: performs each operation, in order, synchronously (R3, R4).
    ///
    /// - Throws: ``CommitError`` naming the failing operation's index, target and plan type and the
    ///   cause. Operations before it stay applied (R12).
    public func commit(_ transaction: Transaction) throws(CommitError) {
        guard inbox.isOnSchedulerThread else {
            throw CommitError(
                code: .wrongThread,
                message:
                    "commit was called off the scheduler's thread. To fix, commit on the thread that created the scheduler, or emit through a TransactionEmitter."
            )
        }
        trace(.committed(transaction))
        try apply(transaction)
    }

    /// Decodes a transaction from JSON and commits it.
    /// - Throws: ``CommitError`` with code `.invalidTransaction` when the JSON does not decode, else as
    ///   ``commit(_:)``.
    public func commit(jsonData: some Sequence<UInt8>) throws(CommitError) {
        try commit(Transaction(jsonData: Data(jsonData)))
    }

    func commitEmitted(_ transaction: Transaction, from source: PerformerKey) throws(CommitError) {
        // R43: what re-created performers emit while their plans are re-added is not performed; the plans it
        // would add are held already by the performers the first emission reached.
        guard !isRecreating else { return }
        // R43: a replaced performer's emitter does nothing. A performer whose creation failed may still have
        // emitted from inside its factory (its record is not in place): it is named by the one being made.
        let description: PerformerDescription
        if let index = record(of: source) {
            description = describe(index)
        } else if let creating, creating.key == source {
            description = creating.description
        } else {
            return
        }
        trace(
            .emitted(
                transaction, by: description,
                crossesTargets: transaction.operations.contains { $0.target != description.target }))
        do {
            try apply(transaction)
        } catch {
            // Say where the failing operation came from: the outer operation's place replaces its own.
            var error = error
            if error.code != .emissionCycle, error.code != .emissionTooDeep {
                error.message = "a transaction emitted by \(description) failed: \(error.description)"
            }
            // The emitting performer gets the error and decides: one that handles it (returns normally)
            // does not fail its operation; one that fails is reported with this error (``performing``).
            if !handling.isEmpty, handling[handling.count - 1].emissionFailure == nil {
                handling[handling.count - 1].emissionFailure = error
            }
            throw error
        }
    }

    private func apply(_ transaction: Transaction) throws(CommitError) {
        for (index, operation) in transaction.operations.enumerated() {
            do {
                try perform(operation)
            } catch {
                var error = error
                if error.operationIndex == nil || handling.isEmpty {
                    error.operationIndex = index
                    error.target = operation.target
                    error.planType = operation.plan?.type ?? error.planType
                    error.appliedOperationCount = index
                }
                throw error
            }
        }
    }

    private func perform(_ operation: Transaction.Operation) throws(CommitError) {
        switch operation {
        case .add(let plan, let targetID):
            let target = try target(targetID)
            let (performerClass, prepared) = try resolve(plan, on: target)
            let index = try performerRecord(performerClass, target: target)
            if performerClass.sharedPerformer != nil {
                let box = sharedBox(index)!
                let member = PerformerMember(rawValue: memberNumber(index))
                try performing(prepared, on: target.id) { () throws -> Void in try box.shared.addPlan(prepared, to: member) }
            } else {
                let performer = performer(ofRecord: index)
                try performing(prepared, on: target.id) { () throws -> Void in try performer.addPlan(prepared) }
            }
            if recordsPlansForRecreation {
                planLogs[Int32(index), default: PlanLog()].add(plan, prepared: prepared, revision: performerClass.preparationRevision)
            }
            trace(.planAdded(prepared, performer: describe(index)))

        case .addNamed(let plan, let name, let targetID):
            try checkName(name)
            let target = try target(targetID)
            let (performerClass, prepared) = try resolve(plan, on: target)
            let key = NamedPlanKey(target: target.id, name: name)
            if let old = namedPlans[key] {
                try remove(named: name, from: Int(old), key: key)
            }
            let index = try performerRecord(performerClass, target: target)
            guard let named = namedPerformer(index) else {
                throw CommitError(
                    code: .unsupportedOperation,
                    message: "performer class \(performerClass.name) does not perform named plans. To fix, add the plan without a name.")
            }
            try performing(prepared, on: target.id) { () throws -> Void in try named.addPlan(prepared, named: name) }
            namedPlans[key] = Int32(index)
            if recordsPlansForRecreation {
                planLogs[Int32(index), default: PlanLog()].add(
                    plan, prepared: prepared, revision: performerClass.preparationRevision, named: name)
            }
            trace(.namedPlanAdded(prepared, name: name, performer: describe(index)))

        case .removeNamed(let name, let targetID):
            try checkName(name)
            let target = try target(targetID)
            let key = NamedPlanKey(target: target.id, name: name)
            guard let index = namedPlans[key] else { return }  // R15
            try remove(named: name, from: Int(index), key: key)
        }
    }

    private func remove(named name: String, from index: Int, key: NamedPlanKey) throws(CommitError) {
        do {
            try namedPerformer(index)?.removePlan(named: name)
        } catch {
            throw CommitError(
                code: .performerRefused,
                message: "performer \(describe(index)) failed to remove the plan named \"\(name)\": \(error)",
                underlying: error)
        }
        namedPlans[key] = nil
        planLogs[Int32(index)]?.remove(named: name)
        trace(.namedPlanRemoved(name: name, performer: describe(index)))
    }

    /// Runs a performer call for a plan, tracking the emission chain (R25). An emission that fails inside
    /// the call fails the operation only if the performer fails too (it was told, and may handle it); the
    /// operation then fails with the emission's own error, which names the cause and the chain.
    private func performing(_ plan: Plan, on target: TargetID, _ body: () throws -> Void) throws(CommitError) {
        if handling.contains(where: { $0.type == plan.type && $0.target == target }) {
            let chain = handling.map(\.type) + [plan.type]
            throw CommitError(
                code: .emissionCycle,
                message:
                    "emission cycle: \(chain.joined(separator: " → ")) on target \"\(target.name)\". To fix, break the cycle: a performer must not emit, directly or through others, a plan of the type it is performing on the same target.",
                emissionChain: chain)
        }
        if handling.count >= Self.maximumEmissionDepth {
            let chain = handling.map(\.type) + [plan.type]
            throw CommitError(
                code: .emissionTooDeep,
                message: "emissions nested deeper than \(Self.maximumEmissionDepth): \(chain.joined(separator: " → "))",
                emissionChain: chain)
        }
        handling.append((plan.type, target, nil))
        let level = handling.count - 1
        defer { handling.removeLast() }
        do {
            try body()
        } catch let error as CommitError {
            throw error
        } catch {
            // A performer that fails because its emission failed (as a plugin reports an emission's
            // status) is reported with the emission's own error, which names the cause and the chain.
            if let emissionFailure = handling[level].emissionFailure { throw emissionFailure }
            throw CommitError(
                code: .performerRefused, message: "the performer refused the plan: \(error)", underlying: error)
        }
    }

    private func checkName(_ name: String) throws(CommitError) {
        guard name.isEmpty else { return }
        throw CommitError(code: .emptyName, message: "a named plan needs a non-empty name (R21). To fix, give the plan a name or add it without one.")
    }

    private func target(_ id: TargetID) throws(CommitError) -> TargetReference {
        if let index = scene.targetIndex(of: id) { return TargetReference(index: index, id: id) }
        let known = (0..<scene.targetCount).map { scene.targetID(at: $0).name }
        throw CommitError(
            code: .unknownTarget,
            message:
                "the scene has no target \"\(id.name)\"\(suggestion(for: id.name, among: known)). Known targets: \(known.isEmpty ? "none" : known.joined(separator: ", "))."
        )
    }

    private func resolve(_ plan: Plan, on reference: TargetReference) throws(CommitError) -> (PerformerClass, Plan) {
        let performerClass = try performerClass(forPlanType: plan.type)
        guard performerClass.preparePlan != nil || performerClass.checkPlanOnTarget != nil || performerClass.preparePlanOnTarget != nil
        else {
            return (performerClass, plan)
        }
        do {
            var prepared = try performerClass.preparePlan?(plan) ?? plan
            // The class checks the plan on the target's object (made now if the target had none).
            let target = scene.target(at: reference.index)
            try performerClass.checkPlanOnTarget?(prepared, target)
            if let prepareOnTarget = performerClass.preparePlanOnTarget { prepared = try prepareOnTarget(prepared, target) }
            return (performerClass, prepared)
        } catch let error as CommitError {
            throw error
        } catch {
            throw CommitError(code: .invalidPlan, message: "\(error)", underlying: error)
        }
    }

    private func performerClass(forPlanType type: String) throws(CommitError) -> PerformerClass {
        // The last plan type's class first: one compare of two equal strings, where the dictionary hashes.
        if let last = lastClass, last.type == type { return last.performerClass }
        if let cached = classCache[type] {
            lastClass = (type, cached)
            return cached
        }
        let found: PerformerClass?
        do {
            found = try registry.performerClass(forPlanType: type)
        } catch let error as CommitError {
            throw error
        } catch {
            throw CommitError(
                code: .performerUnavailable, message: "no performer for plan type \"\(type)\" could be made available: \(error)",
                underlying: error)
        }
        guard let found else {
            let known = registry.planTypes
            throw CommitError(
                code: .unknownPlanType,
                message:
                    "no performer performs plan type \"\(type)\"\(suggestion(for: type, among: known)). Known plan types: \(known.isEmpty ? "none" : known.joined(separator: ", "))."
            )
        }
        classCache[type] = found
        lastClass = (type, found)
        return found
    }

    /// The record index of the performer of `performerClass` on `target`, made if it has none (R5–R9).
    private func performerRecord(_ performerClass: PerformerClass, target: TargetReference) throws(CommitError) -> Int {
        let targetIndex = target.index
        if targetIndex < firstPerformerOfTarget.count {
            var index = firstPerformerOfTarget[targetIndex]
            while index >= 0 {
                if performerClasses[Int(records[Int(index)].performerClass)] === performerClass { return Int(index) }
                index = records[Int(index)].nextOnTarget
            }
        } else {
            if targetIndex >= firstPerformerOfTarget.capacity { firstPerformerOfTarget.reserveCapacity([Int32].grownCapacity(targetIndex + 1)) }
            firstPerformerOfTarget.append(contentsOf: repeatElement(-1, count: targetIndex + 1 - firstPerformerOfTarget.count))
        }
        return try makePerformer(performerClass, target: target, index: records.count) { record, index in
            // The target's newest performer goes first in its chain (a target has a few at most).
            record.nextOnTarget = firstPerformerOfTarget[targetIndex]
            firstPerformerOfTarget[targetIndex] = Int32(index)
            records.appendGrowingByHalf(record)
        }
    }

    /// The record index of the performer `key` names, or `nil` when it names none (a performer replaced by
    /// ``recreatePerformers(of:)``, or one whose creation failed or is under way).
    private func record(of key: PerformerKey) -> Int? {
        let index = Int(key.index)
        guard index < records.count, records[index].incarnation == key.incarnation else {
            guard !movedRecords.isEmpty, let moved = movedRecords[key.incarnation].map(Int.init),
                records[moved].incarnation == key.incarnation
            else { return nil }
            return moved
        }
        return index
    }

    /// The performer of record `index` as traces and errors name it: its target and class.
    private func describe(_ index: Int) -> PerformerDescription {
        PerformerDescription(
            target: scene.targetID(at: Int(records[index].target)), className: performerClasses[Int(records[index].performerClass)].name)
    }

    /// The index of `performerClass` in ``performerClasses``, added there the first time it makes a performer.
    private func classIndex(of performerClass: PerformerClass) -> Int32 {
        let id = ObjectIdentifier(performerClass)
        if let known = performerClassIndices[id] { return known }
        precondition(performerClasses.count < Int(Int32.max), "a scheduler's performers come from fewer than 2^31 classes")
        let index = Int32(performerClasses.count)
        performerClasses.append(performerClass)
        performerClassIndices[id] = index
        return index
    }

    /// The performer of record `index`, retained once. Read here, in a function of its own, because read in
    /// ``perform(_:)`` (`let performer = records[index].performer`, inlined) the array's getter copied the whole
    /// 48-byte record twice and destroyed one copy: two retains and two releases of the performer per commit, 114
    /// instructions (callgrind, `motion-benchmark --profile-typed-plans`).
    @inline(never)
    private func performer(ofRecord index: Int) -> any Performer { records[index].performer }

    /// What `performer`'s dynamic type conforms to, found by casts the first time the scheduler meets the type.
    private func conformances(of performer: any Performer) -> PerformerConformances {
        let type = ObjectIdentifier(Swift.type(of: performer))
        if let last = lastConformances, last.type == type { return last.conformances }
        let found: PerformerConformances
        if let known = conformancesOfType[type] {
            found = known
        } else {
            found = PerformerConformances(of: performer)
            conformancesOfType[type] = found
        }
        lastConformances = (type, found)
        return found
    }

    /// The performer of record `index` as a performer of named plans (a member: its shared performer and number),
    /// or `nil` when its type does not perform them.
    private func namedPerformer(_ index: Int) -> NamedPlanHandler? {
        guard records[index].performsNamedPlans else { return nil }
        if let box = sharedBox(index) { return box.named.map { .member($0, PerformerMember(rawValue: memberNumber(index))) } }
        let performer = performer(ofRecord: index)
        return conformances(of: performer).named.map { .performer($0(performer)) }
    }

    /// Gives record `index`'s performer, or member, a plain plan (R9).
    private func addPlan(_ plan: Plan, toRecord index: Int) throws {
        if let box = sharedBox(index) {
            try box.shared.addPlan(plan, to: PerformerMember(rawValue: memberNumber(index)))
        } else {
            try performer(ofRecord: index).addPlan(plan)
        }
    }

    /// Whether record `index` is a member of a shared performer (its class makes members).
    @inline(__always)
    private func isMember(_ index: Int) -> Bool { performerClasses[Int(records[index].performerClass)].sharedPerformer != nil }

    /// The box of record `index`'s shared performer, or `nil` when the record holds a performer object.
    private func sharedBox(_ index: Int) -> SharedPerformerBox? {
        guard isMember(index) else { return nil }
        return unsafeDowncast(records[index].performer, to: SharedPerformerBox.self)
    }

    /// Record `index`'s member number (0 for a record of a performer object).
    @inline(__always)
    private func memberNumber(_ index: Int) -> UInt64 { index < memberNumbers.count ? memberNumbers[index] : 0 }

    /// Keeps record `index`'s member number, growing ``memberNumbers`` (by half) to reach it.
    private func setMemberNumber(_ number: UInt64, at index: Int) {
        if index >= memberNumbers.count {
            if index >= memberNumbers.capacity { memberNumbers.reserveCapacity(ContiguousArray<UInt64>.grownCapacity(index + 1)) }
            memberNumbers.append(contentsOf: repeatElement(0, count: index + 1 - memberNumbers.count))
        }
        memberNumbers[index] = number
    }

    /// Destroys record `index`'s member (``SharedPerformer/destroyMember(_:)``); nothing for a performer object,
    /// which goes with its record.
    private func destroyMember(ofRecord index: Int) {
        guard let box = sharedBox(index) else { return }
        box.shared.destroyMember(PerformerMember(rawValue: memberNumber(index)))
    }

    /// The box the records of `shared`'s members hold, made the first time the scheduler meets it (its protocols
    /// found then, once).
    private func box(of shared: any SharedPerformer) -> SharedPerformerBox {
        let id = ObjectIdentifier(shared)
        if let known = sharedPerformerBoxes[id] { return known }
        let box = SharedPerformerBox(shared)
        sharedPerformerBoxes[id] = box
        return box
    }

    /// The index in ``frameBatches`` of a batch (by its object), added there the first time.
    private func frameGroupIndex(_ group: FrameGroup) -> Int16 {
        let id = ObjectIdentifier(group.object)
        let batchIndex: Int32
        if let known = frameBatchIndices[id] {
            batchIndex = known
        } else if let free = frameBatches.firstIndex(where: { $0 == nil }) {
            batchIndex = Int32(free)
            frameBatches[free] = group
            frameBatchIndices[id] = batchIndex
        } else {
            batchIndex = Int32(frameBatches.count)
            frameBatches.append(group)
            frameBatchIndices[id] = batchIndex
        }
        precondition(batchIndex <= Int16.max, "a scheduler updates at most 32,768 frame batches")
        return Int16(batchIndex)
    }

    /// The ``FrameSlot/handle`` of record `index`, or `nil` when its performer is not frame-updated: read when it
    /// joins the frame list (its first token after none), not kept in its record (8 bytes per performer): a batched
    /// performer's ``BatchedFrameUpdating/frameBatchMember``, or the box of one updated alone.
    private func frameHandle(of index: Int) -> UInt? {
        switch records[index].frameBatch {
        case PerformerRecord.notFrameUpdated: return nil
        case PerformerRecord.updatedAlone:
            return updaterBoxes[Int32(index)].map { UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque()) }
        default:
            if isMember(index) { return UInt(memberNumber(index)) }
            let performer = performer(ofRecord: index)
            return conformances(of: performer).batched.map { UInt(bitPattern: $0(performer).frameBatchMember) }
        }
    }

    /// Makes a performer for record `index` with its class's factory; `install` puts its record in place
    /// before the emitter and token generator are handed over (R11) and its creation is traced. When the
    /// factory fails, nothing is installed and the tokens it took are dropped.
    ///
    /// A new performer (`index` is the record count) whose factory emitted a transaction that made other
    /// performers goes after them: `install` is given the index the record takes.
    /// - Returns: The record's index.
    @discardableResult
    private func makePerformer(
        _ performerClass: PerformerClass, target: TargetReference, index: Int, install: (inout PerformerRecord, Int) -> Void
    ) throws(CommitError) -> Int {
        let isNew = index == records.count
        let key = PerformerKey(index: Int32(index), incarnation: nextIncarnation)
        nextIncarnation &+= 1
        let emitter = TransactionEmitter(inbox: inbox, source: key)
        let tokenGenerator = IsActiveTokenGenerator(inbox: inbox, owner: key)
        let performer: any Performer
        var member: PerformerMember?
        // A factory's emission may make other performers (R22) before this one is made: theirs nest.
        let enclosing = (creating, tokensDuringCreation)
        creating = (key, PerformerDescription(target: target.id, className: performerClass.name))
        tokensDuringCreation = []
        defer { (creating, tokensDuringCreation) = enclosing }
        do {
            let context = PerformerContext(
                scene: scene, targetIndex: target.index, performerClass: performerClass, emitter: emitter, tokenGenerator: tokenGenerator)
            if let sharedPerformer = performerClass.sharedPerformer {
                let shared = try sharedPerformer(context)
                member = try shared.makeMember(context)
                performer = box(of: shared)
            } else {
                performer = try performerClass.make(context)
            }
        } catch {
            for token in tokensDuringCreation { token.object?.invalidate() }
            throw CommitError(
                code: .performerUnavailable,
                message: "performer class \(performerClass.name) (\(performerClass.origin)) could not be created: \(error)",
                underlying: error)
        }
        let index = isNew ? records.count : index
        if index != Int(key.index) { movedRecords[key.incarnation] = Int32(index) }
        if let member {
            // A member: its shared performer's box in its record, its number beside it. Its emitter and token generator
            // came with the context (R11).
            let box = unsafeDowncast(performer, to: SharedPerformerBox.self)
            var record = PerformerRecord(
                performer: box, performerClass: classIndex(of: performerClass), target: target.rawIndex, incarnation: key.incarnation,
                performsNamedPlans: box.named != nil)
            if let frames = box.frames { record.frameBatch = frameGroupIndex(.shared(frames)) }
            if !updaterBoxes.isEmpty { updaterBoxes[Int32(index)] = nil }
            setMemberNumber(member.rawValue, at: index)
            install(&record, index)
            trace(.performerCreated(PerformerDescription(target: target.id, className: performerClass.name)))
            countTokensTakenDuringCreation(key)
            return index
        }
        let conformances = conformances(of: performer)
        var record = PerformerRecord(
            performer: performer, performerClass: classIndex(of: performerClass), target: target.rawIndex, incarnation: key.incarnation,
            performsNamedPlans: conformances.named != nil)
        if let batched = conformances.batched?(performer), let batch = batched.frameBatch {
            record.frameBatch = frameGroupIndex(.batch(batch))
        } else if let updater = conformances.updater?(performer) {
            let box = FrameUpdaterBox(updater)
            updaterBoxes[Int32(index)] = box
            record.frameBatch = PerformerRecord.updatedAlone
        }
        if record.frameBatch != PerformerRecord.updatedAlone, !updaterBoxes.isEmpty {
            // A performer replaced (R43) by one that is batched or not frame-updated leaves no box behind.
            updaterBoxes[Int32(index)] = nil
        }
        install(&record, index)
        // R11: the emitter and token generator are handed over once, before the first plan.
        conformances.composable?(performer).setEmitter(emitter)
        conformances.continuous?(performer).setIsActiveTokenGenerator(tokenGenerator)
        trace(.performerCreated(PerformerDescription(target: target.id, className: performerClass.name)))
        countTokensTakenDuringCreation(key)
        return index
    }

    /// Counts the tokens the performer `key` took while it was being created, from now on (its record is in place).
    private func countTokensTakenDuringCreation(_ key: PerformerKey) {
        for token in tokensDuringCreation {
            if let object = token.object {
                if object.isTerminated { terminatedBeforeSeen.remove(object.id) } else { tokenGenerated(object, owner: key) }
            } else if let index = self.record(of: key) {
                took(token, index: index)
            }
        }
    }

    // MARK: Re-creating performers (R43)

    /// Replaces every performer of the given classes by a new one made by its class again, and gives the
    /// new one the plans the old one held (Documentation/RUNTIME.md R43): for a plugin whose library was
    /// rebuilt (hot reload) or whose sandbox was restarted.
    ///
    /// For each such performer, in creation order: the class's factory makes a new performer for the same
    /// target (when it fails, the old performer is kept as it was, and the failure is reported); the old
    /// performer's outstanding is-active tokens are ended and traced (R37), it is removed and released (its
    /// plugin's `destroy_performer`), and the new one takes its place in creation order and is handed its
    /// emitter and token generator (R11). Then each new performer is given the old one's plans again, in
    /// the order it was given them: every plain plan with a plain add, each name it held with a named add
    /// under that name (its latest plan; a removed name is not re-added). The plans are prepared and
    /// checked by the class again, as at a commit, unless the class's preparation has not changed since they
    /// were committed (``PerformerClass/preparationDidChange()`` not called): then the form that commit
    /// prepared and checked is given, which the same checks would give again. Target values are not touched:
    /// the new performers start from what the old ones left.
    ///
    /// While it runs, transactions the performers emit are not performed (their plans are already held by
    /// the performers the first emissions reached, which keep them or are re-created with them), and
    /// activity changes are reported once at the end, only if the scheduler ends it in another state than
    /// it began. Tokens the replaced performers take or end later do nothing.
    ///
    /// - Parameter classes: The performer classes whose performers are re-created; performers of other
    ///   classes are left alone.
    /// - Returns: What was re-created, how many plans were re-added, and what failed.
    /// - Throws: ``CommitError`` with code `wrongThread` off the scheduler's thread, `unsupportedOperation`
    ///   when called from inside a performer call or a frame (call it between frames) or when
    ///   ``recordsPlansForRecreation`` is off; nothing is changed.
    @discardableResult
    public func recreatePerformers(of classes: [PerformerClass]) throws(CommitError) -> PerformerRecreation {
        // Refused off the thread in every build, as `commit` is.
        guard inbox.isOnSchedulerThread else {
            throw CommitError(
                code: .wrongThread,
                message: "recreatePerformers was called off the scheduler's thread. To fix, call it on the thread that created the scheduler.")
        }
        guard handling.isEmpty, !isAdvancingFrame, !isRecreating, creating == nil else {
            throw CommitError(
                code: .unsupportedOperation,
                message:
                    "recreatePerformers was called from inside a performer call or a frame. To fix, call it between frames, from the frame loop."
            )
        }
        guard recordsPlansForRecreation else {
            throw CommitError(
                code: .unsupportedOperation,
                message:
                    "recreatePerformers needs the performers' plans, which this scheduler does not keep. To fix, set recordsPlansForRecreation to true before the first commit."
            )
        }
        let ids = Set(classes.map { ObjectIdentifier($0) })
        var result = PerformerRecreation()
        let wasActive = activeTokenCount > 0
        isRecreating = true
        defer {
            isRecreating = false
            if (activeTokenCount > 0) != wasActive { activityChanged(activeTokenCount > 0) }
        }
        for (index, target, plans) in replacePerformers(of: ids, failures: &result.failures) {
            let description = describe(index)
            result.recreated.append(description)
            for entry in plans {
                do {
                    if try readd(entry, to: index, on: target) { result.reusedPreparationCount += 1 }
                    result.readdedPlanCount += 1
                } catch {
                    var error = error
                    error.target = target.id
                    error.planType = entry.plan.type
                    error.message =
                        "re-adding \(entry.name.map { "the plan named \(JSONText.quoted($0))" } ?? "a plan") of type \(JSONText.quoted(entry.plan.type)) to the new \(description) failed, so it was dropped: \(error.message)"
                    result.failures.append(error)
                }
            }
        }
        return result
    }

    /// What ``recreatePerformers(of:)`` would call, in its order, if called now with `classes`: for a host that sends
    /// those calls to another process as one request (an isolated plugin's new sandbox, R43) and then answers R43's
    /// calls from its reply. Each performer of the classes, in creation order, with its target, its class and the
    /// plans R43 would give its new one again, in order (plain ones with `name` `nil`); a plan whose class's
    /// preparation changed since its commit is `nil` (R43 prepares it again first). R43 makes every new performer
    /// before it gives any of them a plan, and gives none to a performer it could not make. Changes nothing.
    /// - Parameter classes: The performer classes, as ``recreatePerformers(of:)`` takes them.
    /// - Returns: One outline per performer; empty when none, or when ``recordsPlansForRecreation`` is off.
    public func recreationOutline(of classes: [PerformerClass]) -> [PerformerRecreationOutline] {
        guard recordsPlansForRecreation else { return [] }
        let ids = Set(classes.map { ObjectIdentifier($0) })
        return records.indices.compactMap { index -> PerformerRecreationOutline? in
            let performerClass = performerClasses[Int(records[index].performerClass)]
            guard ids.contains(ObjectIdentifier(performerClass)) else { return nil }
            let plans = (planLogs[Int32(index)]?.plans ?? []).map { entry in
                (plan: entry.revision == performerClass.preparationRevision ? entry.prepared : nil, name: entry.name)
            }
            return PerformerRecreationOutline(target: scene.target(at: Int(records[index].target)), performerClass: performerClass, plans: plans)
        }
    }

    /// The first half of ``recreatePerformers(of:)``: makes the new performers and puts them in the old ones'
    /// places. The old records are released when this returns (their performers destroyed), before any plan
    /// is re-added.
    /// - Returns: Each new record's index, its target and the plans its predecessor held.
    private func replacePerformers(of ids: Set<ObjectIdentifier>, failures: inout [CommitError])
        -> [(Int, TargetReference, [PlanLog.Entry])]
    {
        let chosen = records.indices.filter { ids.contains(ObjectIdentifier(performerClasses[Int(records[$0].performerClass)])) }
        guard !chosen.isEmpty else { return [] }
        // Kept alive until this returns, so no new performer's frame handle can reuse an old one's address.
        var retired: [(record: PerformerRecord, member: UInt64)] = []
        var made: [(Int, TargetReference, [PlanLog.Entry])] = []
        // The chosen performers' tokens past their first, by record, found in one pass: a scan of every token for
        // each replaced performer made replacing 1,000 running Tweens a million token visits (a third of a reload).
        var extraTokensOfRecord: [Int: [HeldToken]] = [:]
        if !extraTokens.isEmpty || !extraTokenIDs.isEmpty {
            let chosenSet = Set(chosen)
            for token in extraTokens.values {
                if let index = record(of: token.owner), chosenSet.contains(index) {
                    extraTokensOfRecord[index, default: []].append(HeldToken(id: token.id, object: token, owner: token.owner))
                }
            }
            for (id, owner) in extraTokenIDs {
                if let index = record(of: owner), chosenSet.contains(index) {
                    extraTokensOfRecord[index, default: []].append(HeldToken(id: id, object: nil, owner: owner))
                }
            }
        }
        for index in chosen {
            let old = records[index]
            // Read before the new member's number takes its place.
            let memberOfReplaced = memberNumber(index)
            let target = TargetReference(index: Int(old.target), id: scene.targetID(at: Int(old.target)))
            let oldDescription = describe(index)
            do {
                try makePerformer(performerClasses[Int(old.performerClass)], target: target, index: index) { new, _ in
                    // R37 for the replaced performer: its outstanding tokens end, in the order they were generated, traced.
                    var tokens = extraTokensOfRecord[index] ?? []
                    if let first = records[index].firstToken.token {
                        let owner = PerformerKey(index: Int32(index), incarnation: records[index].incarnation)
                        tokens.append(HeldToken(id: first.id, object: first.object, owner: owner))
                    }
                    if tokens.count > 1 { tokens.sort { $0.id < $1.id } }
                    for token in tokens { endToken(token) }
                    trace(.performerDestroyed(oldDescription))
                    new.nextOnTarget = old.nextOnTarget
                    retired.append((records[index], memberOfReplaced))
                    records[index] = new
                }
                made.append((index, target, planLogs.removeValue(forKey: Int32(index))?.plans ?? []))
            } catch {
                var error = error
                error.target = target.id
                error.message = "the performer \(oldDescription) was kept, since a new one could not be made: \(error.message)"
                failures.append(error)
            }
        }
        // The old performers leave the frame list and the names they held, while `retired` still keeps them
        // alive. A new performer that took a token while it was made has one slot, its record's last (the
        // old ones' came before it): their handles cannot tell them apart (an isolated plugin's member in a
        // new sandbox has its predecessor's handle, in another batch).
        let replaced = Set(made.map { Int32($0.0) })
        var newSlots: [Int32: Int] = [:]
        for (position, slot) in frameUpdaters.enumerated()
        where replaced.contains(slot.performer) && records[Int(slot.performer)].isInUpdateList {
            newSlots[slot.performer] = position
        }
        frameUpdaters = ContiguousArray(
            frameUpdaters.enumerated().lazy.filter { position, slot in
                !replaced.contains(slot.performer) || newSlots[slot.performer] == position
            }.map(\.element))
        namedPlans = namedPlans.filter { !replaced.contains($0.value) }
        // The batches of the replaced performers that no performer uses now (a plugin's before its reload, an
        // ended sandbox's) are let go; no frame slot names them any more.
        var usedBatches = Set<Int16>()
        for index in records.indices where records[index].frameBatch >= 0 {
            usedBatches.insert(records[index].frameBatch)
        }
        for index in frameBatches.indices where !usedBatches.contains(Int16(index)) {
            guard let batch = frameBatches[index] else { continue }
            frameBatchIndices[ObjectIdentifier(batch.object)] = nil
            frameBatches[index] = nil
        }
        // The replaced members are destroyed here, as the replaced objects are released just after, in order.
        for old in retired where performerClasses[Int(old.record.performerClass)].sharedPerformer != nil {
            unsafeDowncast(old.record.performer, to: SharedPerformerBox.self).shared.destroyMember(PerformerMember(rawValue: old.member))
        }
        withExtendedLifetime(retired) {}
        return made
    }

    /// Gives a re-created performer one of its predecessor's plans again: in the form its commit prepared and
    /// checked when its class's preparation has not changed since (``PerformerClass/preparationDidChange()``),
    /// else prepared and checked by its class again.
    /// - Returns: Whether the kept prepared form was given (no preparation ran).
    private func readd(_ entry: PlanLog.Entry, to index: Int, on target: TargetReference) throws(CommitError) -> Bool {
        let performerClass = performerClasses[Int(records[index].performerClass)]
        let isPrepared = entry.revision == performerClass.preparationRevision
        let prepared = isPrepared ? entry.prepared : try resolve(entry.plan, on: target).1
        let revision = performerClass.preparationRevision
        guard let name = entry.name else {
            try performing(prepared, on: target.id) { () throws -> Void in try addPlan(prepared, toRecord: index) }
            planLogs[Int32(index), default: PlanLog()].add(entry.plan, prepared: prepared, revision: revision)
            trace(.planAdded(prepared, performer: describe(index)))
            return isPrepared
        }
        guard let named = namedPerformer(index) else {
            throw CommitError(
                code: .unsupportedOperation,
                message: "performer class \(performerClasses[Int(records[index].performerClass)].name) does not perform named plans any more")
        }
        try performing(prepared, on: target.id) { () throws -> Void in try named.addPlan(prepared, named: name) }
        namedPlans[NamedPlanKey(target: target.id, name: name)] = Int32(index)
        planLogs[Int32(index), default: PlanLog()].add(entry.plan, prepared: prepared, revision: revision, named: name)
        trace(.namedPlanAdded(prepared, name: name, performer: describe(index)))
        return isPrepared
    }

    /// The outstanding tokens whose owner satisfies `isOwner`, in the order they were generated (by id).
    private func outstandingTokens(where isOwner: (PerformerKey) -> Bool) -> [HeldToken] {
        var found: [HeldToken] = []
        for index in records.indices {
            guard let first = records[index].firstToken.token else { continue }
            // The record's own key (a moved record's differs from its creation's, but finds the same record).
            let owner = PerformerKey(index: Int32(index), incarnation: records[index].incarnation)
            if isOwner(owner) { found.append(HeldToken(id: first.id, object: first.object, owner: owner)) }
        }
        found += extraTokens.values.filter { isOwner($0.owner) }.map { HeldToken(id: $0.id, object: $0, owner: $0.owner) }
        found += extraTokenIDs.filter { isOwner($0.value) }.map { HeldToken(id: $0.key, object: nil, owner: $0.value) }
        return found.sorted { $0.id < $1.id }
    }

    /// Ends an outstanding token on the scheduler's behalf (its performer is going): invalidated, so that
    /// the performer's own terminate later does nothing, and traced.
    private func endToken(_ token: HeldToken) {
        guard let index = record(of: token.owner), forget(token.id, of: index) != nil else { return }
        token.object?.invalidate()
        trace(.tokenTerminated(id: token.id, performer: describe(index)))
        activeTokenCount -= 1
        if activeTokenCount == 0 { activityChanged(false) }
    }

    /// Removes an outstanding token from its performer's record (or ``extraTokens``, ``extraTokenIDs``) and
    /// lowers the performer's count.
    /// - Returns: The token, or `nil` when the performer did not hold it (another performer's stays).
    private func forget(_ id: UInt64, of index: Int) -> HeldToken? {
        let owner = PerformerKey(index: Int32(index), incarnation: records[index].incarnation)
        let held: HeldToken
        if let first = records[index].firstToken.token, first.id == id {
            held = HeldToken(id: id, object: first.object, owner: owner)
            records[index].firstToken.clear()
        } else if let object = extraTokens[id], record(of: object.owner) == index {
            extraTokens[id] = nil
            held = HeldToken(id: id, object: object, owner: owner)
        } else if let holder = extraTokenIDs[id], record(of: holder) == index {
            extraTokenIDs[id] = nil
            held = HeldToken(id: id, object: nil, owner: owner)
        } else {
            return nil
        }
        records[index].tokenCount -= 1
        return held
    }

    // MARK: Tokens

    func tokenGenerated(_ token: IsActiveToken, owner: PerformerKey) {
        if terminatedBeforeSeen.remove(token.id) != nil { return }
        let index = record(of: owner)
        if let creating, creating.key == owner, index == nil {
            tokensDuringCreation.append(HeldToken(id: token.id, object: token, owner: owner))
            return
        }
        // A performer that was replaced (R43) takes no more tokens.
        guard let index else {
            token.invalidate()
            return
        }
        took(HeldToken(id: token.id, object: token, owner: owner), index: index)
    }

    /// A token taken by id on the scheduler's thread (``IsActiveTokenGenerator/generateID()``).
    /// - Returns: Its id, or `nil` when the scheduler is closing or the performer was replaced (R43).
    func generateTokenID(owner: PerformerKey) -> UInt64? {
        let index = record(of: owner)
        let isBeingMade = creating?.key == owner && index == nil
        guard index != nil || isBeingMade, let id = inbox.makeTokenID() else { return nil }
        let token = HeldToken(id: id, object: nil, owner: owner)
        if let index { took(token, index: index) } else { tokensDuringCreation.append(token) }
        return id
    }

    /// Ends a token by id on the scheduler's thread (``IsActiveTokenGenerator/terminate(tokenID:)``): one the
    /// performer holds, taken by id or as an object (which is then terminated too).
    /// - Returns: `false` when the performer holds no token of that id (it ended, or never was its).
    func terminateToken(id: UInt64, owner: PerformerKey) -> Bool {
        guard let index = record(of: owner) else {
            // Taken while the performer is being made, before its record is in place.
            guard creating?.key == owner, let found = tokensDuringCreation.firstIndex(where: { $0.id == id }) else { return false }
            guard tokensDuringCreation[found].object?.isTerminated != true else { return false }
            tokensDuringCreation.remove(at: found).object?.invalidate()
            return true
        }
        guard let held = forget(id, of: index) else { return false }
        held.object?.invalidate()
        ended(id, index: index)
        return true
    }

    /// Counts a new outstanding token of record `index`: kept there (the first) or in a side table, traced,
    /// its performer put in the frame list, the activity raised (R29–R32).
    private func took(_ token: HeldToken, index: Int) {
        if records[index].firstToken.isEmpty {
            records[index].firstToken.set(id: token.id, object: token.object)
        } else if let object = token.object {
            extraTokens[token.id] = object
        } else {
            extraTokenIDs[token.id] = token.owner
        }
        records[index].tokenCount += 1
        trace(.tokenGenerated(id: token.id, performer: describe(index)))
        if records[index].tokenCount == 1, !records[index].isInUpdateList, let handle = frameHandle(of: index) {
            records[index].isInUpdateList = true
            frameUpdaters.appendGrowingByHalf(FrameSlot(performer: Int32(index), batch: Int32(records[index].frameBatch), handle: handle))
        }
        activeTokenCount += 1
        if activeTokenCount == 1 { activityChanged(true) }
    }

    func tokenTerminated(_ id: UInt64, owner: PerformerKey) {
        guard let index = record(of: owner) else {
            // The performer is gone (replaced, R43): it ended its tokens, and one taken that did not reach it was
            // let go on arrival, so nothing will come to skip. One still being made may yet see its token arrive.
            if creating?.key == owner { terminatedBeforeSeen.insert(id) }
            return
        }
        guard forget(id, of: index) != nil else {
            // Generated on another thread and not yet seen here: skip it when it arrives.
            terminatedBeforeSeen.insert(id)
            return
        }
        ended(id, index: index)
    }

    /// How many token ends wait for their token's arrival from another thread, to skip it (R36): zero once the
    /// inbox is drained, whatever the performers did.
    package var terminationsAwaitingTheirToken: Int { terminatedBeforeSeen.count }

    /// What follows the end of record `index`'s token `id`, forgotten already: the frame list's compaction
    /// (its last token), the trace, the activity (R29, R35).
    private func ended(_ id: UInt64, index: Int) {
        if records[index].tokenCount == 0 {
            tokenCountsEnded &+= 1
            if records[index].isInUpdateList { frameUpdatersNeedCompaction = true }
        }
        trace(.tokenTerminated(id: id, performer: describe(index)))
        activeTokenCount -= 1
        if activeTokenCount == 0 { activityChanged(false) }
    }

    private func activityChanged(_ isActive: Bool) {
        // R43: a re-creation reports only where it leaves the scheduler, once, when it ends.
        guard !isRecreating else { return }
        trace(.activityChanged(isActive: isActive))
        for observer in observers { observer.schedulerActivityDidChange(isActive: isActive) }
    }

    // MARK: Turns and frames

    /// Applies work queued from other threads, in order: emitted transactions, token generations and
    /// terminations (R36).
    /// - Returns: The errors of queued emissions that failed (each also failed its own transaction only).
    @discardableResult
    public func processPendingWork() -> [CommitError] {
        checkThread("processPendingWork()")
        var errors: [CommitError] = []
        for work in inbox.drain() {
            switch work {
            case .emit(let transaction, let source):
                do {
                    try commitEmitted(transaction, from: source)
                } catch {
                    errors.append(error)
                }
            case .tokenGenerated(let token, let owner): tokenGenerated(token, owner: owner)
            case .tokenTerminated(let id, let owner): tokenTerminated(id, owner: owner)
            case .tokenTerminatedByID(let id, let owner): _ = terminateToken(id: id, owner: owner)
            }
        }
        return errors
    }

    /// Runs one frame: applies pending work, then updates every frame-updated performer that holds an
    /// is-active token, in the order they first took one.
    /// - Parameter time: The frame's time, seconds; the delta is measured from the previous frame.
    /// - Returns: The errors of queued emissions that failed.
    @discardableResult
    public func advanceFrame(to time: Double) -> [CommitError] {
        checkThread("advanceFrame(to:)")
        let errors = processPendingWork()
        let frame = Frame(index: nextFrameIndex, time: time, delta: nextFrameIndex == 0 ? 0 : time - lastFrameTime)
        nextFrameIndex += 1
        lastFrameTime = time
        if frameUpdatersNeedCompaction {
            frameUpdatersNeedCompaction = false
            frameUpdaters.removeAll { slot in
                let index = Int(slot.performer)
                guard records[index].tokenCount == 0 else { return false }
                records[index].isInUpdateList = false
                return true
            }
        }
        // Performers may take or end tokens while updating; iterate the list as it was at the start.
        let updaters = frameUpdaters
        // The kept buffer, unless a performer advanced this scheduler from inside a frame: then one of
        // this frame's own, so the outer frame's members stay as they are.
        let members: UnsafeMutableBufferPointer<UInt>
        let isNested = isAdvancingFrame
        if isNested {
            members = .allocate(capacity: Swift.max(updaters.count, 1))
        } else {
            if batchMembers.count < updaters.count {
                batchMembers.deallocate()
                batchMembers = .allocate(capacity: updaters.count)
            }
            members = batchMembers
        }
        isAdvancingFrame = true
        // After the compaction every listed performer holds a token; until a count drops to zero, a
        // batch's members need not be read to know they are active.
        let countsEndedAtStart = tokenCountsEnded
        defer {
            isAdvancingFrame = isNested
            if isNested { members.deallocate() }
        }
        updaters.withUnsafeBufferPointer { updaters in
            var i = 0
            while i < updaters.count {
                let slot = updaters[i]
                i += 1
                guard records[Int(slot.performer)].tokenCount > 0 else { continue }
                guard slot.batch >= 0 else {
                    // Borrowed, not retained: the record holds the box while its slot is listed.
                    Unmanaged<FrameUpdaterBox>.fromOpaque(UnsafeRawPointer(bitPattern: slot.handle)!)._withUnsafeGuaranteedRef {
                        $0.updater.update(frame: frame)
                    }
                    continue
                }
                // A run of consecutive members of one batch: one call for all of them, in order. The walk reads
                // the slots only (no record) unless a token count has dropped to zero during this frame.
                members[0] = slot.handle
                var memberCount = 1
                let readsCounts = tokenCountsEnded != countsEndedAtStart
                while i < updaters.count, updaters[i].batch == slot.batch {
                    let next = updaters[i]
                    i += 1
                    if readsCounts, records[Int(next.performer)].tokenCount == 0 { continue }
                    members[memberCount] = next.handle
                    memberCount += 1
                }
                let run = UnsafeBufferPointer(rebasing: members[..<memberCount])
                switch frameBatches[Int(slot.batch)]! {
                case .batch(let batch):
                    // Handles of batched performers: their `frameBatchMember` pointers' bits.
                    run.withMemoryRebound(to: OpaquePointer.self) { batch.update($0, frame: frame) }
                case .shared(let shared):
                    run.withMemoryRebound(to: PerformerMember.self) { shared.update($0, frame: frame) }
                }
            }
        }
        return errors
    }

    /// The number of performers that will be updated on the next frame.
    public var frameUpdatedPerformerCount: Int {
        checkThread("frameUpdatedPerformerCount")
        return frameUpdaters.lazy.filter { self.records[Int($0.performer)].tokenCount > 0 }.count
    }
}

/// An outstanding is-active token: its id, its object unless it was taken by id, and its performer.
private struct HeldToken {
    let id: UInt64
    let object: IsActiveToken?
    let owner: PerformerKey
}

private struct NamedPlanKey: Hashable {
    let target: TargetID
    let name: String
}

/// A target as a commit names it: its index in the scene and its name. A ``Target`` object is made only for code that
/// asks for one (a class's plan checks, a ``PerformerContext``'s `target`), so members of shared performers make none.
private struct TargetReference {
    let index: Int
    let id: TargetID
    var rawIndex: Int32 { Int32(truncatingIfNeeded: index) }
}

/// A frame-updated performer in the frame list (16 bytes), made once with its record: a frame walks a
/// batch's run reading these alone, where reading one record or object per member (a cache miss each, with
/// 10,000 performers) cost about 2.7 ns per member of TweenKit's frame tick.
private struct FrameSlot {
    /// The performer's record index.
    let performer: Int32
    /// Its batch's index in ``Scheduler/frameBatches``, or -1 when it is updated alone.
    let batch: Int32
    /// The bits of its ``BatchedFrameUpdating/frameBatchMember``, or of (alone) its record's ``FrameUpdaterBox``,
    /// unretained; a member's number (``PerformerMember``), for a member of a shared performer.
    let handle: UInt
}

/// What a frame calls for a run of slots of one batch: a ``FrameBatch`` of performer objects, or a shared performer
/// for its members.
private enum FrameGroup {
    case batch(any FrameBatch)
    case shared(any FrameUpdatingSharedPerformer)

    /// The batch or shared performer, by which the scheduler keeps each once.
    var object: AnyObject {
        switch self {
        case .batch(let batch): batch
        case .shared(let shared): shared
        }
    }
}

/// A shared performer (``SharedPerformer``) as its members' records hold it: in the record's performer field, one box
/// per shared performer and scheduler, with what it conforms to found once. It is never called as a performer.
private final class SharedPerformerBox: Performer {
    let shared: any SharedPerformer
    let named: (any NamedPlanSharedPerforming)?
    let frames: (any FrameUpdatingSharedPerformer)?

    init(_ shared: any SharedPerformer) {
        self.shared = shared
        named = shared as? any NamedPlanSharedPerforming
        frames = shared as? any FrameUpdatingSharedPerformer
    }

    func addPlan(_ plan: Plan) throws {
        preconditionFailure("a shared performer's box is given plans through SharedPerformer.addPlan(_:to:)")
    }
}

/// A record's performer as a performer of named plans: an object, or a member of a shared performer.
private enum NamedPlanHandler {
    case performer(any NamedPlanPerforming)
    case member(any NamedPlanSharedPerforming, PerformerMember)

    func addPlan(_ plan: Plan, named name: String) throws {
        switch self {
        case .performer(let performer): try performer.addPlan(plan, named: name)
        case .member(let shared, let member): try shared.addPlan(plan, named: name, to: member)
        }
    }

    func removePlan(named name: String) throws {
        switch self {
        case .performer(let performer): try performer.removePlan(named: name)
        case .member(let shared, let member): try shared.removePlan(named: name, from: member)
        }
    }
}

/// Holds a performer updated alone as `any FrameUpdating` in a `let` of a final class: only through an
/// `Unmanaged` of a concrete class does a frame call it with no retain and release (Documentation/PITFALLS.md).
private final class FrameUpdaterBox {
    let updater: any FrameUpdating
    init(_ updater: any FrameUpdating) { self.updater = updater }
}

/// One performer, a value in the scheduler's dense ``Scheduler/records`` (48 bytes): what is kept for
/// every performer, with no dictionary entry or object of its own. Plan logs (R43), names (R13) and
/// tokens past the first live in side tables only when used; its target and class are 4-byte indices (into
/// the scene's `targets` and ``Scheduler/performerClasses``), its frame handle is read again when it joins the
/// frame list (``Scheduler/frameHandle(of:)``), and its first token is one word (``FirstToken``). Fields are in
/// the order that packs them: 16 + 8 + 6 × 4 bytes of words, then the batch index and the two flags.
private struct PerformerRecord {
    let performer: any Performer
    /// The id of the performer's first outstanding token (most hold one at most), with its object if it was
    /// taken as one; others are in ``Scheduler/extraTokens`` and ``Scheduler/extraTokenIDs``.
    var firstToken = FirstToken()
    /// The ``PerformerKey/incarnation`` of the attempt that made it.
    let incarnation: UInt32
    /// The next performer of the same target, or -1.
    var nextOnTarget: Int32 = -1
    var tokenCount: Int32 = 0
    /// Its target's index in the scene's `targets` (the scene holds its targets for its life and the scheduler
    /// holds the scene, R42).
    let target: Int32
    /// The class that made the performer, its key with the target (R5–R8), and to make it again (R43): its
    /// index in ``Scheduler/performerClasses``.
    let performerClass: Int32
    /// The performer's ``FrameSlot/batch`` when it is batched; ``updatedAlone`` or ``notFrameUpdated`` else.
    var frameBatch: Int16 = notFrameUpdated
    var isInUpdateList = false
    let performsNamedPlans: Bool

    /// ``frameBatch`` of a frame-updated performer updated alone (through its ``FrameUpdaterBox``).
    static let updatedAlone: Int16 = -1
    /// ``frameBatch`` of a performer that is not frame-updated.
    static let notFrameUpdated: Int16 = -2

    init(performer: any Performer, performerClass: Int32, target: Int32, incarnation: UInt32, performsNamedPlans: Bool) {
        self.performer = performer
        self.performerClass = performerClass
        self.target = target
        self.incarnation = incarnation
        self.performsNamedPlans = performsNamedPlans
    }
}

/// What one performer type conforms to among the protocols the scheduler asks about, each as a view that gives a
/// performer of exactly that type as the protocol, with no dynamic cast: made by five casts of the first performer
/// of the type, then kept by the scheduler (``Scheduler/conformances(of:)``). Each cast asks `swift_conformsToProtocol`,
/// whose cost grows with the conformance records of the loaded images: about 240–540 instructions each with a plugin
/// library loaded.
///
/// A view must only be given a performer whose dynamic type is the one the answers were found for: it downcasts
/// without a check in release builds (`unsafeDowncast`, which checks in debug builds).
private final class PerformerConformances {
    let named: ((any Performer) -> any NamedPlanPerforming)?
    let batched: ((any Performer) -> any BatchedFrameUpdating)?
    let updater: ((any Performer) -> any FrameUpdating)?
    let composable: ((any Performer) -> any ComposablePerforming)?
    let continuous: ((any Performer) -> any ContinuousPerforming)?

    init(of performer: any Performer) {
        named = (performer as? any NamedPlanPerforming).map { Self.namedView(of: $0) }
        batched = (performer as? any BatchedFrameUpdating).map { Self.batchedView(of: $0) }
        updater = (performer as? any FrameUpdating).map { Self.updaterView(of: $0) }
        composable = (performer as? any ComposablePerforming).map { Self.composableView(of: $0) }
        continuous = (performer as? any ContinuousPerforming).map { Self.continuousView(of: $0) }
    }

    private static func namedView<T: NamedPlanPerforming>(of _: T) -> (any Performer) -> any NamedPlanPerforming {
        { unsafeDowncast($0, to: T.self) }
    }
    private static func batchedView<T: BatchedFrameUpdating>(of _: T) -> (any Performer) -> any BatchedFrameUpdating {
        { unsafeDowncast($0, to: T.self) }
    }
    private static func updaterView<T: FrameUpdating>(of _: T) -> (any Performer) -> any FrameUpdating {
        { unsafeDowncast($0, to: T.self) }
    }
    private static func composableView<T: ComposablePerforming>(of _: T) -> (any Performer) -> any ComposablePerforming {
        { unsafeDowncast($0, to: T.self) }
    }
    private static func continuousView<T: ContinuousPerforming>(of _: T) -> (any Performer) -> any ContinuousPerforming {
        { unsafeDowncast($0, to: T.self) }
    }
}

/// A performer's first outstanding is-active token in one word (a record took 16 bytes for its id and its
/// object): 0 for none; a token taken by id (``IsActiveTokenGenerator/generateID()``) as `id << 1 | 1` (ids are
/// below 2^63); a token object as its address (even: objects are 16-byte aligned), holding one strong reference.
///
/// Invariant: the word's reference is its record's, in ``Scheduler/records`` alone. Only ``set(id:object:)``
/// (on an empty word) and ``clear()`` change it; copies of a record (a replaced one kept alive for a moment, a
/// record read into a local) never clear theirs, and the scheduler's `deinit` clears every record's.
private struct FirstToken {
    private var bits: UInt64 = 0

    var isEmpty: Bool { bits == 0 }

    /// The token's id and, if it was taken as one, its object; `nil` when there is none.
    var token: (id: UInt64, object: IsActiveToken?)? {
        if bits == 0 { return nil }
        if bits & 1 != 0 { return (bits >> 1, nil) }
        let object = Unmanaged<IsActiveToken>.fromOpaque(UnsafeRawPointer(bitPattern: UInt(bits))!).takeUnretainedValue()
        return (object.id, object)
    }

    /// Holds a token: its object (retained) or, without one, its id.
    mutating func set(id: UInt64, object: IsActiveToken?) {
        precondition(bits == 0 && id != 0 && id < 1 << 63, "a record's first token is set once, to a token id")
        if let object {
            bits = UInt64(UInt(bitPattern: Unmanaged.passRetained(object).toOpaque()))
        } else {
            bits = id << 1 | 1
        }
    }

    /// Lets go of the token (releasing its object, if any).
    mutating func clear() {
        if bits != 0, bits & 1 == 0 {
            Unmanaged<IsActiveToken>.fromOpaque(UnsafeRawPointer(bitPattern: UInt(bits))!).release()
        }
        bits = 0
    }
}

/// The plans one performer holds, in the order it was given them: every plain plan, and each name's latest
/// plan until the name is removed (R43). Plans are kept as committed (before their class prepared them) and as
/// prepared, with the class's ``PerformerClass/preparationRevision`` then: a re-created performer is given the
/// prepared form while that is unchanged, else the plan prepared again by its class as it is then. (A completed
/// plan shares the committed one's fields, so the prepared form adds little.)
struct PlanLog {
    /// One held plan; `name` is `nil` for a plain add.
    struct Entry {
        let plan: Plan
        let prepared: Plan
        let revision: Int
        let name: String?
    }

    /// Held plans in order; `nil` where a named plan was removed or replaced.
    private var entries: [Entry?] = []
    /// Where each held name's entry is.
    private var namedIndex: [String: Int] = [:]
    private var removedCount = 0

    /// The held plans, in order.
    var plans: [Entry] { entries.compactMap { $0 } }

    mutating func add(_ plan: Plan, prepared: Plan, revision: Int) {
        entries.append(Entry(plan: plan, prepared: prepared, revision: revision, name: nil))
    }

    mutating func add(_ plan: Plan, prepared: Plan, revision: Int, named name: String) {
        remove(named: name)
        namedIndex[name] = entries.count
        entries.append(Entry(plan: plan, prepared: prepared, revision: revision, name: name))
    }

    mutating func remove(named name: String) {
        guard let index = namedIndex.removeValue(forKey: name) else { return }
        entries[index] = nil
        removedCount += 1
        // Keep the log at most twice as long as what it holds.
        if removedCount > 16, removedCount * 2 > entries.count { compact() }
    }

    private mutating func compact() {
        entries = entries.filter { $0 != nil }
        removedCount = 0
        namedIndex.removeAll(keepingCapacity: true)
        for (index, entry) in entries.enumerated() {
            if let name = entry?.name { namedIndex[name] = index }
        }
    }
}

/// One performer that ``Scheduler/recreatePerformers(of:)`` would replace, and the plans it would give the new one
/// (``Scheduler/recreationOutline(of:)``).
public struct PerformerRecreationOutline {
    /// The performer's target.
    public let target: Target
    /// Its class, whose factory R43 calls.
    public let performerClass: PerformerClass
    /// The plans, in the order R43 gives them: the prepared and checked form it gives (`nil`: prepared again first,
    /// so not known before), and the name for a named plan.
    public let plans: [(plan: Plan?, name: String?)]
}

/// What ``Scheduler/recreatePerformers(of:)`` did (R43).
public struct PerformerRecreation: CustomStringConvertible {
    /// Nothing re-created (a host's reload of a plugin that had no performers).
    public init() {}

    /// The performers that were replaced by new ones, in creation order.
    public var recreated: [PerformerDescription] = []
    /// How many plans were given again to the new performers.
    public var readdedPlanCount = 0
    /// How many of those were given in the form their commit prepared and checked, without preparing them again:
    /// their class's preparation had not changed since (``PerformerClass/preparationDidChange()``).
    public var reusedPreparationCount = 0
    /// What failed, in order: a performer that could not be made again (the old one is kept, unchanged),
    /// or a plan the new performer refused (it is dropped; the others are kept). Each names the target, the
    /// plan type or class, and the cause.
    public var failures: [CommitError] = []

    public var description: String {
        "\(recreated.count) performer\(recreated.count == 1 ? "" : "s") re-created, \(readdedPlanCount) plan\(readdedPlanCount == 1 ? "" : "s") re-added"
            + (failures.isEmpty ? "" : "; \(failures.count) failed: " + failures.map(\.description).joined(separator: "; "))
    }
}
