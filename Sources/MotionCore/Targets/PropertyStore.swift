#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where one (target, property) pair of a ``Scene`` keeps its value: an index into the scene's property
/// store, resolved once (``Target/slot(for:)``, for example when a performer receives a plan) and used
/// every frame (``Target/setScalar(_:at:)``), so that a frame's write finds its value with no
/// lookup.
///
/// A slot is stable for the life of its scene and names one target's property: a target refuses
/// (traps on) a slot of another target, which is a programmer error. The C ABI passes it as
/// `motion_property_slot` (motion/slots.h).
public struct PropertySlot: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The slot's index in its scene's store (≥ 0).
    public let rawValue: Int32

    /// A slot from its raw value. Only slots returned by ``Target/slot(for:)`` name a property.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static func < (lhs: PropertySlot, rhs: PropertySlot) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "slot \(rawValue)" }
}

/// One write of a batch by slot (``Scene/setSlots(_:values:)``): a slot, and how many of the batch's values are
/// its (1 to 4 components, taken in order from the batch's values).
///
/// Laid out as the C ABI's `motion_slot_write` (motion/slots.h): the slot as a 32-bit signed integer, then the
/// count as a 32-bit unsigned one, 8 bytes in all, so a plugin host reads a C batch as a span of these.
@frozen
public struct PropertySlotWrite: Hashable, Sendable {
    /// The slot written.
    public var slot: PropertySlot
    /// How many values of the batch are this write's, 1...``PropertyValue/maximumCount``.
    public var count: UInt32

    /// A write of `count` components to `slot`.
    public init(slot: PropertySlot, count: UInt32) {
        self.slot = slot
        self.count = count
    }
}

/// What is wrong with a batch of slot writes (``Scene/setSlots(_:values:)``): the first problem in the order the
/// checks are made, and the index it concerns. The checks and their order are motion/slots.h's `set_slots`.
public struct PropertySlotBatchProblem: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kinds of problem, in the order they are looked for.
    public enum Kind: Hashable, Sendable {
        /// A write's slot is negative, or not below the scene's ``Scene/propertySlotCount``; ``index`` is the write's.
        case unknownSlot
        /// A write's count is outside 1...4, or the counts up to it need more values than the batch has; ``index``
        /// is the write's.
        case invalidCount
        /// The counts need fewer values than the batch has; ``index`` is the number of writes.
        case valuesLeftOver
        /// A value is NaN or infinite; ``index`` is the value's, among the batch's values.
        case notFinite
    }

    /// What is wrong.
    public let kind: Kind
    /// The write's index, or the value's (``Kind``).
    public let index: Int

    /// A problem of `kind` at `index`.
    public init(_ kind: Kind, at index: Int) {
        self.kind = kind
        self.index = index
    }

    public var description: String {
        switch kind {
        case .unknownSlot: "write \(index) names a slot the scene does not have"
        case .invalidCount: "write \(index) has a count outside 1...4 or past the batch's values"
        case .valuesLeftOver: "the batch's \(index) writes leave values over"
        case .notFinite: "value \(index) is not finite"
        }
    }
}

/// A scene's property values in dense, contiguous storage, addressed by slot, and its change log.
///
/// The only type of MotionCore that holds raw pointers to property data; ``Scene`` and ``Target`` reach
/// values through it alone. Per-frame writes allocate nothing, retain nothing and check no uniqueness.
///
/// Layout:
/// - `records[0..<slotCount]`: one ``Record`` per slot (16 bytes): where its components are, how many it
///   has (0: the target has no value for the property yet), whether it is in the change log, and the
///   (target index, property id) pair it belongs to.
/// - `components[0..<componentCount]`: the slots' components, each slot's `capacity` of them from its
///   `offset`, in the order the slots were made (so a run of targets made in order writes sequential
///   memory).
/// - `changes[0..<changeCount]`: the slots whose value changed since the last drain, in the order they first
///   changed; `spareChanges` is the buffer the next drain swaps in.
///
/// Invariants (every method keeps them; the first four make the per-write path check-free):
/// 1. `slotCount <= slotCapacity`; `records`, `changes` and `spareChanges` each hold `slotCapacity` elements.
/// 2. For every slot `s < slotCount`: `1 <= records[s].capacity <= 4`, `records[s].count <= capacity`, and
///    `records[s].offset + capacity <= componentCount <= componentCapacity`; no two slots' ranges overlap.
/// 3. A slot is in `changes` exactly when its `isDirty` is set, and at most once: so `changeCount <=
///    slotCount`, and appending to `changes` needs no capacity check.
/// 4. The slots of target `t` are `firstSlotOfTarget[t]`, then `nextSlotOfTarget[s]` from each (-1 ends the
///    chain), each slot on exactly one chain, its own target's: `records[s].target == t`. A slot is found by
///    walking its target's chain (a target has a few properties), with no table keyed by (target, property):
///    8 bytes per slot and target instead of a dictionary entry.
/// 5. Components past a slot's `count` (within its capacity) are 0, so growing `count` exposes zeros.
///
/// Thread rule: the scene's (its scheduler's thread) only. Not reentrant-safe by itself: ``drain(_:)``
/// hands out changes from a swapped-out buffer, so a body that writes values records them for the next
/// drain.
///
/// The per-frame scalar write (``set(_:scalar:)``) is inlinable, so that a performer in another module (and the
/// plugin host's batch loop) writes with no call; its fields are `@usableFromInline` for that alone, never
/// public.
@usableFromInline
final class PropertyStore {
    @usableFromInline
    struct Record {
        @usableFromInline var offset: UInt32
        /// Components the slot holds now, 0 (no value yet) through `capacity`.
        @usableFromInline var count: UInt8
        /// Components reserved at `offset`, 1...4 (grown by moving the slot's components to the end).
        @usableFromInline var capacity: UInt8
        @usableFromInline var isDirty: Bool
        @usableFromInline var target: Int32
        @usableFromInline var property: Int32

        @usableFromInline
        init(offset: UInt32, count: UInt8, capacity: UInt8, isDirty: Bool, target: Int32, property: Int32) {
            self.offset = offset
            self.count = count
            self.capacity = capacity
            self.isDirty = isDirty
            self.target = target
            self.property = property
        }
    }

    // Per-frame fields are read in place by the inlined write: no dynamic exclusivity check (the store is
    // used from one thread, never reentrantly within a write).
    @usableFromInline @exclusivity(unchecked) private(set) var slotCount = 0
    private var slotCapacity = 0
    @usableFromInline @exclusivity(unchecked) private(set) var records: UnsafeMutablePointer<Record>
    private var componentCount = 0
    private var componentCapacity = 0
    @usableFromInline @exclusivity(unchecked) private(set) var components: UnsafeMutablePointer<Double>
    @usableFromInline @exclusivity(unchecked) var changes: UnsafeMutablePointer<Int32>
    private var spareChanges: UnsafeMutablePointer<Int32>
    @usableFromInline @exclusivity(unchecked) var changeCount = 0
    // Walked by every write by property id (``Target/setValue(_:for:)``): no dynamic exclusivity check (one
    // cost more than the walk), as for the per-frame fields above.
    /// Invariant 4: per target index, its newest slot, or -1.
    @exclusivity(unchecked) private var firstSlotOfTarget: [Int32] = []
    /// Invariant 4: per slot, the next (older) slot of its target, or -1.
    @exclusivity(unchecked) private var nextSlotOfTarget: [Int32] = []
    /// The scene's targets' names, by target index (the scene's dense list of its targets, whether or not their
    /// objects were made); a ``Target`` reads its name here, from any thread (``TargetNames``).
    let targetIDs = TargetNames()

    init() {
        records = .allocate(capacity: 0)
        components = .allocate(capacity: 0)
        changes = .allocate(capacity: 0)
        spareChanges = .allocate(capacity: 0)
    }

    deinit {
        undo?.deallocate()
        records.deallocate()
        components.deallocate()
        changes.deallocate()
        spareChanges.deallocate()
    }

    /// The slot of a (target, property) pair, if it has one.
    func existingSlot(target: Int, property: Int32) -> Int32? {
        guard target < firstSlotOfTarget.count else { return nil }
        var slot = firstSlotOfTarget[target]
        while slot >= 0 {
            if records[Int(slot)].property == property { return slot }
            slot = nextSlotOfTarget[Int(slot)]
        }
        return nil
    }

    /// The slot of a (target, property) pair, made (with no value, room for `capacity` components) if it
    /// had none.
    func slot(target: Int, property: Int32, capacity: Int = 1) -> Int32 {
        if let slot = existingSlot(target: target, property: property) { return slot }
        if slotCount == slotCapacity { growSlots() }
        let slot = Int32(slotCount)
        let width = UInt8(Swift.min(Swift.max(capacity, 1), PropertyValue.maximumCount))
        records[slotCount] = Record(
            offset: reserveComponents(Int(width)), count: 0, capacity: width, isDirty: false, target: Int32(target),
            property: property)
        slotCount += 1
        if target >= firstSlotOfTarget.count {
            if target >= firstSlotOfTarget.capacity { firstSlotOfTarget.reserveCapacity([Int32].grownCapacity(target + 1)) }
            firstSlotOfTarget.append(contentsOf: repeatElement(-1, count: target + 1 - firstSlotOfTarget.count))
        }
        nextSlotOfTarget.appendGrowingByHalf(firstSlotOfTarget[target])
        firstSlotOfTarget[target] = slot
        return slot
    }

    /// The record of `slot` (which must be < ``slotCount``).
    @inlinable @inline(__always)
    func record(_ slot: Int32) -> Record { records[Int(slot)] }

    /// The value of `slot`, or `nil` when it has none yet.
    func value(_ slot: Int32) -> PropertyValue? {
        let record = records[Int(slot)]
        guard record.count > 0 else { return nil }
        let base = components + Int(record.offset)
        return PropertyValue(
            count: Int(record.count), base[0], record.count > 1 ? base[1] : 0, record.count > 2 ? base[2] : 0, record.count > 3 ? base[3] : 0)
    }

    /// Sets `slot` to a one-component value; a change is logged when it differs from the current value.
    @inlinable @inline(__always)
    func set(_ slot: Int32, scalar: Double) {
        let record = records + Int(slot)
        guard record.pointee.count == 1 else { return setFirstScalar(slot, scalar) }
        let base = components + Int(record.pointee.offset)
        if base.pointee == scalar { return }
        base.pointee = scalar
        logChange(record, slot)
    }

    /// ``set(_:scalar:)`` from no value or from a vector (out of line, so the per-frame path saves no registers
    /// for it): the components past the first become 0 (invariant 5).
    @usableFromInline @inline(never)
    func setFirstScalar(_ slot: Int32, _ scalar: Double) {
        let record = records + Int(slot)
        let base = components + Int(record.pointee.offset)
        for i in 1..<Int(record.pointee.capacity) { base[i] = 0 }
        record.pointee.count = 1
        base.pointee = scalar
        logChange(record, slot)
    }

    /// Sets `slot` to `value`; a change is logged when it differs from the current value.
    func set(_ slot: Int32, _ value: PropertyValue) {
        var record = records + Int(slot)
        let count = value.count
        if count > Int(record.pointee.capacity) {
            moveToEnd(slot, capacity: count)
            record = records + Int(slot)
        }
        let base = components + Int(record.pointee.offset)
        if Int(record.pointee.count) == count {
            var same = true
            for i in 0..<count where base[i] != value[i] { same = false }
            if same { return }
        }
        for i in 0..<Int(record.pointee.capacity) { base[i] = i < count ? value[i] : 0 }
        record.pointee.count = UInt8(count)
        logChange(record, slot)
    }

    // MARK: Batches by slot (a plugin host's set_slots)

    /// Checks a whole batch (``Scene/setSlots(_:values:)``), then applies it with no further check: nothing of a
    /// batch with a problem is applied.
    ///
    /// The per-frame batch (every write one finite component to a one-component slot, at most
    /// ``scalarBatchLimit`` writes) is checked and applied in one pass, ``applyScalars(_:_:)``, which keeps each
    /// value it replaces and puts the batch back at the first write it does not take; any other batch, and one it
    /// put back, is checked whole (``problem(_:_:)``, which names the first problem in motion/slots.h's order) and
    /// then applied (``applyChecked(_:_:)``).
    func setSlots(_ writes: UnsafeBufferPointer<PropertySlotWrite>, _ values: UnsafeBufferPointer<Double>) -> PropertySlotBatchProblem? {
        if writes.count == values.count, writes.count <= Self.scalarBatchLimit, applyScalars(writes, values) { return nil }
        if let problem = problem(writes, values) { return problem }
        applyChecked(writes, values)
        return nil
    }

    /// The most writes ``applyScalars(_:_:)`` takes in one batch: its `undo` buffer holds one value per write (8 KiB
    /// at most, made on the first batch). The SDK hands over at most 256 per batch; a larger batch takes the
    /// two-pass path.
    static let scalarBatchLimit = 1024

    /// The values ``applyScalars(_:_:)`` replaced in its current batch, by write index (``scalarBatchLimit`` of them,
    /// allocated on first use).
    private var undo: UnsafeMutablePointer<Double>?

    /// Checks and applies a batch of one-component writes (one value per write) in one pass: per write one compare for
    /// its slot's range and count together, one for its slot's count, one for its value's finiteness, then
    /// ``store(_:_:_:components:changes:changeCount:)``'s compare, store and log entry. The value each write replaces
    /// is kept in ``undo``, so that at the first write this pass does not take (a slot out of range, a count other than
    /// 1, a slot without exactly one component, a value that is not finite) it puts every earlier write back (values
    /// restored newest first, the slots this batch logged taken out of the log again) and returns `false`, the store as
    /// it was; the caller then checks the batch whole.
    /// - Returns: `true` when every write was applied.
    private func applyScalars(_ writes: UnsafeBufferPointer<PropertySlotWrite>, _ values: UnsafeBufferPointer<Double>) -> Bool {
        guard let writeBase = writes.baseAddress, let valueBase = values.baseAddress else { return false }
        let undo: UnsafeMutablePointer<Double>
        if let made = self.undo {
            undo = made
        } else {
            undo = .allocate(capacity: Self.scalarBatchLimit)
            self.undo = undo
        }
        // A write is 8 bytes, slot then count (PropertySlotWrite's layout, little-endian): as one word it is
        // UInt32(bitPattern: slot) | count << 32, so `word - 1 << 32` is below the slot count exactly when the count
        // is 1 and the slot is in range (a negative slot is 2^31 or more; another count leaves high bits). A C batch
        // is aligned to 4 bytes only: the words are read unaligned (one plain load on x86-64 and arm64).
        #if !_endian(little)
            return false
        #endif
        let words = UnsafeRawPointer(writeBase)
        let slots = UInt64(truncatingIfNeeded: slotCount)
        let records = self.records
        let components = self.components
        let changes = self.changes
        let changeCountAtStart = changeCount
        var changeCount = changeCountAtStart
        let count = writes.count
        var index = 0
        while index < count {
            let slotWord = words.loadUnaligned(fromByteOffset: index &* 8, as: UInt64.self) &- 0x1_0000_0000
            guard slotWord < slots else { break }
            let slot = Int(truncatingIfNeeded: slotWord)
            let scalar = valueBase[index]
            let record = records + slot
            // x - x is NaN for an infinity or a NaN, and a NaN is the one value unequal to itself.
            let difference = scalar - scalar
            guard record.pointee.count == 1, difference == difference else { break }
            undo[index] = components[Int(record.pointee.offset)]
            Self.store(scalar, Int32(truncatingIfNeeded: slot), record, components: components, changes: changes, changeCount: &changeCount)
            index &+= 1
        }
        if index == count {
            self.changeCount = changeCount
            return true
        }
        // Put back: the values newest first (a slot written twice gets its value from before the batch), then the
        // log entries this batch added (their slots were not in the log before it).
        while index > 0 {
            index &-= 1
            let record = records + Int(truncatingIfNeeded: words.loadUnaligned(fromByteOffset: index &* 8, as: UInt64.self) &- 0x1_0000_0000)
            components[Int(record.pointee.offset)] = undo[index]
        }
        for entry in changeCountAtStart..<changeCount { records[Int(changes[entry])].isDirty = false }
        return false
    }

    /// The first problem of a batch, in the order ``Scene/setSlots(_:values:)`` gives, or `nil`. One pass, each
    /// write's slot (one unsigned compare: a negative slot is a large unsigned one) before its count; the values'
    /// finiteness as one sum (x - x is 0 for a finite x, NaN otherwise), searched for the culprit only when it fails.
    private func problem(_ writes: UnsafeBufferPointer<PropertySlotWrite>, _ values: UnsafeBufferPointer<Double>)
        -> PropertySlotBatchProblem?
    {
        let slots = UInt32(truncatingIfNeeded: slotCount)
        let valueCount = values.count
        var total = 0
        var sum = 0.0
        var index = 0
        while index < writes.count {
            // The common writes, one component each, while the values hold one per write: per write one compare for
            // the slot and one for the count.
            let end = Swift.min(writes.count, index &+ (valueCount &- total))
            while index < end {
                let write = writes[index]
                if UInt32(bitPattern: write.slot.rawValue) >= slots { return PropertySlotBatchProblem(.unknownSlot, at: index) }
                guard write.count == 1 else { break }
                sum += values[total] - values[total]
                total &+= 1
                index &+= 1
            }
            guard index < writes.count else { break }
            let write = writes[index]
            if UInt32(bitPattern: write.slot.rawValue) >= slots { return PropertySlotBatchProblem(.unknownSlot, at: index) }
            let components = Int(write.count)
            if write.count &- 1 >= UInt32(PropertyValue.maximumCount) || components > valueCount &- total {
                return PropertySlotBatchProblem(.invalidCount, at: index)
            }
            for i in total..<total &+ components { sum += values[i] - values[i] }
            total &+= components
            index &+= 1
        }
        if total < valueCount { return PropertySlotBatchProblem(.valuesLeftOver, at: writes.count) }
        guard sum == 0 else { return PropertySlotBatchProblem(.notFinite, at: (0..<valueCount).first { !values[$0].isFinite } ?? 0) }
        return nil
    }

    /// Applies a batch ``problem(_:_:)`` found nothing wrong with: the store's pointers and change count held in
    /// locals for the loop (a one-component write of a one-component slot, the per-frame case, touches its record,
    /// its component and, when it changes first, the log), refreshed after any other write, which may move a
    /// slot's components (invariant 2's growth).
    private func applyChecked(_ writes: UnsafeBufferPointer<PropertySlotWrite>, _ values: UnsafeBufferPointer<Double>) {
        guard var value = values.baseAddress, let writeBase = writes.baseAddress else { return }
        var records = self.records
        var components = self.components
        var changeCount = self.changeCount
        let changes = self.changes
        var index = 0
        while index < writes.count {
            let write = writeBase[index]
            index &+= 1
            let slot = write.slot.rawValue
            let record = records + Int(slot)
            if write.count == 1, record.pointee.count == 1 {
                Self.store(value.pointee, slot, record, components: components, changes: changes, changeCount: &changeCount)
                value += 1
                continue
            }
            self.changeCount = changeCount
            if write.count == 1 {
                setFirstScalar(slot, value.pointee)
            } else {
                set(slot, PropertyValue(UnsafeBufferPointer(start: value, count: Int(write.count))))
            }
            (records, components, changeCount) = (self.records, self.components, self.changeCount)
            value += Int(write.count)
        }
        self.changeCount = changeCount
    }

    /// The batch loops' per-frame write: `scalar` into the one component of `slot` (whose record is `record`), logged
    /// when it changes the value and the slot is not in the log yet; the loops hold the store's pointers and change
    /// count in locals and pass them.
    @inline(__always)
    private static func store(
        _ scalar: Double, _ slot: Int32, _ record: UnsafeMutablePointer<Record>, components: UnsafeMutablePointer<Double>,
        changes: UnsafeMutablePointer<Int32>, changeCount: inout Int
    ) {
        let base = components + Int(record.pointee.offset)
        guard base.pointee != scalar else { return }
        base.pointee = scalar
        guard !record.pointee.isDirty else { return }
        record.pointee.isDirty = true
        // Invariant 3: room for every slot.
        changes[changeCount] = slot
        changeCount &+= 1
    }

    /// Applies a batch write by write, each checked as it is read (``Scene/setSlotsCheckingEach(_:values:)``):
    /// every slot, count and value is read from the batch once, and what was read is what is checked and stored.
    /// Stops at the first problem; the writes before it stay applied.
    func setSlotsCheckingEach(_ writes: UnsafeBufferPointer<PropertySlotWrite>, _ values: UnsafeBufferPointer<Double>)
        -> PropertySlotBatchProblem?
    {
        guard let writeBase = writes.baseAddress else { return values.isEmpty ? nil : PropertySlotBatchProblem(.valuesLeftOver, at: 0) }
        guard let valueBase = values.baseAddress else {
            // No values: the first write's slot, else its count, is the problem.
            let slot = writeBase.pointee.slot.rawValue
            return PropertySlotBatchProblem(UInt32(bitPattern: slot) >= UInt32(truncatingIfNeeded: slotCount) ? .unknownSlot : .invalidCount, at: 0)
        }
        let slots = UInt32(truncatingIfNeeded: slotCount)
        let writeCount = writes.count
        let valueEnd = valueBase + values.count
        var value = valueBase
        var records = self.records
        var components = self.components
        var changeCount = self.changeCount
        let changes = self.changes
        var index = 0
        while index < writeCount {
            let write = writeBase[index]
            let slot = write.slot.rawValue
            if UInt32(bitPattern: slot) >= slots {
                self.changeCount = changeCount
                return PropertySlotBatchProblem(.unknownSlot, at: index)
            }
            let count = write.count
            // The per-frame write: one finite component to a one-component slot.
            if count == 1, value < valueEnd {
                let scalar = value.pointee
                let record = records + Int(slot)
                if scalar - scalar == 0, record.pointee.count == 1 {
                    Self.store(scalar, slot, record, components: components, changes: changes, changeCount: &changeCount)
                    value += 1
                    index &+= 1
                    continue
                }
            }
            self.changeCount = changeCount
            if count &- 1 >= UInt32(PropertyValue.maximumCount) || Int(count) > valueEnd - value {
                return PropertySlotBatchProblem(.invalidCount, at: index)
            }
            // Read once into a value; what was read is checked and stored.
            let read = PropertyValue(UnsafeBufferPointer(start: value, count: Int(count)))
            guard read.isFinite else {
                return PropertySlotBatchProblem(.notFinite, at: value - valueBase + (0..<Int(count)).first { !read[$0].isFinite }!)
            }
            if count == 1 { setFirstScalar(slot, read.scalar) } else { set(slot, read) }
            (records, components, changeCount) = (self.records, self.components, self.changeCount)
            value += Int(count)
            index &+= 1
        }
        self.changeCount = changeCount
        if value < valueEnd { return PropertySlotBatchProblem(.valuesLeftOver, at: writeCount) }
        return nil
    }

    /// Sets `slot` to `value` without logging a change (a scene's initial values).
    func setInitial(_ slot: Int32, _ value: PropertyValue) {
        if value.count > Int(records[Int(slot)].capacity) { moveToEnd(slot, capacity: value.count) }
        let record = records + Int(slot)
        let base = components + Int(record.pointee.offset)
        for i in 0..<Int(record.pointee.capacity) { base[i] = i < value.count ? value[i] : 0 }
        record.pointee.count = UInt8(value.count)
    }

    @inlinable @inline(__always)
    func logChange(_ record: UnsafeMutablePointer<Record>, _ slot: Int32) {
        guard !record.pointee.isDirty else { return }
        record.pointee.isDirty = true
        // Invariant 3: room for every slot.
        changes[changeCount] = slot
        changeCount += 1
    }

    /// Hands each slot changed since the last drain to `body`, in the order they first changed, and clears
    /// the log. Writes made by `body` are logged for the next drain.
    func drain(_ body: (Record, PropertyValue) -> Void) {
        let count = changeCount
        guard count > 0 else { return }
        guard !isDraining else {
            // A drain from inside a drain's body: the spare buffer is the one being handed out, so copy.
            let copy = Array(UnsafeBufferPointer(start: changes, count: count))
            changeCount = 0
            for slot in copy { hand(slot, body) }
            return
        }
        isDraining = true
        drainingCount = count
        defer { (isDraining, drainingCount) = (false, 0) }
        (changes, spareChanges) = (spareChanges, changes)
        changeCount = 0
        // Read through `spareChanges` each time: a body that makes a slot grows the store, which moves the
        // buffer being handed out (keeping its `drainingCount` slots).
        for i in 0..<count { hand(spareChanges[i], body) }
    }

    private var isDraining = false
    /// The slots in `spareChanges` while a drain hands them out (0 otherwise): growth keeps them.
    private var drainingCount = 0

    @inline(__always)
    private func hand(_ slot: Int32, _ body: (Record, PropertyValue) -> Void) {
        records[Int(slot)].isDirty = false
        if let value = value(slot) { body(records[Int(slot)], value) }
    }

    // MARK: Growth (never on a write of a slot's own count or less)

    private func growSlots() {
        let capacity = Swift.max(16, slotCapacity + slotCapacity / 2)  // by half: see Storage/Growth.swift
        records = Self.reallocate(records, count: slotCount, capacity: capacity)
        changes = Self.reallocate(changes, count: changeCount, capacity: capacity)
        spareChanges = Self.reallocate(spareChanges, count: drainingCount, capacity: capacity)
        slotCapacity = capacity
    }

    private func reserveComponents(_ count: Int) -> UInt32 {
        if componentCount + count > componentCapacity {
            let capacity = Swift.max(16, componentCapacity + componentCapacity / 2, componentCount + count)
            components = Self.reallocate(components, count: componentCount, capacity: capacity)
            componentCapacity = capacity
        }
        let offset = componentCount
        (components + offset).initialize(repeating: 0, count: count)
        componentCount += count
        precondition(componentCount <= Int(UInt32.max), "a scene's property store holds at most 2^32 components")
        return UInt32(offset)
    }

    /// Gives `slot` room for `capacity` components at the end of the components (its old range is left
    /// unused), keeping its value.
    private func moveToEnd(_ slot: Int32, capacity: Int) {
        let old = records[Int(slot)]
        let offset = reserveComponents(capacity)
        for i in 0..<Int(old.count) { components[Int(offset) + i] = components[Int(old.offset) + i] }
        records[Int(slot)].offset = offset
        records[Int(slot)].capacity = UInt8(capacity)
    }

    private static func reallocate<T>(_ pointer: UnsafeMutablePointer<T>, count: Int, capacity: Int) -> UnsafeMutablePointer<T> {
        let new = UnsafeMutablePointer<T>.allocate(capacity: capacity)
        new.moveInitialize(from: pointer, count: count)
        pointer.deallocate()
        return new
    }
}

/// A scene's target names by index, append-only, in chunks that never move once made: a name, once added, may be
/// read from any thread while the scheduler's thread adds more (a plugin's thread naming its context's target in a
/// log line), which an array that grows by moving its elements would not allow.
///
/// Invariants: chunk `k` holds `firstChunk << k` names and starts at index `firstChunk * (2^k - 1)`; chunks below
/// the one holding index `count - 1` are full; the directory of chunk addresses is allocated once (enough chunks
/// for 2^50 names) and each address is written once, before any name in its chunk is handed out. Only `append` (on
/// the scheduler's thread) writes. At 10,000 names the chunks hold 16,320 (the sizes double), at 1,000,000 they hold
/// 1,048,512.
final class TargetNames {
    private static let firstChunk = 64
    private static let chunkLimit = 44
    private let chunks: UnsafeMutablePointer<UnsafeMutablePointer<TargetID>?>
    /// How many names there are (read on the scheduler's thread).
    @exclusivity(unchecked) private(set) var count = 0

    init() {
        chunks = .allocate(capacity: Self.chunkLimit)
        chunks.initialize(repeating: nil, count: Self.chunkLimit)
    }

    deinit {
        var start = 0
        for k in 0..<Self.chunkLimit {
            guard let chunk = chunks[k] else { break }
            let size = Self.firstChunk << k
            chunk.deinitialize(count: Swift.min(size, count - start))
            chunk.deallocate()
            start += size
        }
        chunks.deallocate()
    }

    /// The chunk holding index `i` and the index's place in it.
    @inline(__always)
    private static func locate(_ i: Int) -> (chunk: Int, offset: Int) {
        let k = (Int.bitWidth - 1) - (i / firstChunk + 1).leadingZeroBitCount
        return (k, i - firstChunk * ((1 << k) - 1))
    }

    /// The name at `index` (below ``count``; another traps).
    subscript(index: Int) -> TargetID {
        precondition(index >= 0 && index < count, "target index \(index) is not below \(count)")
        let (k, offset) = Self.locate(index)
        return chunks[k]![offset]
    }

    /// Adds a name at index ``count``.
    func append(_ id: TargetID) {
        let (k, offset) = Self.locate(count)
        precondition(k < Self.chunkLimit, "a scene holds fewer than 2^50 targets")
        if offset == 0 { chunks[k] = .allocate(capacity: Self.firstChunk << k) }
        (chunks[k]! + offset).initialize(to: id)
        count += 1
    }
}
