/// The targets of one run and their animatable properties.
///
/// A scene owns its targets (Documentation/RUNTIME.md R42: targets live as long as the scene that owns them);
/// performers read and write their own target's properties through ``Target``. Property names are
/// interned into ``PropertyID``s shared by all targets of the scene. Every change of a property's
/// value is recorded, in order, until ``drainChanges()`` hands the list out (the CLI writes it to the
/// timeline once per frame).
///
/// Values live in one dense store for the whole scene, one slot per (target, property) pair
/// (``PropertySlot``); the change log is a list of slots. A performer that writes every frame resolves its
/// slot once (``Target/slot(for:)``) and writes through it (``Target/setScalar(_:at:)``): no
/// lookup, allocation or retain per write.
///
/// Thread rule: use a scene from its scheduler's thread only.
public final class Scene {
    @exclusivity(unchecked) private var propertyIDs: [String: PropertyID] = [:]
    @exclusivity(unchecked) private var propertyNames: [String] = []
    @exclusivity(unchecked) private var targetsByID = TargetTable()
    /// The ``Target`` object of each target that has one, by index: empty until the first is made, then as long as
    /// the targets (8 bytes each). A target's object is made the first time code asks for it (``target(at:)``,
    /// ``target(_:)``, ``targets``, a ``PerformerContext``'s `target`) and kept for the scene's life (R42), so asking
    /// again gives the same object; a scene whose performers work by index (members of a ``SharedPerformer``) makes
    /// none (a 48-byte block each, and the array).
    @exclusivity(unchecked) private var targetObjects: ContiguousArray<Target?> = []
    @usableFromInline let store = PropertyStore()

    /// An empty scene.
    public init() {}

    /// A scene with the given targets, each with no properties yet.
    public convenience init(targets: [TargetID]) {
        self.init()
        addTargets(targets)
    }

    /// The targets, in the order they were added: each one's ``Target`` object, made now for those that had none
    /// (O(n): in a loop, use ``targetCount`` and ``target(at:)`` or ``targetID(at:)``).
    public var targets: [Target] { (0..<targetCount).map { target(at: $0) } }

    /// How many targets the scene has; their indices are `0..<targetCount`, in the order they were added.
    public var targetCount: Int { store.targetIDs.count }

    /// The name of the target at `index`.
    /// - Parameter index: A target's index, `0..<targetCount`; another traps.
    public func targetID(at index: Int) -> TargetID { store.targetIDs[index] }

    /// The target at `index`, its object made if it had none (and kept: the same object every time).
    /// - Parameter index: A target's index, `0..<targetCount`; another traps.
    public func target(at index: Int) -> Target {
        if index < targetObjects.count, let made = targetObjects[index] { return made }
        precondition(index >= 0 && index < targetCount, "target index \(index) is not below the scene's \(targetCount) targets")
        if targetObjects.count < targetCount {
            // The first object: room for the targets there are (a scene's targets are mostly added before any is
            // asked for); later ones, grown by half.
            if targetCount > targetObjects.capacity {
                targetObjects.reserveCapacity(targetObjects.isEmpty ? targetCount : ContiguousArray<Target?>.grownCapacity(targetCount))
            }
            targetObjects.append(contentsOf: repeatElement(nil, count: targetCount - targetObjects.count))
        }
        let target = Target(index: index, scene: self, store: store)
        targetObjects[index] = target
        return target
    }

    /// The slot of a property of the target at `index`, made (with no value) if it had none: ``Target/slot(for:)``
    /// by index, for a performer that keeps its targets' indices (no object is made).
    /// - Parameters:
    ///   - property: An id from ``propertyID(_:)`` of this scene; another traps.
    ///   - index: A target's index, `0..<targetCount`; another traps.
    /// - Returns: The slot, stable for the scene's life.
    public func slot(for property: PropertyID, ofTargetAt index: Int) -> PropertySlot {
        precondition(hasProperty(property), "\(property) is not a property id of this scene")
        precondition(index >= 0 && index < targetCount, "target index \(index) is not below the scene's \(targetCount) targets")
        return PropertySlot(rawValue: store.slot(target: index, property: property.rawValue))
    }

    /// How many targets have their ``Target`` object made (for tests of the lazy objects).
    var madeTargetObjectCount: Int { targetObjects.lazy.filter { $0 != nil }.count }

    /// The index of the target named `id`, if the scene has one (no object is made).
    public func targetIndex(of id: TargetID) -> Int? { targetsByID.index(of: id, among: store.targetIDs) }

    /// The interned id of a property name, creating it on first use.
    public func propertyID(_ name: String) -> PropertyID {
        if let id = propertyIDs[name] { return id }
        let id = PropertyID(rawValue: Int32(propertyNames.count))
        propertyIDs[name] = id
        propertyNames.append(name)
        propertyCount = propertyNames.count
        return id
    }

    /// The interned id of a property name, or `nil` when no target of the scene has used that name (it is
    /// not interned: a misspelt name stays unknown).
    public func existingPropertyID(_ name: String) -> PropertyID? { propertyIDs[name] }

    /// Whether `id` was returned by ``propertyID(_:)`` of this scene.
    @inlinable
    public func hasProperty(_ id: PropertyID) -> Bool { id.rawValue >= 0 && Int(id.rawValue) < propertyCount }

    /// How many property names the scene has interned (stored, so an inlined ``hasProperty(_:)`` reads a field).
    @usableFromInline @exclusivity(unchecked) private(set) var propertyCount = 0

    /// The name of an interned property id, or `nil` if the id was never returned by this scene.
    public func propertyName(_ id: PropertyID) -> String? {
        propertyNames.indices.contains(Int(id.rawValue)) ? propertyNames[Int(id.rawValue)] : nil
    }

    /// Adds a target with initial property values, or returns the existing target of that id
    /// (setting the given values on it).
    /// - Parameters:
    ///   - id: The target's name.
    ///   - properties: Initial values by property name. Initial values are not recorded as changes.
    /// - Returns: The target.
    @discardableResult
    public func addTarget(_ id: TargetID, properties: [String: PropertyValue] = [:]) -> Target {
        target(at: addTargetIndex(id, properties: properties.sorted(by: { $0.key < $1.key })))
    }

    /// Adds targets with the same initial property values (an existing one gets the values), making no ``Target``
    /// objects (``target(at:)`` makes one when asked): for a scene of many targets whose performers work by index.
    /// - Parameters:
    ///   - ids: The targets' names, in order.
    ///   - properties: Initial values by property name, for each of them. Initial values are not recorded as changes.
    public func addTargets(_ ids: some Sequence<TargetID>, properties: [String: PropertyValue] = [:]) {
        let sorted = properties.sorted(by: { $0.key < $1.key })
        for id in ids { addTargetIndex(id, properties: sorted) }
    }

    /// Adds a target (or finds it) and sets its initial values; returns its index.
    @discardableResult
    private func addTargetIndex(_ id: TargetID, properties: [(key: String, value: PropertyValue)]) -> Int {
        let index: Int
        if let existing = targetIndex(of: id) {
            index = existing
        } else {
            index = targetCount
            precondition(index < Int(Int32.max), "a scene holds fewer than 2^31 - 1 targets")
            store.targetIDs.append(id)
            targetsByID.insert(id, index: index, among: store.targetIDs)
        }
        for (name, value) in properties {
            let property = propertyID(name).rawValue
            store.setInitial(store.slot(target: index, property: property, capacity: value.count), value)
        }
        return index
    }

    /// The target of that id, if the scene has one (its object made if it had none).
    public func target(_ id: TargetID) -> Target? {
        targetIndex(of: id).map { target(at: $0) }
    }

    /// The property changes recorded since the last call, in the order they first happened; a property
    /// that changed several times appears once, with its latest value.
    public func drainChanges() -> [PropertyChange] {
        var out: [PropertyChange] = []
        out.reserveCapacity(store.changeCount)
        drainIndexedChanges { target, property, value in
            out.append(PropertyChange(target: self.targetID(at: target), property: property, value: value))
        }
        return out
    }

    /// Hands each property change recorded since the last call to `body`, in the order they first
    /// happened, without allocating: a property that changed several times is handed once, with its
    /// latest value. Use this on per-frame paths. Values `body` sets are recorded for the next drain.
    /// Makes the ``Target`` object of each changed target that has none (``drainIndexedChanges(_:)`` makes none).
    public func drainChanges(_ body: (Target, PropertyID, PropertyValue) -> Void) {
        store.drain { record, value in
            let index = Int(record.target)
            if index < targetObjects.count, let made = targetObjects[index] {
                Unmanaged.passUnretained(made)._withUnsafeGuaranteedRef { body($0, PropertyID(rawValue: record.property), value) }
            } else {
                body(target(at: index), PropertyID(rawValue: record.property), value)
            }
        }
    }

    /// As ``drainChanges(_:)``, naming each changed target by its index (``targetID(at:)``): no ``Target`` object is
    /// made or read.
    public func drainIndexedChanges(_ body: (_ target: Int, PropertyID, PropertyValue) -> Void) {
        store.drain { record, value in body(Int(record.target), PropertyID(rawValue: record.property), value) }
    }

    /// How many slots the scene's store has made: every ``PropertySlot`` of the scene is below this
    /// (a plugin host checks a batch of slot writes against it before applying any).
    public var propertySlotCount: Int { store.slotCount }

    /// The value in a slot of any target of the scene, or `nil` when it has none yet.
    /// - Parameter slot: A slot of this scene (below ``propertySlotCount``); another traps.
    public func value(at slot: PropertySlot) -> PropertyValue? {
        precondition(UInt32(bitPattern: slot.rawValue) < UInt32(truncatingIfNeeded: store.slotCount), "\(slot) is not a slot of this scene")
        return store.value(slot.rawValue)
    }

    /// Sets the one-component value of a slot of any target of the scene (a plugin host applying a batch
    /// it has checked); a value different from the current one is recorded as a change.
    /// - Parameters:
    ///   - scalar: The value.
    ///   - slot: A slot of this scene (below ``propertySlotCount``); another traps.
    @inlinable
    public func setScalar(_ scalar: Double, at slot: PropertySlot) {
        precondition(UInt32(bitPattern: slot.rawValue) < UInt32(truncatingIfNeeded: store.slotCount), "\(slot) is not a slot of this scene")
        store.set(slot.rawValue, scalar: scalar)
    }

    /// Applies a batch of writes by slot, all or nothing (a plugin host's `set_slots`, motion/slots.h): every write
    /// is checked before any is applied, then applied in order, each as ``setValue(_:at:)`` would (a value
    /// different from the current one is recorded as a change).
    ///
    /// The checks, in order: per write, in index order, its slot (below ``propertySlotCount``), then its count
    /// (1...4, and the counts so far within `values`); then the whole batch: the counts use every value, and
    /// every value is finite. A slot's range is checked, not whose it is: one batch may write any targets of the
    /// scene.
    /// - Parameters:
    ///   - writes: The writes, in order.
    ///   - values: Their components, one write's after another (write 0's `count` of them, then write 1's ...).
    /// - Returns: `nil` when every write was applied, or the first problem (``PropertySlotBatchProblem``), in
    ///   which case nothing was.
    public func setSlots(_ writes: Span<PropertySlotWrite>, values: Span<Double>) -> PropertySlotBatchProblem? {
        writes.withUnsafeBufferPointer { writes in values.withUnsafeBufferPointer { store.setSlots(writes, $0) } }
    }

    /// Applies a batch of writes by slot write by write, each checked as it is read, for a batch in memory that
    /// another process may change while it is read (an isolated plugin's shared memory, after its sandbox checked
    /// the plugin's batch): every slot, count and value is read once, and what was read is what is checked and
    /// stored, so no write the checks refuse is applied whatever the memory holds meanwhile.
    ///
    /// The checks are ``setSlots(_:values:)``'s, made per write (slot, count, then its values' finiteness) and, at
    /// the end, that the counts used every value.
    /// - Parameters:
    ///   - writes: The writes, in order.
    ///   - values: Their components, one write's after another.
    /// - Returns: `nil` when every write was applied, or the first problem, in which case the writes before the
    ///   one it names were applied and none after.
    public func setSlotsCheckingEach(_ writes: Span<PropertySlotWrite>, values: Span<Double>) -> PropertySlotBatchProblem? {
        writes.withUnsafeBufferPointer { writes in values.withUnsafeBufferPointer { store.setSlotsCheckingEach(writes, $0) } }
    }

    /// Sets the value of a slot of any target of the scene; see ``setScalar(_:at:)``.
    /// - Parameters:
    ///   - value: The value (1 to 4 components).
    ///   - slot: A slot of this scene (below ``propertySlotCount``); another traps.
    public func setValue(_ value: PropertyValue, at slot: PropertySlot) {
        precondition(UInt32(bitPattern: slot.rawValue) < UInt32(truncatingIfNeeded: store.slotCount), "\(slot) is not a slot of this scene")
        store.set(slot.rawValue, value)
    }
}

/// A scene's targets by name: an open-addressing table of (hash bits, index into the scene's `targets`) words,
/// at most three quarters full, so 10.7 to 21.3 bytes per target (a `[TargetID: Target]` took about 50 at a
/// million, for its inline key and value and its growth; at most half full, 16 to 32, it took 26 at 10,000).
/// Linear probing at that load finds a name in about 2.5 probes, each a compare of the word's hash bits, and
/// reads a target's name only where they match. The names themselves are in the store's `targetIDs` (``TargetNames``).
private struct TargetTable {
    /// Each word: the top 32 bits of the name's hash, then the target's index + 1; 0 is an empty bucket.
    private var buckets: [UInt64] = Array(repeating: 0, count: 16)
    private var count = 0

    private static func hashBits(_ id: TargetID) -> UInt64 { UInt64(UInt(bitPattern: id.hashValue)) >> 32 }

    /// The index of the target named `id`, if there is one.
    func index(of id: TargetID, among targets: TargetNames) -> Int? {
        let hash = Self.hashBits(id)
        let mask = buckets.count - 1
        var bucket = Int(truncatingIfNeeded: hash) & mask
        while true {
            let word = buckets[bucket]
            if word == 0 { return nil }
            if word >> 32 == hash, targets[Int(word & 0xFFFF_FFFF) - 1] == id { return Int(word & 0xFFFF_FFFF) - 1 }
            bucket = (bucket + 1) & mask
        }
    }

    /// Adds a target that the table does not hold yet, at `index` of `targets`.
    mutating func insert(_ id: TargetID, index: Int, among targets: TargetNames) {
        precondition(index < Int(UInt32.max), "a scene holds fewer than 2^32 - 1 targets")
        if (count + 1) * 4 > buckets.count * 3 {
            let old = buckets
            buckets = Array(repeating: 0, count: old.count * 2)
            for word in old where word != 0 { place(word) }
        }
        place(Self.hashBits(id) << 32 | UInt64(index + 1))
        count += 1
    }

    private mutating func place(_ word: UInt64) {
        let mask = buckets.count - 1
        var bucket = Int(truncatingIfNeeded: word >> 32) & mask
        while buckets[bucket] != 0 { bucket = (bucket + 1) & mask }
        buckets[bucket] = word
    }
}

/// One property whose value changed: which target, which property, its latest value.
public struct PropertyChange: Hashable, Sendable {
    /// The target whose property changed.
    public let target: TargetID
    /// The property that changed.
    public let property: PropertyID
    /// Its latest value.
    public var value: PropertyValue

    /// A change of `property` of `target` to `value`.
    public init(target: TargetID, property: PropertyID, value: PropertyValue) {
        self.target = target
        self.property = property
        self.value = value
    }
}

/// A named object in a ``Scene`` with animatable properties.
///
/// Its values live in the scene's store (one ``PropertySlot`` per property it has); the target is a view of them. Its scene makes the object the first time code asks for it and keeps it for the scene's life
/// (``Scene/target(at:)``): a target's object is always the same one.
///
/// Thread rule: use a target from its scene's scheduler thread only.
public final class Target {
    /// The target's name (kept once, in its scene's list of names, whose names never move: any thread may read it,
    /// as the plugin host's contexts do to name their target in log lines from plugins' own threads).
    public var id: TargetID { store.targetIDs[index] }
    /// The target's place in its scene's `targets`, as the store's records name it.
    @usableFromInline let rawIndex: Int32
    /// The target's place in its scene's ``Scene/targets`` (0 for the first target added): stable for the scene's life,
    /// so a performer that keeps one small record per target (a ``SharedPerformer``'s member) may keep this instead
    /// of a reference.
    public var index: Int { Int(rawIndex) }
    /// The slot last written by property id (``setValue(_:for:)``), or -1: a performer (or a plugin through
    /// `set_property`) that writes one property every frame finds it with one compare. Beside `rawIndex`, so
    /// a target is 40 bytes (a 48-byte heap block: its name is in the store's list, by index).
    @exclusivity(unchecked) private var lastSlot: Int32 = -1
    /// The scene that owns this target.
    public unowned let scene: Scene
    // The scene's store, held strongly (it holds no target): the per-write path reads it with no
    // `unowned` check.
    @usableFromInline let store: PropertyStore

    init(index: Int, scene: Scene, store: PropertyStore) {
        precondition(index < Int(Int32.max), "a scene holds fewer than 2^31 - 1 targets")
        self.rawIndex = Int32(index)
        self.scene = scene
        self.store = store
    }

    /// The value of a property, or `nil` if this target has never had that property.
    public subscript(property: PropertyID) -> PropertyValue? {
        guard let slot = store.existingSlot(target: index, property: property.rawValue) else { return nil }
        return store.value(slot)
    }

    /// The value of a property by name, or `nil` if this target has never had that property.
    public subscript(name: String) -> PropertyValue? { self[scene.propertyID(name)] }

    /// Whether this target has a value for the property `name` (the scene gave it one, or a performer set
    /// one). Interns nothing.
    public func hasProperty(named name: String) -> Bool {
        guard let id = scene.existingPropertyID(name) else { return false }
        return self[id] != nil
    }

    /// Sets a property's value; a value different from the current one is recorded as a change.
    ///
    public func setValue(_ value: PropertyValue, for property: PropertyID) {
        let last = lastSlot
        if last >= 0, store.record(last).property == property.rawValue {
            store.set(last, value)
            return
        }
        let slot = store.slot(target: index, property: property.rawValue, capacity: value.count)
        lastSlot = slot
        store.set(slot, value)
    }

    /// Sets a property's value by name; see ``setValue(_:for:)``.
    public func setValue(_ value: PropertyValue, forName name: String) {
        setValue(value, for: scene.propertyID(name))
    }

    /// The slot of one of this target's properties, for writing it every frame with no lookup; made (with
    /// no value, so ``subscript(_:)-(PropertyID)`` still answers `nil`) if the target had none. Resolve it
    /// once, when a plan arrives, and keep it.
    /// - Parameter property: An id from ``Scene/propertyID(_:)`` of this target's scene.
    /// - Returns: The slot, stable for the scene's life.
    public func slot(for property: PropertyID) -> PropertySlot {
        precondition(scene.hasProperty(property), "\(property) is not a property id of this target's scene")
        return PropertySlot(rawValue: store.slot(target: index, property: property.rawValue))
    }

    /// The value in one of this target's slots, or `nil` when it has none yet.
    /// - Parameter slot: A slot from this target's ``slot(for:)``; another target's traps.
    public func value(at slot: PropertySlot) -> PropertyValue? {
        checkOwnership(slot)
        return store.value(slot.rawValue)
    }

    /// Sets one of this target's properties to a one-component value through its slot; a value different
    /// from the current one is recorded as a change (as ``setValue(_:for:)`` does, with no lookup).
    /// - Parameters:
    ///   - scalar: The value.
    ///   - slot: A slot from this target's ``slot(for:)``; another target's traps.
    @inlinable
    public func setScalar(_ scalar: Double, at slot: PropertySlot) {
        checkOwnership(slot)
        store.set(slot.rawValue, scalar: scalar)
    }

    /// Sets one of this target's properties through its slot; see ``setScalar(_:at:)``.
    /// - Parameters:
    ///   - value: The value (1 to 4 components).
    ///   - slot: A slot from this target's ``slot(for:)``; another target's traps.
    public func setValue(_ value: PropertyValue, at slot: PropertySlot) {
        checkOwnership(slot)
        store.set(slot.rawValue, value)
    }

    @inlinable @inline(__always)
    func checkOwnership(_ slot: PropertySlot) {
        precondition(
            UInt32(bitPattern: slot.rawValue) < UInt32(truncatingIfNeeded: store.slotCount)
                && store.record(slot.rawValue).target == rawIndex,
            "\(slot) is not a slot of target \(id.name)")
    }

    /// The names and values of every property this target has, sorted by name.
    public var properties: [(name: String, value: PropertyValue)] {
        (0..<Int32(scene.propertyCount)).compactMap { raw in
            let property = PropertyID(rawValue: raw)
            guard let value = self[property], let name = scene.propertyName(property) else { return nil }
            return (name, value)
        }.sorted { $0.name < $1.name }
    }

    func setInitialValue(_ value: PropertyValue, for property: PropertyID) {
        store.setInitial(store.slot(target: index, property: property.rawValue, capacity: value.count), value)
    }
}
