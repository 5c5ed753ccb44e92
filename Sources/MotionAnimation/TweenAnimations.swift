/// The running `Tween`s of one performer, each a property moved from a value to a value over a duration
/// along a timing curve, after a delay: the frame arithmetic of TweenKit's `TweenPerformer` and of the
/// in-process Tween the benchmark compares it with, written once.
///
/// The tweens are values in one flat buffer (no array per tween; a curve is a pointer to one shared copy
/// of it), so a frame walks them in one pass with no retain, release or uniqueness check, and each
/// performer only says how to read and write a property (``advance(to:currentValue:write:)``). Each tween
/// is addressed by a `key` of the performer's choosing (a property slot or id), one tween per key.
///
/// The rules (the Material Motion runtime's Tween, as TweenKit performs it): the first frame a tween sees
/// fixes its start time; it writes nothing until its delay has passed; then, unless it was given a `from`,
/// it reads the property's value once and starts from it (from its `to` when the value has another number of
/// components, or none); each frame writes `from + (to - from) × curve(progress)` per component, exactly
/// `to` at progress 1, and the frame whose progress reaches 1 is its last.
///
/// Thread rule: use an instance from one thread at a time.
public final class TweenAnimations {
    /// One tween's record, 56 bytes: all of a scalar tween (the usual case; a frame reads one cache line or
    /// two per tween). A tween of 2 to 4 components is this record and a ``VectorParts`` right after it in
    /// the buffer (112 bytes).
    @usableFromInline
    struct Record {
        @usableFromInline var key: Int64
        /// The curve's address (`nil`, 0, for linear: otherwise a preset's process-wide copy,
        /// ``presetCurves``, or one of ``customCurves``, so a frame reads it with no lookup), with three flags
        /// in its low bits (a `CubicBezier` is 8-byte aligned, so they are 0 in the address): ``hasFromBit``,
        /// ``hasStartBit``, ``isVectorBit``.
        @usableFromInline var curveAndFlags: UInt
        @usableFromInline var duration: Double
        @usableFromInline var delay: Double
        @usableFromInline var start: Double
        /// The first component of the start value and of the end value.
        @usableFromInline var from: Double
        @usableFromInline var to: Double
    }

    /// The components past the first of a tween of 2 to 4 components: the unit after its ``Record``, the
    /// same size (the buffer holds 56-byte units; this one is reached by rebinding its unit).
    @usableFromInline
    struct VectorParts {
        /// How many components the tween has, 2...4.
        @usableFromInline var count: Int
        /// Components 1, 2 and 3 (0 past `count`).
        @usableFromInline var from: (Double, Double, Double)
        @usableFromInline var to: (Double, Double, Double)
    }

    /// `Record.curveAndFlags`: the tween has its start value (given, or read when its delay passed).
    @usableFromInline static let hasFromBit: UInt = 1
    /// `Record.curveAndFlags`: its first frame has fixed `start`.
    @usableFromInline static let hasStartBit: UInt = 2
    /// `Record.curveAndFlags`: a ``VectorParts`` follows the record.
    @usableFromInline static let isVectorBit: UInt = 4
    @usableFromInline static let flagBits: UInt = 7

    // The buffer, in 56-byte units: `records[0..<storedCount]` initialized, each tween one unit (a ``Record``)
    // or, with `isVectorBit`, two (its record, then its ``VectorParts``); room for `capacity` units; and the
    // custom curves. Each unit's memory is bound to the type it holds (``setRecord(_:_:)`` and
    // ``setParts(_:_:)`` bind it as they write), so a unit that held a record may hold parts later. Touched only by this instance's methods, one at a time
    // (``advance(to:currentValue:write:)`` refuses reentrant changes), so the dynamic exclusivity checks (one
    // cost 30 % of a frame's instructions) are switched off for these.
    @usableFromInline @exclusivity(unchecked) var records: UnsafeMutablePointer<Record>
    /// Units in use (a vector tween takes two).
    @usableFromInline @exclusivity(unchecked) var storedCount = 0
    /// Tweens (``count``).
    @usableFromInline @exclusivity(unchecked) var tweenCount = 0
    @exclusivity(unchecked) private var capacity = 0
    @usableFromInline @exclusivity(unchecked) var isAdvancing = false
    /// Curves that are neither linear nor a preset, one allocation each, owned here (freed in `deinit`).
    @exclusivity(unchecked) private var customCurves: [UnsafeMutablePointer<CubicBezier>] = []

    /// No tweens.
    public init() {
        precondition(MemoryLayout<Record>.stride == MemoryLayout<VectorParts>.stride, "a vector's parts take one record's room")
        precondition(MemoryLayout<CubicBezier>.alignment > Int(Self.flagBits), "a curve's address leaves its low bits for flags")
        records = unsafe Self.allocateUnits(0)
    }

    deinit {
        unsafe UnsafeMutableRawPointer(records).deallocate()
        for curve in unsafe customCurves { unsafe curve.deallocate() }
    }

    /// How many tweens run (including those still in their delay).
    public var count: Int { tweenCount }

    /// Whether no tween runs.
    public var isEmpty: Bool { tweenCount == 0 }

    /// The units a tween's record and its parts take (1 or 2).
    @inlinable @inline(__always)
    static func units(_ record: Record) -> Int { record.curveAndFlags & isVectorBit != 0 ? 2 : 1 }

    /// The tweens' keys, in the order they were added.
    public var keys: [Int64] {
        var keys: [Int64] = []
        keys.reserveCapacity(tweenCount)
        var i = 0
        while i < storedCount {
            unsafe keys.append(records[i].key)
            i += unsafe Self.units(records[i])
        }
        return keys
    }

    /// The number of components of the tween on `key`, or `nil` when none runs there.
    public func componentCount(key: Int64) -> Int? {
        var i = 0
        while i < storedCount {
            if unsafe records[i].key == key { return unsafe Self.units(records[i]) == 1 ? 1 : parts(i + 1).pointee.count }
            i += unsafe Self.units(records[i])
        }
        return nil
    }

    /// The ``VectorParts`` in unit `unit` (one after a vector tween's record, so bound to that type).
    @inlinable @inline(__always)
    func parts(_ unit: Int) -> UnsafeMutablePointer<VectorParts> {
        unsafe UnsafeMutableRawPointer(records + unit).assumingMemoryBound(to: VectorParts.self)
    }

    /// Writes a record into unit `unit` (< `capacity`), binding the unit to ``Record``.
    @inlinable @inline(__always)
    func setRecord(_ unit: Int, _ record: Record) {
        unsafe _ = UnsafeMutableRawPointer(records + unit).initializeMemory(as: Record.self, repeating: record, count: 1)
    }

    /// Writes a vector's parts into unit `unit` (< `capacity`), binding the unit to ``VectorParts``.
    @inlinable @inline(__always)
    func setParts(_ unit: Int, _ parts: VectorParts) {
        unsafe _ = UnsafeMutableRawPointer(records + unit).initializeMemory(as: VectorParts.self, repeating: parts, count: 1)
    }

    /// Moves the tween at unit `from` (its record and, when `units` is 2, its parts) to unit `to` (<= `from`).
    @inlinable @inline(__always)
    func moveTween(from: Int, to: Int, units: Int) {
        unsafe setRecord(to, records[from])
        if units == 2 { unsafe setParts(to + 1, parts(from + 1).pointee) }
    }

    /// A buffer of `count` units, unbound (each unit is bound as it is written).
    private static func allocateUnits(_ count: Int) -> UnsafeMutablePointer<Record> {
        unsafe UnsafeMutableRawPointer.allocate(byteCount: count * MemoryLayout<Record>.stride, alignment: MemoryLayout<Record>.alignment)
            .bindMemory(to: Record.self, capacity: count)
    }

    /// Starts a tween on `key`, replacing the one running on it (if any), after the others.
    /// - Parameters:
    ///   - key: What the tween writes, for the performer (handed back to `currentValue` and `write`).
    ///   - curve: The timing curve.
    ///   - from: The start value (as many components as `to`), or `nil` for the property's value when the
    ///     delay has passed.
    ///   - to: The end value, 1 to 4 components.
    ///   - duration: s, >= 0.
    ///   - delay: s, >= 0, before the tween starts.
    ///   - replacingExisting: Whether to look for a tween on `key` to replace (a scan of every tween); pass
    ///     `false` only when none runs there (a performer sharing one instance among many keeps count).
    /// The caller checks the plan (TweenKit's `Tween.validatedCurve()`); a `to` of another size, or a
    /// `from` of another size than `to`, is a programmer error and traps.
    public func add(
        key: Int64, curve: TimingCurve, from: [Double]?, to: [Double], duration: Double, delay: Double, replacingExisting: Bool = true
    ) {
        precondition(!isAdvancing, "a tween was added while its TweenAnimations advanced")
        precondition((1...Components.maximumCount).contains(to.count), "a tween's \"to\" has 1 to 4 components, not \(to.count)")
        precondition(from == nil || from?.count == to.count, "a tween's \"from\" has as many components as its \"to\"")
        if replacingExisting { remove(key: key) }
        let units = to.count == 1 ? 1 : 2
        if storedCount + units > capacity {
            // 1.5 times: a buffer grown by doubling is a third empty on average (10,000 tweens took 16,384
            // records' room). From exactly the first tween's room: TweenKit keeps one instance per performer,
            // most with one tween (a first capacity of 16 units cost its performers 800 bytes each).
            let grown = Swift.max(capacity + capacity / 2, storedCount + units)
            let old = unsafe records
            unsafe records = Self.allocateUnits(grown)
            var i = 0
            while i < storedCount {
                let units = unsafe Self.units(old[i])
                unsafe setRecord(i, old[i])
                if units == 2 { unsafe setParts(i + 1, UnsafeMutableRawPointer(old + i + 1).assumingMemoryBound(to: VectorParts.self).pointee) }
                i += units
            }
            unsafe UnsafeMutableRawPointer(old).deallocate()
            capacity = grown
        }
        let start = Components(from ?? to)
        let end = Components(to)
        var flags = from != nil ? Self.hasFromBit : 0
        if units == 2 { flags |= Self.isVectorBit }
        let curveAddress = unsafe UInt(bitPattern: curvePointer(curve))
        unsafe setRecord(
            storedCount,
            Record(key: key, curveAndFlags: curveAddress | flags, duration: duration, delay: delay, start: 0, from: start.c0, to: end.c0))
        if units == 2 {
            unsafe setParts(storedCount + 1, VectorParts(count: to.count, from: (start.c1, start.c2, start.c3), to: (end.c1, end.c2, end.c3)))
        }
        storedCount += units
        tweenCount += 1
    }

    /// Stops the tween on `key`, if one runs; the others keep their order.
    public func remove(key: Int64) {
        removeAll { $0 == key }
    }

    /// Stops every tween whose key satisfies `shouldRemove`; the others keep their order.
    public func removeAll(where shouldRemove: (Int64) -> Bool) {
        precondition(!isAdvancing, "a tween was removed while its TweenAnimations advanced")
        var kept = 0
        var i = 0
        var tweens = 0
        while i < storedCount {
            let units = unsafe Self.units(records[i])
            if unsafe !shouldRemove(records[i].key) {
                if kept != i { unsafe moveTween(from: i, to: kept, units: units) }
                kept += units
                tweens += 1
            }
            i += units
        }
        storedCount = kept
        tweenCount = tweens
    }

    /// Moves every tween to a frame's time: writes each one that is past its delay, and stops each one that
    /// has finished (after its last write). The tweens keep their order.
    /// - Parameters:
    ///   - time: The frame's time, seconds.
    ///   - currentValue: The property's value for a key, read once per tween (when its delay has passed and
    ///     it has no `from`), or `nil` when the property has none.
    ///   - write: Writes a tween's value for the frame to its key's property; returns `false` to stop the
    ///     tween there (the write failed).
    /// Neither closure may add or remove tweens of this instance (that traps).
    @inlinable @inline(__always)
    public func advance(
        to time: Double, currentValue: (_ key: Int64) -> [Double]?, write: (_ key: Int64, _ value: Components) -> Bool
    ) {
        advance(to: time, currentValue: currentValue, write: write, finished: { _ in })
    }

    /// As ``advance(to:currentValue:write:)``, and tells `finished` the key of each tween that stops, right
    /// after its last write (several performers sharing one instance count their tweens with it).
    /// - Parameter finished: Called once per stopped tween, in order; it may not add or remove tweens either.
    @inlinable @inline(__always)
    public func advance(
        to time: Double, currentValue: (_ key: Int64) -> [Double]?, write: (_ key: Int64, _ value: Components) -> Bool,
        finished: (_ key: Int64) -> Void
    ) {
        isAdvancing = true
        defer { isAdvancing = false }
        let count = storedCount
        let records = unsafe self.records  // no closure changes it (they may not add or remove tweens)
        // Unit indices stay below `count`, which fits an Int: the increments need no overflow check.
        var kept = 0
        var i = 0
        var stopped = 0
        while i < count {
            let record = unsafe records + i
            var flags = unsafe record.pointee.curveAndFlags
            if flags & Self.hasStartBit == 0 {
                unsafe record.pointee.start = time
                flags |= Self.hasStartBit
                unsafe record.pointee.curveAndFlags = flags
            }
            let elapsed = unsafe time - record.pointee.start - record.pointee.delay
            var isFinished = false
            if elapsed >= 0 {
                if flags & Self.hasFromBit == 0 {
                    unsafe readFrom(record, units: Self.units(record.pointee), currentValue)
                    flags |= Self.hasFromBit
                    unsafe record.pointee.curveAndFlags = flags
                }
                let duration = unsafe record.pointee.duration
                let progress = duration > 0 ? elapsed / duration : 1
                let fraction: Double
                if let curve = unsafe UnsafePointer<CubicBezier>(bitPattern: flags & ~Self.flagBits) {
                    fraction = unsafe curve.pointee.value(at: progress)
                } else {
                    fraction = progress > 0 ? (progress < 1 ? progress : 1) : 0  // TimingCurve.linear
                }
                let value: Components
                if _fastPath(flags & Self.isVectorBit == 0) {
                    value = unsafe Components(
                        count: 1, interpolate(from: record.pointee.from, to: record.pointee.to, fraction: fraction), 0, 0, 0)
                } else {
                    let parts = unsafe UnsafeMutableRawPointer(record + 1).assumingMemoryBound(to: VectorParts.self).pointee
                    value = unsafe Components.interpolating(
                        count: parts.count, from: (record.pointee.from, parts.from.0, parts.from.1, parts.from.2),
                        to: (record.pointee.to, parts.to.0, parts.to.1, parts.to.2), fraction: fraction)
                }
                isFinished = unsafe !write(record.pointee.key, value) || progress >= 1
            }
            // Read from the flags after the write, so that no register holds it across the closures' calls.
            let units = 1 &+ Int(truncatingIfNeeded: (flags & Self.isVectorBit) >> 2)
            if !isFinished {
                if kept != i { unsafe moveTween(from: i, to: kept, units: units) }
                kept &+= units
            } else {
                stopped &+= 1
                unsafe finished(record.pointee.key)
            }
            i &+= units
        }
        if stopped != 0 {
            storedCount = kept
            tweenCount &-= stopped
        }
    }

    /// Takes a tween's start value from its property (once, when its delay has passed and it was given no
    /// `from`): kept as it is (its `to`) when the property has no value or another number of components.
    @usableFromInline
    func readFrom(_ record: UnsafeMutablePointer<Record>, units: Int, _ currentValue: (_ key: Int64) -> [Double]?) {
        guard let current = unsafe currentValue(record.pointee.key) else { return }
        if units == 1 {
            if current.count == 1 { unsafe record.pointee.from = current[0] }
        } else {
            let parts = unsafe UnsafeMutableRawPointer(record + 1).assumingMemoryBound(to: VectorParts.self)  // bound: see `parts(_:)`
            guard unsafe current.count == parts.pointee.count else { return }
            let value = Components(current)
            unsafe record.pointee.from = value.c0
            unsafe parts.pointee.from = (value.c1, value.c2, value.c3)
        }
    }

    // MARK: Curves

    /// One copy of each preset (``CubicBezier/presets``) for the life of the process, which every tween on a
    /// preset points to. `nonisolated(unsafe)`: the array and the curves are immutable once made.
    nonisolated(unsafe) private static let presetCurves: [UnsafePointer<CubicBezier>] = unsafe CubicBezier.presets.map { preset in
        let copy = unsafe UnsafeMutablePointer<CubicBezier>.allocate(capacity: 1)
        unsafe copy.initialize(to: preset)
        return unsafe UnsafePointer(copy)
    }

    /// Where a tween on `curve` finds it: `nil` for linear, a preset's shared copy, or this instance's copy
    /// of another curve (made on its first use).
    private func curvePointer(_ curve: TimingCurve) -> UnsafePointer<CubicBezier>? {
        guard case .cubicBezier(let bezier) = curve else { return nil }
        if let preset = CubicBezier.presets.firstIndex(of: bezier) { return unsafe Self.presetCurves[preset] }
        if let custom = unsafe customCurves.first(where: { unsafe $0.pointee == bezier }) { return unsafe UnsafePointer(custom) }
        let copy = unsafe UnsafeMutablePointer<CubicBezier>.allocate(capacity: 1)
        unsafe copy.initialize(to: bezier)
        unsafe customCurves.append(copy)
        return unsafe UnsafePointer(copy)
    }
}

/// A tween's value: 1 to 4 components, inline (no allocation).
public struct Components: Sendable, Equatable {
    /// The most components a value holds.
    public static let maximumCount = 4
    /// How many of the four are the value's, 1...4.
    public let count: Int
    /// The components; those past ``count`` are 0.
    public let c0, c1, c2, c3: Double

    /// A value from 1 to 4 components (more are dropped; none gives the scalar 0).
    public init(_ components: [Double]) {
        count = Swift.max(1, Swift.min(components.count, 4))
        c0 = components.first ?? 0
        c1 = components.count > 1 ? components[1] : 0
        c2 = components.count > 2 ? components[2] : 0
        c3 = components.count > 3 ? components[3] : 0
    }

    @usableFromInline
    init(count: Int, _ c0: Double, _ c1: Double, _ c2: Double, _ c3: Double) {
        self.count = count
        self.c0 = c0
        self.c1 = c1
        self.c2 = c2
        self.c3 = c3
    }

    /// `from + (to - from) × fraction` per component, exactly `to` at fraction 1 (``interpolate(from:to:fraction:)``).
    @inlinable @inline(__always)
    static func interpolating(
        count: Int, from: (Double, Double, Double, Double), to: (Double, Double, Double, Double), fraction: Double
    ) -> Components {
        let c0 = interpolate(from: from.0, to: to.0, fraction: fraction)
        guard count > 1 else { return Components(count: 1, c0, 0, 0, 0) }
        return Components(
            count: count, c0, interpolate(from: from.1, to: to.1, fraction: fraction),
            count > 2 ? interpolate(from: from.2, to: to.2, fraction: fraction) : 0,
            count > 3 ? interpolate(from: from.3, to: to.3, fraction: fraction) : 0)
    }

    @usableFromInline var tuple: (Double, Double, Double, Double) { (c0, c1, c2, c3) }

    /// The component at `index` (0...3); 0 past ``count``.
    public subscript(index: Int) -> Double {
        switch index {
        case 0: c0
        case 1: c1
        case 2: c2
        case 3: c3
        default: 0
        }
    }

    /// The ``count`` components as an array.
    public var array: [Double] { (0..<count).map { self[$0] } }
}
