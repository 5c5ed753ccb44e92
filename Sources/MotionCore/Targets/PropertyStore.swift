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

    init() {
        records = .allocate(capacity: 0)
        components = .allocate(capacity: 0)
        changes = .allocate(capacity: 0)
        spareChanges = .allocate(capacity: 0)
    }

    deinit {
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
