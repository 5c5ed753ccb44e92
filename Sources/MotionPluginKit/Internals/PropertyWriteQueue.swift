import CMotionABI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The property writes of the performers one `update_many` call updates, handed to the host in one
/// `motion_host_v1.set_properties` call (ABI 1.1) instead of one `set_property` call each, or, for writes by
/// slot, in one `motion_property_slots_v1.set_slots` call (ABI 1.3, motion/slots.h).
///
/// Order is kept: the queue is the thread's active queue while `update_many` runs, and it is flushed
/// when it is full, before any other host call made on that thread through any performer's context (a
/// read, an emission, a token, also another performer's; see `PerformerContext.withLiveContext`), before
/// any other plugin function the host calls meanwhile returns (an `add_plan` nested in an emission), and
/// when `update_many` returns.
///
/// Thread rule: the scheduler thread only (the performers' contexts queue here only when called on it).
@usableFromInline
final class PropertyWriteQueue {
    /// Writes per `set_properties` call at most: 48 bytes each, so 3 KiB, which stays in the L1 cache.
    @usableFromInline static var capacity: Int { 64 }
    /// Writes per `set_slots` call at most: 8 bytes each and 8 to 32 for the values, so 4 to 10 KiB, which stays in
    /// the L1 cache; four times `capacity` saves 3 of about 250 instructions per TweenKit Tween per frame (the
    /// host's check of a batch, callgrind) against 64.
    @usableFromInline static var slotCapacity: Int { 256 }

    private let setProperties: @convention(c) (UnsafePointer<motion_property_write>?, Int, Int, UnsafeMutablePointer<Int>?) -> motion_status
    private let host: Host
    /// The plugin's id, which begins its log lines (motion_plugin.h, `log`).
    private let pluginID: String
    @usableFromInline let writes = UnsafeMutablePointer<motion_property_write>.allocate(capacity: PropertyWriteQueue.capacity)
    @usableFromInline @exclusivity(unchecked) var count = 0
    // Writes by slot (ABI 1.3 hosts, motion/slots.h): the writes, their components one after another, and the
    // context they are handed over under (the first queued one's; the members of one update_many are of one
    // scene). At most one kind of write is queued at a time: queuing the other kind flushes first, so the
    // host sees them in order.
    @usableFromInline let slotWrites = UnsafeMutablePointer<motion_slot_write>.allocate(capacity: PropertyWriteQueue.slotCapacity)
    @usableFromInline let slotValues = UnsafeMutablePointer<Double>.allocate(
        capacity: PropertyWriteQueue.slotCapacity * Int(MOTION_PROPERTY_MAX_COMPONENTS))
    @usableFromInline @exclusivity(unchecked) var slotCount = 0
    /// The queued values beyond one per queued slot write (a one-component write adds none: it changes one count).
    @usableFromInline @exclusivity(unchecked) var slotExtraValueCount = 0
    @usableFromInline @exclusivity(unchecked) var slotContext: OpaquePointer?
    /// How many slot writes may be queued before a flush: ``slotCapacity``, or 0 while writes by id are queued (a
    /// write by slot then flushes them first, so that the host sees the writes in order). One compare per
    /// queued slot write for both rules.
    @usableFromInline @exclusivity(unchecked) var slotLimit = PropertyWriteQueue.slotCapacity

    /// A queue, or `nil` when the host is older than ABI 1.1 and has no `set_properties`.
    init?(host: Host, pluginID: String) {
        guard host.coversSetProperties, let setProperties = host.raw.pointee.set_properties else { return nil }
        self.host = host
        self.pluginID = pluginID
        self.setProperties = setProperties
    }

    deinit {
        writes.deallocate()
        slotWrites.deallocate()
        slotValues.deallocate()
    }

    // MARK: The thread's spare queue

    /// Each thread keeps the queue its last `update_many` used, so that a call, which may update a run of
    /// a single performer when the host interleaves plugins, allocates nothing. Freed when the thread ends.
    private static let spareKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { spare in
            if let spare { Unmanaged<PropertyWriteQueue>.fromOpaque(spare).release() }
        }
        return key
    }()

    /// This thread's spare queue, taken (a frame run inside a frame finds none and makes its own), or a
    /// new one; `nil` when the host is older than ABI 1.1. Give it back with ``putBack()``.
    static func take(host: Host, pluginID: String) -> PropertyWriteQueue? {
        if let raw = pthread_getspecific(spareKey) {
            pthread_setspecific(spareKey, nil)
            let spare = Unmanaged<PropertyWriteQueue>.fromOpaque(raw).takeRetainedValue()
            // The plugin was entered again, by another host: the spare writes to the first.
            if spare.host.raw == host.raw { return spare }
        }
        return PropertyWriteQueue(host: host, pluginID: pluginID)
    }

    /// Keeps this (empty) queue as the thread's spare, unless the thread has one.
    func putBack() {
        guard count == 0, pthread_getspecific(Self.spareKey) == nil else { return }
        pthread_setspecific(Self.spareKey, Unmanaged.passRetained(self).toOpaque())
    }

    // MARK: The thread's active queue

    private static let activeKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Runs `body` with `queue` as this thread's active queue (restoring the previous one after, for a
    /// frame run inside a frame), then hands the queue over.
    static func activating<R>(_ queue: PropertyWriteQueue?, _ body: () -> R) -> R {
        guard let queue else { return body() }
        let previous = pthread_getspecific(activeKey)
        pthread_setspecific(activeKey, Unmanaged.passUnretained(queue).toOpaque())
        defer {
            queue.flush()
            pthread_setspecific(activeKey, previous)
        }
        return body()
    }

    /// Hands this thread's active queue over, if there is one: before a host call, and before a plugin
    /// function the host called during `update_many` returns.
    static func flushActive() {
        guard let raw = pthread_getspecific(activeKey) else { return }
        Unmanaged<PropertyWriteQueue>.fromOpaque(raw)._withUnsafeGuaranteedRef { $0.flush() }
    }

    /// Queues what `set_property(ctx, property, values, count)` would do, when the host would take it:
    /// 1 to 4 finite values (the id comes from `property_id`). Returns `false`, queuing nothing, otherwise.
    @inlinable @inline(__always)
    func append(_ ctx: OpaquePointer, _ property: Int32, _ values: UnsafeBufferPointer<Double>) -> Bool {
        let n = values.count
        guard UInt(bitPattern: n &- 1) < UInt(MOTION_PROPERTY_MAX_COMPONENTS), let p = values.baseAddress else { return false }
        let v0 = p[0]
        let v1 = n > 1 ? p[1] : 0
        let v2 = n > 2 ? p[2] : 0
        let v3 = n > 3 ? p[3] : 0
        // x - x is 0 for a finite x and NaN for an infinity or a NaN: one comparison for all four.
        guard (v0 - v0) + (v1 - v1) + (v2 - v2) + (v3 - v3) == 0 else { return false }
        if count == Self.capacity || slotCount > 0 { flush() }
        let write = writes + count
        write.pointee.ctx = ctx
        write.pointee.property = property
        write.pointee.count = UInt32(truncatingIfNeeded: n)
        write.pointee.values = (v0, v1, v2, v3)
        count += 1
        slotLimit = 0
        return true
    }

    /// Queues a one-component write by slot (the host has `set_slots`). The host checks the batch's values
    /// (finiteness) and slots when it is handed over; the SDK's own checks before queuing (a slot from the
    /// host, a finite value) leave it no reason to refuse one.
    @inlinable @inline(__always)
    func appendSlot(_ ctx: OpaquePointer, _ slot: Int32, _ value: Double) {
        if slotCount >= slotLimit { flush() }
        if slotCount == 0 { slotContext = ctx }
        appendSlotUnderContext(slot, value)
    }

    /// The context the next slot writes go under, when none are queued (a `FrameBatchWriter`'s run: the writes
    /// it queues with ``appendSlotUnderContext(_:_:)`` go under the context of the queued ones, all of one scene).
    @inlinable
    func prepareSlots(_ ctx: OpaquePointer) {
        if slotCount == 0 { slotContext = ctx }
    }

    /// Queues a one-component write by slot under ``slotContext`` (set by ``prepareSlots(_:)`` or an earlier
    /// write; kept by a flush), as ``appendSlot(_:_:_:)-(_,_,Double)``.
    @inlinable @inline(__always)
    func appendSlotUnderContext(_ slot: Int32, _ value: Double) {
        if slotCount >= slotLimit { flush() }
        slotWrites[slotCount] = motion_slot_write(slot: slot, count: 1)
        slotValues[slotCount &+ slotExtraValueCount] = value
        slotCount &+= 1
    }

    /// Queues a write by slot of 1 to 4 components (`values.count`, checked by the caller).
    @inlinable
    func appendSlot(_ ctx: OpaquePointer, _ slot: Int32, _ values: UnsafeBufferPointer<Double>) {
        if slotCount >= slotLimit { flush() }
        if slotCount == 0 { slotContext = ctx }
        slotWrites[slotCount] = motion_slot_write(slot: slot, count: UInt32(truncatingIfNeeded: values.count))
        var index = slotCount + slotExtraValueCount
        for value in values {
            slotValues[index] = value
            index += 1
        }
        slotExtraValueCount += values.count - 1
        slotCount += 1
    }

    /// Hands every queued write to the host, in order. A write the host skips is logged (it cannot
    /// be reported to the performer that queued it, which has moved on; the SDK's own checks before
    /// queuing leave the host no reason to skip one).
    @usableFromInline
    func flush() {
        if slotCount > 0 { flushSlots() }
        slotLimit = Self.slotCapacity
        guard count > 0 else { return }
        let queued = count
        count = 0
        var failedIndex = 0
        let status = setProperties(writes, queued, MemoryLayout<motion_property_write>.stride, &failedIndex)
        guard status != MOTION_OK else { return }
        host.log(
            MOTION_LOG_ERROR,
            "\(pluginID): the host skipped a queued property write (property \(writes[failedIndex].property), "
                + "\(writes[failedIndex].count) values) with \(String(cString: motion_status_name(status))).")
    }

    /// Hands the queued slot writes to the host's `set_slots`; a refused batch is logged (see ``flush()``).
    private func flushSlots() {
        let (queued, values) = (slotCount, slotCount + slotExtraValueCount)
        slotCount = 0
        slotExtraValueCount = 0
        guard let slots = host.slots, let setSlots = slots.pointee.set_slots else { return }
        var failedIndex = 0
        let status = setSlots(slotContext, slotWrites, queued, slotValues, values, &failedIndex)
        guard status != MOTION_OK else { return }
        host.log(
            MOTION_LOG_ERROR,
            "\(pluginID): the host refused a batch of \(queued) slot writes (at index \(failedIndex)) with "
                + "\(String(cString: motion_status_name(status))); none of them was applied.")
    }
}
