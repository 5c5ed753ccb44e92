/// The targets of one run and their animatable properties.
///
/// A scene owns its targets (Documentation/RUNTIME.md R42: targets live as long as the scene that owns them);
/// performers read and write their own target's properties through ``Target``. Property names are
/// interned into ``PropertyID``s shared by all targets of the scene. Every change of a property's
/// value is recorded, in order, until ``drainChanges()`` hands the list out (the CLI writes it to the
/// timeline once per frame).
///
/// Thread rule: use a scene from its scheduler's thread only.
public final class Scene {
    private var propertyIDs: [String: PropertyID] = [:]
    @exclusivity(unchecked) private var propertyNames: [String] = []
    private var targetsByID: [TargetID: Target] = [:]
    /// The targets, in the order they were added.
    public private(set) var targets: [Target] = []
    let changeLog = ChangeLog()

    /// An empty scene.
    public init() {}

    /// A scene with the given targets, each with no properties yet.
    public convenience init(targets: [TargetID]) {
        self.init()
        for id in targets { addTarget(id) }
    }

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
        let target: Target
        if let existing = targetsByID[id] {
            target = existing
        } else {
            target = Target(id: id, index: targets.count, scene: self, changeLog: changeLog)
            targetsByID[id] = target
            targets.append(target)
        }
        for (name, value) in properties.sorted(by: { $0.key < $1.key }) {
            target.setInitialValue(value, for: propertyID(name))
        }
        return target
    }

    /// The target of that id, if the scene has one.
    public func target(_ id: TargetID) -> Target? { targetsByID[id] }

    /// The property changes recorded since the last call, in the order they first happened; a property
    /// that changed several times appears once, with its latest value.
    public func drainChanges() -> [PropertyChange] {
        var out: [PropertyChange] = []
        out.reserveCapacity(changeLog.entries.count)
        drainChanges { target, property, value in
            out.append(PropertyChange(target: target.id, property: property, value: value))
        }
        return out
    }

    /// Hands each property change recorded since the last call to `body`, in the order they first
    /// happened, without allocating: a property that changed several times is handed once, with its
    /// latest value. Use this on per-frame paths.
    public func drainChanges(_ body: (Target, PropertyID, PropertyValue) -> Void) {
        guard !changeLog.entries.isEmpty else { return }
        let entries = changeLog.entries
        changeLog.entries.removeAll(keepingCapacity: true)
        targets.withUnsafeBufferPointer { targets in
            for entry in entries {
                Unmanaged.passUnretained(targets[Int(entry.target)])._withUnsafeGuaranteedRef { target in
                    let property = PropertyID(rawValue: entry.property)
                    target.clearDirty(property)
                    if let value = target[property] { body(target, property, value) }
                }
            }
        }
    }
}

/// The changes recorded since the last drain, as (target index, property id) pairs; shared by a scene
/// and its targets (a separate object, so targets record changes without reaching their scene).
final class ChangeLog {
    @exclusivity(unchecked) var entries: ContiguousArray<(target: Int32, property: Int32)> = []
}

/// One property whose value changed: which target, which property, its latest value.
public struct PropertyChange: Hashable, Sendable {
    /// The target whose property changed.
    public let target: TargetID
    /// The property that changed.
    public let property: PropertyID
    /// Its latest value.
    public var value: PropertyValue
}

/// A named object in a ``Scene`` with animatable properties.
///
/// Thread rule: use a target from its scene's scheduler thread only.
public final class Target {
    /// The target's name.
    public let id: TargetID
    let index: Int
    /// The scene that owns this target.
    public unowned let scene: Scene
    private let changeLog: ChangeLog
    // Per-frame hot path: touched only on the scheduler's thread, never re-entrantly, so the dynamic
    // exclusivity checks (a third of the frame cost when measured) are switched off.
    @exclusivity(unchecked) private var values: ContiguousArray<PropertyValue?> = []
    @exclusivity(unchecked) private var dirty: ContiguousArray<Bool> = []

    init(id: TargetID, index: Int, scene: Scene, changeLog: ChangeLog) {
        self.id = id
        self.index = index
        self.scene = scene
        self.changeLog = changeLog
    }

    /// The value of a property, or `nil` if this target has never had that property.
    public subscript(property: PropertyID) -> PropertyValue? {
        let i = Int(property.rawValue)
        return i < values.count ? values[i] : nil
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
    public func setValue(_ value: PropertyValue, for property: PropertyID) {
        let i = Int(property.rawValue)
        if i >= values.count { grow(to: i + 1) }
        if values[i] == value { return }
        values[i] = value
        if !dirty[i] {
            dirty[i] = true
            changeLog.entries.append((Int32(index), property.rawValue))
        }
    }

    /// Sets a property's value by name; see ``setValue(_:for:)``.
    public func setValue(_ value: PropertyValue, forName name: String) {
        setValue(value, for: scene.propertyID(name))
    }

    /// The names and values of every property this target has, sorted by name.
    public var properties: [(name: String, value: PropertyValue)] {
        values.indices.compactMap { i in
            guard let value = values[i], let name = scene.propertyName(PropertyID(rawValue: Int32(i))) else {
                return nil
            }
            return (name, value)
        }.sorted { $0.name < $1.name }
    }

    func setInitialValue(_ value: PropertyValue, for property: PropertyID) {
        let i = Int(property.rawValue)
        if i >= values.count { grow(to: i + 1) }
        values[i] = value
    }

    func clearDirty(_ property: PropertyID) { dirty[Int(property.rawValue)] = false }

    private func grow(to count: Int) {
        values.append(contentsOf: repeatElement(nil, count: count - values.count))
        dirty.append(contentsOf: repeatElement(false, count: count - dirty.count))
    }
}
