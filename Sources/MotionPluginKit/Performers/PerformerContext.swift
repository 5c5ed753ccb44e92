import CMotionABI
import CMotionPluginKitSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A host log level (`MOTION_LOG_*`).
public struct LogLevel: RawRepresentable, Hashable, Sendable {
    /// The `MOTION_LOG_*` value.
    public let rawValue: Int32
    /// Wraps a raw level.
    /// - Parameter rawValue: a `MOTION_LOG_*` value.
    public init(rawValue: Int32) { self.rawValue = rawValue }
    /// `MOTION_LOG_DEBUG`.
    public static let debug = LogLevel(rawValue: MOTION_LOG_DEBUG)
    /// `MOTION_LOG_INFO`.
    public static let info = LogLevel(rawValue: MOTION_LOG_INFO)
    /// `MOTION_LOG_WARNING`.
    public static let warning = LogLevel(rawValue: MOTION_LOG_WARNING)
    /// `MOTION_LOG_ERROR`.
    public static let error = LogLevel(rawValue: MOTION_LOG_ERROR)
}

/// An interned property name of the performer's target (`motion_property_id`, >= 0), stable for the run.
public struct PropertyID: Hashable, Sendable {
    /// The host's id.
    public let rawValue: Int32

    /// An id from its raw value. Only ids from `PerformerContext.propertyID(named:)` name a property.
    public init(rawValue: Int32) { self.rawValue = rawValue }
}

/// Where a property of the performer's target keeps its value in the host's store (`motion_property_slot`,
/// motion/slots.h), with the property's id: resolve it once (`PerformerContext.slot(for:)`) when a plan
/// arrives, and write through it every frame (`PerformerContext.setValue(_:at:)`).
public struct PropertySlot: Hashable, Sendable {
    /// The host's slot, or -1 when the host is older than ABI 1.3 (writes then go by ``property``).
    public let rawValue: Int32
    /// The property's id.
    public let property: PropertyID

    /// A slot from its parts. Only slots from ``PerformerContext/slot(for:)`` name a property.
    public init(rawValue: Int32, property: PropertyID) {
        self.rawValue = rawValue
        self.property = property
    }
}

/// A performer's line to the host: emission (composition), is-active tokens, the target's properties
/// and the log. Wraps the `motion_host_context *` the host passed to `create_performer`.
///
/// Thread rules follow `motion_plugin.h`: `emit`, `generateToken`, `Token.terminate`, `log` and
/// `targetName` may be used from any thread; property access only on the scheduler thread (the host
/// answers `.wrongThread` otherwise). After the performer is destroyed every call fails with
/// `.schedulerGone` instead of touching the host's freed context: the SDK waits for calls in flight on
/// other threads before it lets the host free it.
public final class PerformerContext: Sendable {
    // The context is also the SDK's record of the performer: its address is the `motion_performer *` the host holds
    // (no second object per performer). It keeps only what is the performer's own (40 bytes, a 64-byte heap block
    // with the object's header; 104 bytes, a 112-byte block, before): what the performers of its class created on its
    // thread share (the plugin, the class's plan table, the scheduler thread, the queue of writes during a frame) is
    // in one ``ContextGroup``, and the target's name is asked of the host (`target_name`) when a message or an
    // emission needs it.

    /// The members of the performer's `FrameBatch` (a `BatchedFrameUpdating` performer's), retained from
    /// `create_performer` to `destroy_performer` (scheduler thread): `update_many` runs the batch for each run of
    /// its members.
    @exclusivity(unchecked) nonisolated(unsafe) var batchMembers: Unmanaged<BatchMembers>?
    /// The performer's number in ``batchMembers``.
    @exclusivity(unchecked) nonisolated(unsafe) var batchIndex: Int32 = -1
    /// Bit 30: destroyed. Bits 0..<30: calls in flight from threads other than the scheduler's.
    private let state = Atomic<UInt32>(0)
    /// The performer this context was made for, retained from `create_performer` to `destroy_performer` (scheduler
    /// thread), which releases it while the context is still live.
    @exclusivity(unchecked) nonisolated(unsafe) var performerObject: Unmanaged<AnyObject>?
    /// What the contexts of the performers of this class made on this thread share.
    @usableFromInline let group: ContextGroup
    @usableFromInline let handle: ContextHandle

    /// The performer's class: its plan types and the calls made into its performers with no cast.
    var plans: PlanTable { group.plans }
    /// The plugin's part that all its performers share: the host's interface and the plugin's id.
    var plugin: PluginIdentity { group.plugin }
    /// Where property writes go while `update_many` updates a performer of this group (set and cleared around its
    /// update on the scheduler thread, read only there), or `nil` to call `set_property` per write.
    @usableFromInline var pendingWrites: Unmanaged<PropertyWriteQueue>? {
        get { group.pendingWrites }
        set { group.pendingWrites = newValue }
    }

    /// The name of the performer's target (`motion_host_v1.target_name`, asked of the host at each read: no copy is
    /// kept per performer). Once the performer is destroyed, the name it had, if the context is still held by then
    /// (a token, a plugin thread), else `""`.
    public var targetName: String {
        let current = state.load(ordering: .acquiring)
        if current & Self.destroyedBit != 0 { return current & Self.keptNameBit != 0 ? DestroyedContextNames.name(of: self) : "" }
        guard host.covers(\.target_name), let name = host.raw.pointee.target_name else { return "" }
        if isOnSchedulerThread { return name(handle.raw).map { String(cString: $0) } ?? "" }
        return (try? withCallInFlight { name($0.raw).map { String(cString: $0) } ?? "" }) ?? ""
    }
    /// The plugin's id, e.g. `"org.motion.tweenkit"`.
    public var pluginID: String { plugin.id }
    /// The host's interface.
    var host: Host { plugin.host }
    private static let destroyedBit: UInt32 = 1 << 30
    /// Set once destroyed, when the target's name was kept for later reads (``DestroyedContextNames``).
    private static let keptNameBit: UInt32 = 1 << 29

    init(group: ContextGroup, handle: ContextHandle) {
        self.group = group
        self.handle = handle
    }

    /// Whether the caller runs on the scheduler thread: one load and a compare, no call (the property
    /// write path asks once per write).
    @inlinable @inline(__always)
    var isOnSchedulerThread: Bool { motion_sdk_thread_identity() == group.schedulerThread }

    /// Whether the performer has been destroyed (every call now fails with `.schedulerGone`).
    public var isDestroyed: Bool { state.load(ordering: .acquiring) & Self.destroyedBit != 0 }

    /// Runs `body` with the live context, or throws `.schedulerGone` once the performer is destroyed.
    func withLiveContext<R>(_ body: (ContextHandle) -> R) throws(PluginError) -> R {
        if isOnSchedulerThread {
            // Destruction happens on this thread too, so it cannot race with this call.
            guard !isDestroyed else { throw Self.goneError }
            // Queued writes first (any performer's, during update_many), so that the host sees them
            // before whatever this call does.
            PropertyWriteQueue.flushActive()
            return body(handle)
        }
        return try withCallInFlight(body)
    }

    /// Runs `body` with the context counted as a call in flight from a thread other than the scheduler's, or throws
    /// `.schedulerGone` once the performer is destroyed.
    private func withCallInFlight<R>(_ body: (ContextHandle) -> R) throws(PluginError) -> R {
        var current = state.load(ordering: .acquiring)
        while true {
            guard current & Self.destroyedBit == 0 else { throw Self.goneError }
            precondition(current & (Self.keptNameBit - 1) < Self.keptNameBit - 1, "2^29 - 1 host calls in flight on one performer context")
            let (exchanged, original) = state.compareExchange(
                expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
            if exchanged { break }
            current = original
        }
        defer { state.subtract(1, ordering: .releasing) }
        return body(handle)
    }

    /// Marks the context destroyed and waits for calls in flight on other threads (which are
    /// [thread-safe] host calls that do not wait for the scheduler thread, so the wait is short).
    ///
    /// - Parameter keepingTargetName: Whether ``targetName`` should still answer afterwards (the context is held
    ///   beyond the SDK's own reference, by a token or a plugin thread): the name is then read from the host now,
    ///   while its context is live, and kept until this context goes.
    func invalidate(keepingTargetName: Bool) {
        var bits = Self.destroyedBit
        if keepingTargetName {
            DestroyedContextNames.keep(targetName, of: self)
            bits |= Self.keptNameBit
        }
        state.bitwiseOr(bits, ordering: .acquiringAndReleasing)
        while state.load(ordering: .acquiring) & ~(Self.destroyedBit | Self.keptNameBit) != 0 {
            sched_yield()
        }
    }

    deinit {
        if state.load(ordering: .acquiring) & Self.keptNameBit != 0 { DestroyedContextNames.forget(self) }
    }

    private static let goneError = PluginError(
        .schedulerGone,
        "the performer has been destroyed; its host context is gone. To fix, stop using it after teardown.")

    // MARK: Emission

    /// Emits a transaction (composition; `motion_host_v1.emit_transaction`).
    ///
    /// On the scheduler thread it is performed before this returns (depth-first, also from inside
    /// `add(_:)`); from another thread it is queued and applied at the scheduler's next turn.
    /// - Parameter transaction: the operations to emit.
    /// - Throws: `PluginError` with the host's status: `.emissionFailed`, `.unknownPlanType`,
    ///   `.schedulerGone`, `.invalidArgument` (an empty transaction).
    public func emit(_ transaction: Transaction) throws(PluginError) {
        guard !transaction.isEmpty else {
            throw PluginError(.invalidArgument, "the transaction is empty. To fix, add an operation before emitting.")
        }
        try emit(json: transaction.encodedJSON())
    }

    /// Emits one plan to a target: a transaction with a single add operation.
    /// - Parameters:
    ///   - plan: the plan.
    ///   - target: the target's name; `nil` means this performer's own target.
    /// - Throws: as `emit(_:)`.
    public func emit(_ plan: some PluginPlan, to target: String? = nil) throws(PluginError) {
        var transaction = Transaction()
        transaction.add(plan, to: target ?? targetName)
        try emit(transaction)
    }

    /// Emits a transaction given as JSON text (`{"operations":[...]}`).
    /// - Parameter transactionJSON: the transaction, UTF-8.
    /// - Throws: as `emit(_:)`.
    public func emit(transactionJSON: String) throws(PluginError) {
        try emit(json: Array(transactionJSON.utf8))
    }

    private func emit(json: [UInt8]) throws(PluginError) {
        guard !json.isEmpty else {
            throw PluginError(.invalidArgument, "the transaction JSON is empty. To fix, pass {\"operations\":[...]}.")
        }
        var error = makeError()
        let status = try withLiveContext { handle in
            json.withUnsafeBufferPointer { host.emitTransaction(handle, $0, &error) }
        }
        guard status == MOTION_OK else {
            let text = message(of: error)
            throw PluginError(
                PluginError.Code(rawValue: status),
                text.isEmpty ? "the host refused the emitted transaction." : text)
        }
    }

    // MARK: Tokens

    /// Generates an is-active token (`motion_host_v1.token_generate`). While the performer holds one,
    /// the scheduler is active and a `FrameUpdating` performer receives frames.
    /// - Returns: the token, or `nil` when the host gives none (its scheduler has gone).
    public func generateToken() -> Token? {
        generateTokenValue().map { Token(rawValue: $0, context: self) }
    }

    /// The host's value of a new token (never 0), or `nil` when the host gives none: a token with no object, for
    /// ``ActivityToken``.
    func generateTokenValue() -> motion_token? {
        guard let (status, raw) = try? withLiveContext({ host.tokenGenerate($0) }), status == MOTION_OK, raw != 0
        else { return nil }
        return raw
    }

    /// Terminates the token `rawValue` (`motion_host_v1.token_terminate`).
    /// - Throws: as ``Token/terminate()``; `.schedulerGone` means the host has ended the token already.
    func terminateToken(_ rawValue: motion_token) throws(PluginError) {
        let status = try withLiveContext { host.tokenTerminate($0, rawValue) }
        guard status == MOTION_OK else {
            let detail =
                status == MOTION_ERR_TOKEN_ALREADY_TERMINATED
                ? "token \(rawValue) was already terminated. To fix, terminate each token exactly once."
                : "the host did not terminate token \(rawValue)."
            throw PluginError(PluginError.Code(rawValue: status), detail)
        }
    }

    // MARK: Properties

    /// Interns a property name of the target (`motion_host_v1.property_id`). Intern once, reuse the id.
    /// - Parameter name: the property's name, e.g. `"opacity"`, non-empty.
    /// - Returns: its id.
    /// - Throws: `.invalidArgument` (empty name), `.wrongThread`, `.schedulerGone`.
    public func propertyID(named name: String) throws(PluginError) -> PropertyID {
        let id = try withLiveContext { host.propertyID($0, name) }
        guard id >= 0 else {
            throw PluginError(PluginError.Code(rawValue: id), "cannot intern property \"\(name)\" on \(targetName).")
        }
        return PropertyID(rawValue: id)
    }

    /// How many components a property of the target has (`motion_host_v1.get_property`), without making the
    /// array ``value(of:)`` returns: to check a plan's vector against the property it animates.
    /// - Parameter property: the property's id.
    /// - Returns: its component count (1 or more).
    /// - Throws: as ``value(of:)``.
    public func componentCount(of property: PropertyID) throws(PluginError) -> Int {
        let (status, count) = try withLiveContext { handle in
            withUnsafeTemporaryAllocation(of: Double.self, capacity: 4) { host.getProperty(handle, property.rawValue, $0) }
        }
        // BUFFER_TOO_SMALL still gives the count (a property of more than 4 components).
        guard status == MOTION_OK || status == MOTION_ERR_BUFFER_TOO_SMALL else {
            throw PluginError(PluginError.Code(rawValue: status), "cannot read property \(property.rawValue) of \(targetName).")
        }
        return Int(count)
    }

    /// Reads a property of the target (`motion_host_v1.get_property`).
    /// - Parameter property: the property's id.
    /// - Returns: its components (1 or more).
    /// - Throws: `.unknownProperty` (the target has no value for it), `.wrongThread`, `.schedulerGone`.
    public func value(of property: PropertyID) throws(PluginError) -> [Double] {
        // Up to 4 components (every property the ABI writes) on the stack: one array, the result.
        let small = try withLiveContext { handle in
            withUnsafeTemporaryAllocation(of: Double.self, capacity: 4) { buffer -> (motion_status, [Double]?) in
                let (status, count) = host.getProperty(handle, property.rawValue, buffer)
                return status == MOTION_OK ? (status, Array(buffer.prefix(Int(count)))) : (status, nil)
            }
        }
        if let values = small.1 { return values }
        guard small.0 == MOTION_ERR_BUFFER_TOO_SMALL else {
            throw PluginError(PluginError.Code(rawValue: small.0), "cannot read property \(property.rawValue) of \(targetName).")
        }
        var values = [Double](repeating: 0, count: 4)
        while true {
            let (status, count) = try withLiveContext { handle in
                values.withUnsafeMutableBufferPointer { host.getProperty(handle, property.rawValue, $0) }
            }
            if status == MOTION_OK {
                return Array(values.prefix(Int(count)))
            }
            guard status == MOTION_ERR_BUFFER_TOO_SMALL, Int(count) > values.count else {
                throw PluginError(
                    PluginError.Code(rawValue: status), "cannot read property \(property.rawValue) of \(targetName).")
            }
            values = [Double](repeating: 0, count: Int(count))
        }
    }

    /// Sets a property of the target (`motion_host_v1.set_property`); the host copies the values.
    ///
    /// During a frame update from a host of ABI 1.1 or later the write is queued and handed to the host
    /// with the other performers' writes in one `set_properties` call, before any other host call made
    /// on the scheduler thread (a read, an emission, a token) and before the plugin function the host
    /// called returns, so the order of writes and reads is as if each went across at once. Values the
    /// host would refuse throw here, at once; a queued write cannot fail later for any other reason an
    /// SDK caller can cause (its property id came from the host).
    /// - Parameters:
    ///   - values: the components (1 to 4, finite).
    ///   - property: the property's id.
    /// - Throws: `.unknownProperty`, `.invalidArgument` (empty, more than 4 or non-finite values),
    ///   `.wrongThread`, `.schedulerGone`.
    @inlinable @inline(__always)
    public func setValue(_ values: [Double], of property: PropertyID) throws(PluginError) {
        // Inlined into the plugin's performer: inside update_many (which the host calls on the scheduler
        // thread, so this performer is live) a write is queued with no call into the SDK.
        // The thread first: pendingWrites is written on the scheduler thread only.
        if isOnSchedulerThread, let queue = pendingWrites {
            let queued = values.withUnsafeBufferPointer { values in
                queue._withUnsafeGuaranteedRef { $0.append(handle.raw, property.rawValue, values) }
            }
            if queued { return }
        }
        try setValueCallingHost(values, of: property)
    }

    /// `set_property` for one write: outside `update_many`, from another thread (which the host refuses),
    /// or with values a queued write cannot take.
    @usableFromInline
    func setValueCallingHost(_ values: [Double], of property: PropertyID) throws(PluginError) {
        guard !values.isEmpty else {
            throw PluginError(.invalidArgument, "no values for property \(property.rawValue). To fix, pass 1 or more.")
        }
        if isOnSchedulerThread, pendingWrites != nil {
            throw Self.unqueueable(values, property)
        }
        let status: motion_status
        if isOnSchedulerThread, state.load(ordering: .relaxed) & Self.destroyedBit == 0 {
            // Destruction happens on this thread too, so it cannot race with this call.
            status = values.withUnsafeBufferPointer {
                host.setProperty(handle, property.rawValue, $0)
            }
        } else {
            status = try withLiveContext { handle in
                values.withUnsafeBufferPointer { host.setProperty(handle, property.rawValue, $0) }
            }
        }
        guard status == MOTION_OK else {
            throw PluginError(
                PluginError.Code(rawValue: status), "cannot set property \(property.rawValue) of \(targetName).")
        }
    }

    /// The slot of a property of the target (`motion_property_slots_v1.slot`, ABI 1.3), for writes with no
    /// lookup and checks made once per batch by the host. From an older host, a slot that writes by id.
    /// - Parameter property: the property's id.
    /// - Returns: its slot, stable for the run.
    /// - Throws: `.unknownProperty`, `.wrongThread`, `.schedulerGone`.
    public func slot(for property: PropertyID) throws(PluginError) -> PropertySlot {
        guard let slots = host.slots, let resolve = slots.pointee.slot else {
            return PropertySlot(rawValue: -1, property: property)
        }
        let slot = try withLiveContext { resolve($0.raw, property.rawValue) }
        guard slot >= 0 else {
            throw PluginError(PluginError.Code(rawValue: slot), "cannot resolve the slot of property \(property.rawValue) of \(targetName).")
        }
        return PropertySlot(rawValue: slot, property: property)
    }

    /// Sets a one-component property of the target through its slot.
    ///
    /// During a frame update the write is queued and handed to the host with the other performers' writes in
    /// one `set_slots` call, under the same ordering rule as `setValue(_:of:)`; outside one it goes at once.
    /// - Parameters:
    ///   - value: the value, finite.
    ///   - slot: the property's slot, from ``slot(for:)`` of this context.
    /// - Throws: `.invalidArgument` (a value that is not finite), `.unknownProperty`, `.wrongThread`,
    ///   `.schedulerGone`.
    @inlinable @inline(__always)
    public func setValue(_ value: Double, at slot: PropertySlot) throws(PluginError) {
        // As setValue(_:of:): inside update_many a write is queued with no call into the SDK.
        if slot.rawValue >= 0, value - value == 0, isOnSchedulerThread, let queue = pendingWrites {
            queue._withUnsafeGuaranteedRef { $0.appendSlot(handle.raw, slot.rawValue, value) }
            return
        }
        try setValueCallingHost([value], at: slot)
    }

    /// Sets a property of the target through its slot; see ``setValue(_:at:)-(Double,_)``.
    /// - Parameters:
    ///   - values: the components (1 to 4, finite).
    ///   - slot: the property's slot, from ``slot(for:)`` of this context.
    /// - Throws: as ``setValue(_:at:)-(Double,_)``.
    public func setValue(_ values: [Double], at slot: PropertySlot) throws(PluginError) {
        let isQueueable =
            slot.rawValue >= 0 && (1...Int(MOTION_PROPERTY_MAX_COMPONENTS)).contains(values.count) && values.allSatisfy(\.isFinite)
        if isQueueable, isOnSchedulerThread, let queue = pendingWrites {
            values.withUnsafeBufferPointer { buffer in queue._withUnsafeGuaranteedRef { $0.appendSlot(handle.raw, slot.rawValue, buffer) } }
            return
        }
        try setValueCallingHost(values, at: slot)
    }

    /// A write by slot that is not queued: one `set_slots` call, or `set_property` from an older host.
    @usableFromInline
    func setValueCallingHost(_ values: [Double], at slot: PropertySlot) throws(PluginError) {
        guard slot.rawValue >= 0, let slots = host.slots, let setSlots = slots.pointee.set_slots else {
            return try setValue(values, of: slot.property)
        }
        guard !values.isEmpty else {
            throw PluginError(.invalidArgument, "no values for property \(slot.property.rawValue). To fix, pass 1 or more.")
        }
        let status = try withLiveContext { handle in
            values.withUnsafeBufferPointer { buffer in
                var write = motion_slot_write(slot: slot.rawValue, count: UInt32(clamping: buffer.count))
                return setSlots(handle.raw, &write, 1, buffer.baseAddress, buffer.count, nil)
            }
        }
        guard status == MOTION_OK else {
            throw PluginError(
                PluginError.Code(rawValue: status), "cannot set property \(slot.property.rawValue) of \(targetName) (\(values)).")
        }
    }

    /// Sets a one-component property of the target.
    /// - Parameters:
    ///   - value: the value.
    ///   - property: the property's id.
    /// - Throws: as `setValue(_:of:)` for an array.
    public func setValue(_ value: Double, of property: PropertyID) throws(PluginError) {
        var scalar = value
        if isOnSchedulerThread, let queue = pendingWrites {
            // As in setValue(_:of:) for an array.
            let queued = withUnsafePointer(to: &scalar) { pointer in
                queue._withUnsafeGuaranteedRef { $0.append(handle.raw, property.rawValue, UnsafeBufferPointer(start: pointer, count: 1)) }
            }
            if queued { return }
            throw Self.unqueueable([value], property)
        }
        let status = try withLiveContext { handle in
            withUnsafePointer(to: &scalar) {
                host.setProperty(handle, property.rawValue, UnsafeBufferPointer(start: $0, count: 1))
            }
        }
        guard status == MOTION_OK else {
            throw PluginError(
                PluginError.Code(rawValue: status), "cannot set property \(property.rawValue) of \(targetName).")
        }
    }

    /// The error for values a queued write cannot take (what the host's `set_property` would refuse).
    private static func unqueueable(_ values: [Double], _ property: PropertyID) -> PluginError {
        PluginError(
            .invalidArgument,
            "property \(property.rawValue) takes 1 to \(MOTION_PROPERTY_MAX_COMPONENTS) finite values, got \(values).")
    }

    // MARK: Log

    /// Writes a line to the host's log (`motion_host_v1.log`), prefixed with the plugin id and target.
    /// - Parameters:
    ///   - level: the level.
    ///   - message: the text.
    public func log(_ level: LogLevel, _ message: String) {
        host.log(level.rawValue, "\(pluginID) (\(targetName)): \(message)")
    }
}

/// The target names of destroyed contexts that are still held (by a token, a plugin thread): a context asks the
/// host for its target's name while the host's context lives, and after that only such a context needs it (its log
/// lines), so the name is copied here at its destruction instead of into every context.
///
/// Thread rule: any thread, under a pthread mutex (Thread Sanitizer sees it, unlike `Synchronization.Mutex`:
/// Documentation/PITFALLS.md).
enum DestroyedContextNames {
    nonisolated(unsafe) private static var names: [ObjectIdentifier: String] = [:]
    private static let lock = PluginLock(guarding: "the destroyed contexts' names")

    private static func withLock<R>(_ body: () -> R) -> R { lock.withLock(body) }

    static func keep(_ name: String, of context: PerformerContext) { withLock { names[ObjectIdentifier(context)] = name } }
    static func name(of context: PerformerContext) -> String { withLock { names[ObjectIdentifier(context)] ?? "" } }
    static func forget(_ context: PerformerContext) { withLock { names[ObjectIdentifier(context)] = nil } }
}

/// What the contexts of the performers of one class created on one thread share (one object, where each context
/// kept these 40 bytes before): the plugin, the class's plan table, the thread, and the queue its performers' writes
/// go to while `update_many` updates one of them. Made on a thread's first `create_performer` of the class and kept
/// for the thread's life (``ContextGroup/current(for:plugin:)``).
///
/// `Sendable`: `pendingWrites` is read and written on the scheduler thread only; the rest is immutable.
@usableFromInline
final class ContextGroup: Sendable {
    let plugin: PluginIdentity
    let plans: PlanTable
    /// `motion_sdk_thread_identity()` on the scheduler thread (where the host creates performers).
    @usableFromInline let schedulerThread: UInt
    /// Where property writes go while `update_many` updates a performer of the group (a performer's own `update`,
    /// or a batch's from a host without slots), or `nil` to call `set_property` per write. Unmanaged: `update_many`
    /// keeps the queue alive around the update, and this path must not count references per write. A performer of
    /// the group that writes during another's update (a nested call) queues too: its write reaches the host in the
    /// same order as a direct call would, since the queue is flushed before every other host call on the thread.
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var pendingWrites: Unmanaged<PropertyWriteQueue>?

    private init(plugin: PluginIdentity, plans: PlanTable) {
        self.plugin = plugin
        self.plans = plans
        self.schedulerThread = motion_sdk_thread_identity()
    }

    /// The calling thread's group for the class of `plans` (made on first use).
    static func current(for plans: PlanTable, plugin: PluginIdentity) -> ContextGroup {
        let thread = ThreadFrameBatches.current
        let id = ObjectIdentifier(plans)
        if let group = thread.groups[id] { return group }
        let group = ContextGroup(plugin: plugin, plans: plans)
        thread.groups[id] = group
        return group
    }
}

/// An is-active token held by a performer. Terminate it exactly once when the work it stands for is done;
/// it may be terminated from any thread.
public final class Token: Hashable, Sendable, CustomStringConvertible {
    /// The host's token value (never 0).
    public let rawValue: UInt64
    private let context: PerformerContext
    private let terminated = Atomic<Bool>(false)

    init(rawValue: UInt64, context: PerformerContext) {
        self.rawValue = rawValue
        self.context = context
    }

    /// Whether a terminate of this token has succeeded, or the host has terminated it (scheduler gone).
    public var isTerminated: Bool { terminated.load(ordering: .acquiring) }

    /// Terminates the token (`motion_host_v1.token_terminate`).
    /// - Throws: `.tokenAlreadyTerminated` on a second terminate (nothing changes; never a trap),
    ///   `.unknownToken`, `.schedulerGone` (the host has already terminated it).
    public func terminate() throws(PluginError) {
        do {
            try context.terminateToken(rawValue)
        } catch {
            // Destroyed (the host ended it) or the host's scheduler gone: over either way.
            if error.code == .schedulerGone { terminated.store(true, ordering: .releasing) }
            throw error
        }
        terminated.store(true, ordering: .releasing)
    }

    /// `"token <rawValue>"`.
    public var description: String { "token \(rawValue)" }

    /// Tokens are equal when their host values are.
    public static func == (lhs: Token, rhs: Token) -> Bool { lhs.rawValue == rhs.rawValue }

    /// Hashes the host value.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}
