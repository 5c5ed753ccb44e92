import CMotionABI
import CMotionPluginKitSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The per-frame work of many performers of one class, done in one call: a performer class whose frame is
/// cheap per performer (a tween: about 100 instructions) keeps its performers' state in one of these, as
/// values in flat storage, and advances them in one pass instead of the SDK calling each performer's
/// ``FrameUpdating/update(frame:)``.
///
/// Where members of one batch come one after another in a `motion_frames_v1.update_many` call (which this
/// host makes with the performers of one scheduler), the SDK calls ``update(_:frame:writer:)`` once for that
/// run; the order of the host's performers is unchanged around it. Each ``update(_:frame:writer:)`` must have
/// the effect of calling `update(frame:)` for each of `members` in turn (`motion_frames_v1.update_many`), so
/// it advances exactly the members it is given: a batch shared by the performers of several schedulers on one
/// thread (``PerformerContext/sharedFrameBatch(_:)``) is handed each scheduler's members in their own call.
///
/// ```swift
/// final class BlinkBatch: FrameBatch {
///     func update(_ members: FrameBatchMembers<BlinkPerformer>, frame: Frame, writer: FrameBatchWriter) {
///         for performer in members { performer.advance(to: frame, writer) }
///     }
/// }
/// final class BlinkPerformer: SinglePlanPerformer, BatchedFrameUpdating {
///     let frameBatch: BlinkBatch
///     init(context: PerformerContext) { frameBatch = context.sharedFrameBatch { BlinkBatch() } ... }
/// }
/// ```
///
/// Thread rule: called on the scheduler thread, like every performer call (`motion_plugin.h`).
public protocol FrameBatch: AnyObject {
    /// The performer class whose instances are this batch's members.
    associatedtype Member: BatchedFrameUpdating where Member.Batch == Self

    /// Advances `members` to `frame`, as that many calls of their `update(frame:)` in the order given would.
    /// - Parameters:
    ///   - members: At least one member, each holding an is-active token when the call began (the host updates
    ///     only those, `motion_frames_v1`); valid during the call only.
    ///   - frame: The frame's index, time and delta (s).
    ///   - writer: Queues property writes by slot for the host's next `set_slots` batch; valid during the call.
    func update(_ members: FrameBatchMembers<Member>, frame: Frame, writer: FrameBatchWriter)
}

/// A frame-updated performer whose frames its ``frameBatch`` performs, with those of the other members that the
/// host updates right before or after it (``FrameBatch``).
///
/// Its `update(frame:)` (a host that updates one performer at a time: `motion_frames_v1.update`) is the batch's
/// update of this performer alone; do not replace it.
public protocol BatchedFrameUpdating: FrameUpdating {
    /// The batch type.
    associatedtype Batch: FrameBatch where Batch.Member == Self

    /// The batch this performer is a member of. Read once, when the host creates the performer: keep it for
    /// the performer's life.
    var frameBatch: Batch { get }
}

extension BatchedFrameUpdating {
    /// The batch's ``FrameBatch/update(_:frame:writer:)`` of this performer alone, its writes handed to the
    /// host before this returns.
    /// - Parameter frame: The frame.
    public func update(frame: Frame) {
        let writer = FrameBatchWriter(queue: nil, context: nil)
        frameBatch.update(FrameBatchMembers(single: self), frame: frame, writer: writer)
    }
}

/// The members of one run of a ``FrameBatch``'s update: a random-access collection of the performers, in the
/// host's order. Valid during the call only (it reads the host's array of the call); do not keep it.
public struct FrameBatchMembers<Member: BatchedFrameUpdating>: RandomAccessCollection {
    /// The run's `motion_performer *`s (the SDK's performer contexts), or empty with ``single`` set.
    private let performers: UnsafeBufferPointer<OpaquePointer?>
    private let single: Member?
    /// Whether no member is in the run twice, as far as the SDK knows: `true` for a run the SDK found as one stretch
    /// of consecutive member numbers, and for a single member; `false` when it could not tell (a run that jumps between
    /// numbers, reused or out of order), which does not mean a member repeats. A batch that takes a shortcut when the
    /// run is all its running members (counting them) needs this too: a host that passes one member twice and leaves
    /// out another gives the same count (`motion_frames_v1.update_many` does not promise distinct performers).
    public let hasDistinctMembers: Bool

    init(performers: UnsafeBufferPointer<OpaquePointer?>, hasDistinctMembers: Bool) {
        self.performers = performers
        self.single = nil
        self.hasDistinctMembers = hasDistinctMembers
    }

    init(single: Member) {
        self.performers = UnsafeBufferPointer(start: nil, count: 0)
        self.single = single
        self.hasDistinctMembers = true
    }

    /// 0.
    public var startIndex: Int { 0 }

    /// The number of members.
    public var endIndex: Int { single == nil ? performers.count : 1 }

    /// The member at `index` (0..<count).
    public subscript(index: Int) -> Member {
        if let single {
            precondition(index == 0, "index \(index) of one member")
            return single
        }
        // Every entry is a live performer's context of this batch's class (the SDK builds the run from them).
        return Unmanaged<PerformerContext>.fromOpaque(UnsafeRawPointer(performers[index]!))._withUnsafeGuaranteedRef {
            unsafeDowncast($0.performerObject.unsafelyUnwrapped.takeUnretainedValue(), to: Member.self)
        }
    }
}

/// Where a ``FrameBatch`` queues its members' property writes: straight into the SDK's `set_slots` batch
/// (`motion_property_slots_v1`, ABI 1.3, motion/slots.h), with no per-write call, lookup or context. Writes reach
/// the host in the order queued, before any other host call made on the scheduler thread and before the
/// frame's plugin function returns (the ordering rule of `set_properties`, motion/host.h).
///
/// A write it cannot queue (no slot from an older host, a non-finite value, or an update outside
/// `update_many`) is the caller's to make through the member's own context (``PerformerContext/setValue(_:at:)-(Double,_)``),
/// which throws the host's reason for refusing it.
public struct FrameBatchWriter {
    @usableFromInline let queue: Unmanaged<PropertyWriteQueue>?
    /// The `motion_host_context *` the writes go under: a context of the run's scene (set_slots takes any).
    @usableFromInline let context: OpaquePointer?
    /// 2^31 with a queue and a context, else 0: a slot below it as a `UInt32` is one from the host (>= 0) that
    /// this writer can queue, in one compare.
    @usableFromInline let slotBound: UInt32

    init(queue: Unmanaged<PropertyWriteQueue>?, context: OpaquePointer?) {
        self.queue = queue
        self.context = context
        if let queue, let context {
            slotBound = 0x8000_0000
            // Writes queued with this writer go under `context` unless others are queued already (one scene's).
            queue._withUnsafeGuaranteedRef { $0.prepareSlots(context) }
        } else {
            slotBound = 0
        }
    }

    /// Queues a one-component write by slot.
    /// - Parameters:
    ///   - value: the value.
    ///   - slot: a slot from ``PerformerContext/slot(for:)`` of a member of this run.
    /// - Returns: `true` when queued; `false`, queuing nothing, when the slot is -1 (a host older than ABI 1.3),
    ///   the value is not finite, or there is no queue (then write through the member's context).
    @inlinable @inline(__always)
    public func queue(_ value: Double, at slot: PropertySlot) -> Bool {
        // One compare for "a slot from the host" and "a writer with a queue", one for finiteness (x - x is NaN for an
        // infinity or a NaN, and a NaN is the one value unequal to itself: one compare, no zero).
        let difference = value - value
        guard UInt32(bitPattern: slot.rawValue) < slotBound, difference == difference else { return false }
        queue.unsafelyUnwrapped._withUnsafeGuaranteedRef { $0.appendSlotUnderContext(slot.rawValue, value) }
        return true
    }

    /// Queues a write of `count` components by slot.
    /// - Parameters:
    ///   - components: the value's components; those at `count` and after are ignored.
    ///   - count: 1 to 4 (`MOTION_PROPERTY_MAX_COMPONENTS`).
    ///   - slot: a slot from ``PerformerContext/slot(for:)`` of a member of this run.
    /// - Returns: as ``queue(_:at:)-(Double,_)``, and `false` for a `count` outside 1...4.
    @inlinable
    public func queue(_ components: (Double, Double, Double, Double), count: Int, at slot: PropertySlot) -> Bool {
        guard (1...Int(MOTION_PROPERTY_MAX_COMPONENTS)).contains(count), slot.rawValue >= 0, let queue, let context else { return false }
        return withUnsafePointer(to: components) { tuple in
            tuple.withMemoryRebound(to: Double.self, capacity: 4) { values in
                let buffer = UnsafeBufferPointer(start: values, count: count)
                guard buffer.allSatisfy({ $0 - $0 == 0 }) else { return false }
                queue._withUnsafeGuaranteedRef { $0.appendSlot(context, slot.rawValue, buffer) }
                return true
            }
        }
    }
}

extension PerformerContext {
    /// The batch of type `B` that the performers created on this thread share while any of them lives, made
    /// by `make` when none does: call it from `init(context:)` (the scheduler thread) and keep the result as
    /// the performer's ``BatchedFrameUpdating/frameBatch``.
    ///
    /// The SDK holds the batch weakly, per thread: the performers keep it alive, and it goes with the last of
    /// them (a reloaded plugin makes a new one). A thread that runs several schedulers shares one batch among
    /// them; each `update_many` call still hands it only the members of its own scheduler.
    /// - Parameter make: makes a new, empty batch.
    /// - Returns: the thread's live batch of type `B`, or the new one.
    public func sharedFrameBatch<B: FrameBatch>(_ make: () -> B) -> B {
        let batches = ThreadFrameBatches.current
        let id = ObjectIdentifier(B.self)
        if let live = batches.batches[id]?.batch as? B { return live }
        let batch = make()
        batches.batches[id] = WeakFrameBatch(batch: batch)
        return batch
    }
}

/// A batch the SDK holds weakly.
private struct WeakFrameBatch {
    weak var batch: AnyObject?
}

/// This thread's shared batches by type (``PerformerContext/sharedFrameBatch(_:)``); freed when the thread ends.
private final class ThreadFrameBatches {
    var batches: [ObjectIdentifier: WeakFrameBatch] = [:]
    /// The members of the batches of the performers created on this thread, by batch (``BatchMembers``).
    var members: [ObjectIdentifier: BatchMembers] = [:]
    /// The size of ``members`` at which ``BatchMembers/join(_:_:)`` next drops the entries of gone batches.
    var membersToPruneAt = 16

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { batches in
            if let batches { Unmanaged<ThreadFrameBatches>.fromOpaque(batches).release() }
        }
        return key
    }()

    static var current: ThreadFrameBatches {
        if let raw = pthread_getspecific(key) { return Unmanaged<ThreadFrameBatches>.fromOpaque(raw).takeUnretainedValue() }
        let batches = ThreadFrameBatches()
        pthread_setspecific(key, Unmanaged.passRetained(batches).toOpaque())
        return batches
    }
}

/// How the SDK runs a performer class's ``FrameBatch``: made once per `BatchedFrameUpdating` class, so that
/// `update_many` calls the batch with no cast.
struct FrameBatchRunner: Sendable {
    /// Updates the run `performers` (contexts of performers of this class, all members of `batch`).
    let run:
        @Sendable (
            _ batch: Unmanaged<AnyObject>, _ performers: UnsafeBufferPointer<OpaquePointer?>, _ hasDistinctMembers: Bool, Frame, FrameBatchWriter
        ) ->
            Void
    /// The batch of a performer of this class.
    let batchOf: @Sendable (any PluginPerformer) -> AnyObject

    static func make(_ type: any PluginPerformer.Type) -> FrameBatchRunner? {
        guard let batched = type as? any BatchedFrameUpdating.Type else { return nil }
        return typed(batched)
    }

    private static func typed<P: BatchedFrameUpdating>(_: P.Type) -> FrameBatchRunner {
        FrameBatchRunner(
            run: { batch, performers, hasDistinctMembers, frame, writer in
                batch._withUnsafeGuaranteedRef {
                    unsafeDowncast($0, to: P.Batch.self).update(
                        FrameBatchMembers(performers: performers, hasDistinctMembers: hasDistinctMembers), frame: frame, writer: writer)
                }
            },
            batchOf: { unsafeDowncast($0, to: P.self).frameBatch })
    }
}

/// The members of one ``FrameBatch`` object, by the SDK's number for each: their contexts' addresses (their
/// `motion_performer *`s) in one dense array, so that `update_many` finds where a run of members ends by reading
/// that array in order wherever the host's order is the order of their numbers (performers created one after
/// another), instead of reading each member's context to see that it belongs (a cache miss per performer once a
/// million of them leave the cache: 26 % of the samples of `--profile-tweens 1000000 plugin`). A member the array
/// does not predict (the host skipped some, or numbers were reused) costs one read of its context, as before.
///
/// Used on the batch's scheduler thread (`create_performer`, `update_many`, `destroy_performer`; motion_plugin.h).
final class BatchMembers {
    /// The batch, for `update_many`; alive while it has members (each member's performer keeps it). Unmanaged, so
    /// that a frame borrows it with no count (an `unowned(unsafe)` reference is retained and released at each use, and
    /// the batch's weak reference in the registry makes those the slow, side-table kind: about 130 instructions a frame).
    let batch: Unmanaged<AnyObject>
    /// The batch again, to tell a live batch from a dead one whose address a new batch has taken (the registry).
    private weak var liveBatch: AnyObject?
    /// Per number, the member's context address; `nil` for a free number.
    private var contexts: ContiguousArray<OpaquePointer?> = []
    private var freeNumbers: [Int32] = []
    private var count = 0

    private init(batch: AnyObject) {
        self.batch = Unmanaged.passUnretained(batch)
        self.liveBatch = batch
    }

    /// Makes `context`'s performer a member of `batch` (`create_performer`, its performer made).
    static func join(_ batch: AnyObject, _ context: PerformerContext) {
        let registry = ThreadFrameBatches.current
        let id = ObjectIdentifier(batch)
        let members: BatchMembers
        if let known = registry.members[id], known.liveBatch === batch {
            members = known
        } else {
            // A new batch (or one at the address of a batch that has gone). Entries of gone batches are dropped once
            // the table has doubled since the last drop: a pass over every entry per new batch was quadratic in the
            // performers of a class with a batch each (40,000 took 268 s, debug build).
            if registry.members.count >= registry.membersToPruneAt {
                registry.members = registry.members.filter { $0.value.liveBatch != nil }
                registry.membersToPruneAt = max(16, 2 * registry.members.count)
            }
            members = BatchMembers(batch: batch)
            registry.members[id] = members
        }
        members.count += 1
        let address = OpaquePointer(Unmanaged.passUnretained(context).toOpaque())
        if let free = members.freeNumbers.popLast() {
            members.contexts[Int(free)] = address
            context.batchIndex = free
        } else {
            precondition(members.contexts.count < Int(Int32.max), "a FrameBatch has at most 2^31 - 1 members")
            members.contexts.append(address)
            context.batchIndex = Int32(members.contexts.count - 1)
        }
        context.batchMembers = Unmanaged.passRetained(members)
    }

    /// Takes `context`'s performer out of its batch's members, if it is one (`destroy_performer`).
    static func leave(_ context: PerformerContext) {
        guard let members = context.batchMembers else { return }
        context.batchMembers = nil
        let index = context.batchIndex
        context.batchIndex = -1
        members._withUnsafeGuaranteedRef {
            $0.count -= 1
            if $0.count == 0 {
                // The batch's last member: nothing to keep room for (the batch goes with its performers).
                $0.contexts = []
                $0.freeNumbers = []
            } else {
                $0.contexts[Int(index)] = nil
                $0.freeNumbers.append(index)
            }
        }
        members.release()
    }

    /// Where the run of this batch's members that starts at `start` ends in `performers` (an `update_many` array):
    /// the index after its last member, and whether the run is one stretch of consecutive member numbers (then no
    /// member is in it twice). The member at `start` is this batch's, numbered `number`.
    ///
    /// The stretch that follows the numbers is compared with the table in one `memcmp` (about one instruction per
    /// member, where a loop of two loads and a compare took 10), when the table has no free number (a free
    /// number's `nil` entry would match a `NULL` in the host's array, which is no member); a stretch that `memcmp`
    /// finds different is walked member by member to its first difference.
    func endOfRun(in performers: UnsafeBufferPointer<OpaquePointer?>, startingAt start: Int, _ number: Int32) -> (end: Int, isOneStretch: Bool) {
        contexts.withUnsafeBufferPointer { contexts in
            var end = start + 1
            var isOneStretch = true
            // The member at performers[i] is numbered i + offset while the host's order follows the numbers.
            var offset = Int(number) - start
            let isDense = freeNumbers.isEmpty
            while end < performers.count {
                let bound = min(performers.count, contexts.count - offset)
                if isDense, end < bound, let hostBase = performers.baseAddress, let tableBase = contexts.baseAddress,
                    memcmp(hostBase + end, tableBase + (end + offset), (bound - end) * MemoryLayout<OpaquePointer?>.stride) == 0
                {
                    end = bound
                } else {
                    // The stretch that follows the numbers: two loads and a compare per member, no read of a context.
                    while end < bound, let next = performers[end], contexts[end + offset] == next { end += 1 }
                }
                guard end < performers.count, let next = performers[end] else { break }
                // Not the next number (or past the table): read its context to see whether it is a member.
                let number = Unmanaged<PerformerContext>.fromOpaque(UnsafeRawPointer(next))._withUnsafeGuaranteedRef {
                    $0.batchMembers?.toOpaque() == Unmanaged.passUnretained(self).toOpaque() ? Int($0.batchIndex) : -1
                }
                guard number >= 0 else { break }
                isOneStretch = false
                offset = number - end
                end += 1
            }
            return (end, isOneStretch)
        }
    }
}
