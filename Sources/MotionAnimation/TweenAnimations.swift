/// The running `Tween`s of one performer, each a property moved from a value to a value over a duration
/// along a timing curve, after a delay: the frame arithmetic of TweenKit's `TweenPerformer` and of the
/// in-process Tween the benchmark compares it with, written once.
///
/// The tweens are values in one flat buffer (no array per tween; a curve is a pointer to one shared copy
/// of it), so a frame walks them in one pass with no retain, release or uniqueness check, and each
/// performer only says how to read and write a property (``advance(to:currentValue:write:)``). Each tween
/// is addressed by a `key` of the performer's choosing (a property slot or id), one tween per key, and by the
/// ``TweenHandle`` that ``add(key:curve:from:to:duration:delay:replacingExisting:)`` returns, which stops it in
/// constant time (``remove(_:)``: many performers sharing one instance stop their own tweens without a scan).
///
/// Removal by handle is deferred: the tween is marked and writes nothing more, and its record is dropped by the
/// next pass over the buffer (the next ``advance(to:currentValue:write:)``, or a compaction once removed records
/// outnumber running ones), so that tearing down n tweens, in any order, visits O(n) records
/// (``recordsVisited`` counts them). A handle is given out again only after its record has been dropped.
///
/// The rules (the Material Motion runtime's Tween, as TweenKit performs it): the first frame a tween sees
/// fixes its start time; it writes nothing until its delay has passed; then, unless it was given a `from`,
/// it reads the property's value once and starts from it (from its `to` when the value has another number of
/// components, or none); each frame writes `from + (to - from) × curve(progress)` per component, exactly
/// `to` at progress 1, and the frame whose progress reaches 1 is its last.
///
/// Memory: 56 bytes per scalar tween (112 for a vector) in the buffer, and 8 bytes for its handle (4 in a side
/// array parallel to the buffer's units, 4 in ``locations``), each grown by half.
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
        /// The time its first frame fixed (with ``hasStartBit``); before that 0, or NaN once the tween is removed
        /// by ``remove(_:)`` (which also clears ``hasStartBit``, so that a pass finds both not-started and removed
        /// records in one compare of a running tween's flags).
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
    /// `handles` at a vector's parts unit (no record's handle there).
    @usableFromInline static let noHandle: Int32 = -1

    // The buffer, in 56-byte units: `records[0..<storedCount]` initialized, each tween one unit (a ``Record``)
    // or, with `isVectorBit`, two (its record, then its ``VectorParts``); room for `capacity` units; and the
    // custom curves. Each unit's memory is bound to the type it holds (``setRecord(_:_:)`` and
    // ``setParts(_:_:)`` bind it as they write), so a unit that held a record may hold parts later.
    // `handles[u]`, parallel to the units, is the handle of the record in unit `u` (`noHandle` at a parts unit);
    // `locations[h]`, for each handle `h` given out and not yet free, the unit of its record
    // (`handles[locations[h]] == h`); `freeHandles` the handles whose records were dropped, below `handleCount`.
    // Touched only by this instance's methods, one at a time (``advance(to:currentValue:write:)`` refuses
    // reentrant changes), so the dynamic exclusivity checks (one cost 30 % of a frame's instructions) are
    // switched off for these.
    @usableFromInline @exclusivity(unchecked) var records: UnsafeMutablePointer<Record>
    @usableFromInline @exclusivity(unchecked) var handles: UnsafeMutablePointer<Int32>
    /// Units in use (a vector tween takes two), removed tweens' included.
    @usableFromInline @exclusivity(unchecked) var storedCount = 0
    /// Running tweens (``count``): not those removed.
    @usableFromInline @exclusivity(unchecked) var tweenCount = 0
    /// Removed tweens whose records wait for the next pass.
    @usableFromInline @exclusivity(unchecked) var removedCount = 0
    @exclusivity(unchecked) private var capacity = 0
    @usableFromInline @exclusivity(unchecked) var isAdvancing = false
    @usableFromInline @exclusivity(unchecked) var locations: UnsafeMutablePointer<Int32>
    @exclusivity(unchecked) private var handleCount = 0
    @exclusivity(unchecked) private var handleCapacity = 0
    @exclusivity(unchecked) private var freeHandles: [Int32] = []
    @usableFromInline @exclusivity(unchecked) var visited = 0
    /// Curves that are neither linear nor a preset, one allocation each, owned here (freed in `deinit`).
    @exclusivity(unchecked) private var customCurves: [UnsafeMutablePointer<CubicBezier>] = []
    /// The curve ``curvePointer(_:)`` found last, where it is (a preset's copy or one of ``customCurves``, both
    /// kept as long as this instance): plans in a row mostly share a curve, found again with one comparison.
    @exclusivity(unchecked) private var lastCurve: (bezier: CubicBezier, pointer: UnsafePointer<CubicBezier>)?

    /// No tweens.
    public init() {
        precondition(MemoryLayout<Record>.stride == MemoryLayout<VectorParts>.stride, "a vector's parts take one record's room")
        precondition(MemoryLayout<CubicBezier>.alignment > Int(Self.flagBits), "a curve's address leaves its low bits for flags")
        records = unsafe Self.allocateUnits(0)
        handles = unsafe .allocate(capacity: 0)
        locations = unsafe .allocate(capacity: 0)
    }

    deinit {
        unsafe UnsafeMutableRawPointer(records).deallocate()
        unsafe handles.deallocate()
        unsafe locations.deallocate()
        for curve in unsafe customCurves { unsafe curve.deallocate() }
    }

    /// How many tweens run (including those still in their delay; not those removed).
    public var count: Int { tweenCount }

    /// Whether no tween runs.
    public var isEmpty: Bool { tweenCount == 0 }

    /// Whether every removed tween's record has been dropped (none waits for the next pass), so that no record
    /// holds a key or handle that its owner has let go of.
    public var hasNoRemovedRecords: Bool { removedCount == 0 }

    /// How many records the passes over the buffer have visited since this instance was made: each
    /// ``advance(to:currentValue:write:)`` visits every record, a compaction (``remove(_:)`` when removed
    /// records outnumber running ones, ``removeAll(where:)``) every record; a record is a tween, scalar or
    /// vector, removed or not. The measure of work that a test of removal's cost compares with the number of
    /// tweens (removing n tweens by handle visits at most 2n records beyond the frames' own passes).
    public var recordsVisited: Int { visited }

    /// The units a tween's record and its parts take (1 or 2).
    @inlinable @inline(__always)
    static func units(_ record: Record) -> Int { record.curveAndFlags & isVectorBit != 0 ? 2 : 1 }

    /// Whether the record was removed by ``remove(_:)`` (and waits to be dropped).
    @inlinable @inline(__always)
    static func isRemoved(_ record: Record) -> Bool { record.curveAndFlags & hasStartBit == 0 && record.start.isNaN }

    /// The tweens' keys, in the order they were added.
    public var keys: [Int64] {
        var keys: [Int64] = []
        keys.reserveCapacity(tweenCount)
        var i = 0
        while i < storedCount {
            if unsafe !Self.isRemoved(records[i]) { unsafe keys.append(records[i].key) }
            i += unsafe Self.units(records[i])
        }
        return keys
    }

    /// The number of components of the tween on `key`, or `nil` when none runs there (a scan of every tween).
    public func componentCount(key: Int64) -> Int? {
        var i = 0
        while i < storedCount {
            if unsafe records[i].key == key && !Self.isRemoved(records[i]) {
                return unsafe Self.units(records[i]) == 1 ? 1 : parts(i + 1).pointee.count
            }
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

    /// Moves the tween at unit `from` (its record and, when `units` is 2, its parts) to unit `to` (< `from`), where
    /// its handle finds it; out of the frame loop, which does this only after a tween stopped or was removed.
    @usableFromInline @inline(never)
    func moveTween(from: Int, to: Int, units: Int) {
        unsafe setRecord(to, records[from])
        let handle = unsafe handles[from]
        unsafe handles[to] = handle
        unsafe locations[Int(handle)] = Int32(truncatingIfNeeded: to)
        if units == 2 {
            unsafe setParts(to + 1, parts(from + 1).pointee)
            unsafe handles[to + 1] = Self.noHandle
        }
    }

    /// The handle of the record in unit `unit`, whose record is dropped, is free (out of the frame loop, which it
    /// would otherwise slow by keeping the free list's array code inline: 1 instruction a tween a frame in
    /// process, callgrind).
    @usableFromInline @inline(never)
    func freeHandle(ofUnit unit: Int) {
        unsafe freeHandles.append(handles[unit])
    }

    /// A buffer of `count` units, unbound (each unit is bound as it is written).
    private static func allocateUnits(_ count: Int) -> UnsafeMutablePointer<Record> {
        unsafe UnsafeMutableRawPointer.allocate(byteCount: count * MemoryLayout<Record>.stride, alignment: MemoryLayout<Record>.alignment)
            .bindMemory(to: Record.self, capacity: count)
    }

    /// `buffer`'s first `count` elements moved into a new allocation of `capacity`; `buffer` is deallocated.
    private static func moved(_ buffer: UnsafeMutablePointer<Int32>, count: Int, capacity: Int) -> UnsafeMutablePointer<Int32> {
        let new = unsafe UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
        unsafe new.moveInitialize(from: buffer, count: count)
        unsafe buffer.deallocate()
        return unsafe new
    }

    /// 1.5 times `capacity`, and at least `needed`: a buffer grown by doubling is a third empty on average (10,000
    /// tweens took 16,384 records' room). From exactly the first tween's room: TweenKit's performers may each keep
    /// an instance, most with one tween (a first capacity of 16 units cost them 800 bytes each).
    private static func grown(_ capacity: Int, toHold needed: Int) -> Int { Swift.max(capacity + capacity / 2, needed) }

    /// A handle never given out, its location made room for.
    private func newHandle() -> Int32 {
        precondition(handleCount < Int(Int32.max), "a TweenAnimations holds at most 2^31 - 1 tweens")
        if handleCount == handleCapacity {
            handleCapacity = Self.grown(handleCapacity, toHold: handleCount + 1)
            unsafe locations = Self.moved(locations, count: handleCount, capacity: handleCapacity)
        }
        handleCount += 1
        return Int32(handleCount - 1)
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
    ///     `false` when none runs there, or when the caller stops the one there by its handle (``remove(_:)``):
    ///     a performer sharing one instance among many keeps its own tweens' handles.
    /// - Returns: The new tween's handle, valid until the tween stops (it finishes, its write fails, or it is
    ///   removed or replaced).
    /// The caller checks the plan (TweenKit's `Tween.validatedCurve()`); a `to` of another size, or a
    /// `from` of another size than `to`, is a programmer error and traps.
    @discardableResult
    public func add(
        key: Int64, curve: TimingCurve, from: [Double]?, to: [Double], duration: Double, delay: Double, replacingExisting: Bool = true
    ) -> TweenHandle {
        precondition(!isAdvancing, "a tween was added while its TweenAnimations advanced")
        precondition((1...Components.maximumCount).contains(to.count), "a tween's \"to\" has 1 to 4 components, not \(to.count)")
        precondition(from == nil || from?.count == to.count, "a tween's \"from\" has as many components as its \"to\"")
        if replacingExisting { remove(key: key) }
        let units = to.count == 1 ? 1 : 2
        if storedCount + units > capacity {
            let grown = Self.grown(capacity, toHold: storedCount + units)
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
            unsafe handles = Self.moved(handles, count: storedCount, capacity: grown)
            capacity = grown
        }
        let handle = unsafe freeHandles.popLast() ?? newHandle()
        let start = Components(from ?? to)
        let end = Components(to)
        var flags = from != nil ? Self.hasFromBit : 0
        if units == 2 { flags |= Self.isVectorBit }
        let curveAddress = unsafe UInt(bitPattern: curvePointer(curve))
        unsafe setRecord(
            storedCount,
            Record(key: key, curveAndFlags: curveAddress | flags, duration: duration, delay: delay, start: 0, from: start.c0, to: end.c0))
        unsafe handles[storedCount] = handle
        if units == 2 {
            unsafe setParts(storedCount + 1, VectorParts(count: to.count, from: (start.c1, start.c2, start.c3), to: (end.c1, end.c2, end.c3)))
            unsafe handles[storedCount + 1] = Self.noHandle
        }
        unsafe locations[Int(handle)] = Int32(truncatingIfNeeded: storedCount)
        storedCount += units
        tweenCount += 1
        return TweenHandle(rawValue: handle)
    }

    /// Stops the tween of `handle`, in constant time (amortized): it writes nothing more and is not reported to
    /// `finished`; its record is dropped by the next pass (``advance(to:currentValue:write:)``), or at once with
    /// every other removed record once they outnumber the running ones. The others keep their order.
    /// - Parameter handle: A handle from ``add(key:curve:from:to:duration:delay:replacingExisting:)`` whose
    ///   tween has not stopped. A stale handle (its tween stopped, and it may have been given out again) is a
    ///   programmer error: it traps when it names no record, and would stop another tween otherwise.
    public func remove(_ handle: TweenHandle) {
        precondition(!isAdvancing, "a tween was removed while its TweenAnimations advanced")
        precondition(handle.rawValue >= 0 && Int(handle.rawValue) < handleCount, "tween handle \(handle.rawValue) was never given out")
        let unit = unsafe Int(locations[Int(handle.rawValue)])
        precondition(
            unsafe unit < storedCount && handles[unit] == handle.rawValue && !Self.isRemoved(records[unit]),
            "tween handle \(handle.rawValue) names no running tween")
        unsafe records[unit].curveAndFlags &= ~Self.hasStartBit
        unsafe records[unit].start = .nan
        tweenCount -= 1
        removedCount += 1
        // Amortized: a compaction visits every record and drops more than half of them.
        if removedCount > tweenCount { removeAll { _ in false } }
    }

    /// Stops the tween on `key`, if one runs (a scan of every tween); the others keep their order.
    public func remove(key: Int64) {
        removeAll { $0 == key }
    }

    /// Stops every tween whose key satisfies `shouldRemove`, and drops the records of removed ones (a scan of every
    /// tween); the others keep their order.
    public func removeAll(where shouldRemove: (Int64) -> Bool) {
        precondition(!isAdvancing, "a tween was removed while its TweenAnimations advanced")
        visited += tweenCount + removedCount
        var kept = 0
        var i = 0
        var tweens = 0
        while i < storedCount {
            let units = unsafe Self.units(records[i])
            if unsafe Self.isRemoved(records[i]) || shouldRemove(records[i].key) {
                unsafe freeHandle(ofUnit: i)
            } else {
                if kept != i { unsafe moveTween(from: i, to: kept, units: units) }
                kept += units
                tweens += 1
            }
            i += units
        }
        storedCount = kept
        tweenCount = tweens
        removedCount = 0
    }

    /// Moves every tween to a frame's time: writes each one that is past its delay, and stops each one that
    /// has finished (after its last write). The tweens keep their order; removed tweens' records are dropped.
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
        advance(to: time, where: { _ in true }, currentValue: currentValue, write: write, finished: { _ in })
    }

    /// As ``advance(to:currentValue:write:)``, and tells `finished` the key of each tween that stops, right
    /// after its last write (several performers sharing one instance count their tweens with it).
    /// - Parameter finished: Called once per stopped tween, in order; it may not add or remove tweens either.
    @inlinable @inline(__always)
    public func advance(
        to time: Double, currentValue: (_ key: Int64) -> [Double]?, write: (_ key: Int64, _ value: Components) -> Bool,
        finished: (_ key: Int64) -> Void
    ) {
        advance(to: time, where: { _ in true }, currentValue: currentValue, write: write, finished: finished)
    }

    /// As ``advance(to:currentValue:write:finished:)``, for the tweens whose key satisfies `isIncluded` only: the
    /// others are left as they are (not started, not written), for a frame of some of the performers sharing
    /// this instance. Removed tweens' records are dropped whatever their key.
    /// - Parameter isIncluded: Whether the tween on a key moves in this frame; it may not add or remove tweens.
    @inlinable @inline(__always)
    public func advance(
        to time: Double, where isIncluded: (_ key: Int64) -> Bool, currentValue: (_ key: Int64) -> [Double]?,
        write: (_ key: Int64, _ value: Components) -> Bool, finished: (_ key: Int64) -> Void
    ) {
        isAdvancing = true
        defer { isAdvancing = false }
        let count = storedCount
        visited &+= tweenCount &+ removedCount
        let records = unsafe self.records  // no closure changes it (they may not add or remove tweens)
        // Unit indices stay below `count`, which fits an Int: the increments need no overflow check.
        var kept = 0
        var i = 0
        var stopped = 0
        while i < count {
            let record = unsafe records + i
            var flags = unsafe record.pointee.curveAndFlags
            // One compare of the flags per running tween; a tween not included keeps its state (not started).
            let isIncludedNow = unsafe isIncluded(record.pointee.key)
            if flags & Self.hasStartBit == 0 {
                if unsafe record.pointee.start.isNaN {  // removed (``isRemoved(_:)``): dropped
                    unsafe freeHandle(ofUnit: i)
                    i &+= 1 &+ Int(truncatingIfNeeded: (flags & Self.isVectorBit) >> 2)
                    continue
                }
                if isIncludedNow {
                    unsafe record.pointee.start = time
                    flags |= Self.hasStartBit
                    unsafe record.pointee.curveAndFlags = flags
                }
            }
            var isFinished = false
            if isIncludedNow {
                let elapsed = unsafe time - record.pointee.start - record.pointee.delay
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
            }
            // Read from the flags after the write, so that no register holds it across the closures' calls.
            let units = 1 &+ Int(truncatingIfNeeded: (flags & Self.isVectorBit) >> 2)
            if !isFinished {
                if kept != i { unsafe moveTween(from: i, to: kept, units: units) }
                kept &+= units
            } else {
                stopped &+= 1
                unsafe freeHandle(ofUnit: i)
                unsafe finished(record.pointee.key)
            }
            i &+= units
        }
        // A frame where no tween stopped and none was removed stores no counts.
        if kept != count {
            storedCount = kept
            tweenCount &-= stopped
            removedCount = 0
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
        if let last = unsafe lastCurve, last.bezier == bezier { return unsafe last.pointer }
        let pointer = unsafe findCurve(bezier)
        unsafe lastCurve = (bezier, pointer)
        return unsafe pointer
    }

    private func findCurve(_ bezier: CubicBezier) -> UnsafePointer<CubicBezier> {
        if let preset = CubicBezier.presets.firstIndex(of: bezier) { return unsafe Self.presetCurves[preset] }
        if let custom = unsafe customCurves.first(where: { unsafe $0.pointee == bezier }) { return unsafe UnsafePointer(custom) }
        let copy = unsafe UnsafeMutablePointer<CubicBezier>.allocate(capacity: 1)
        unsafe copy.initialize(to: bezier)
        unsafe customCurves.append(copy)
        return unsafe UnsafePointer(copy)
    }
}

/// A running tween of a ``TweenAnimations``: what stops it in constant time (``TweenAnimations/remove(_:)``).
/// Valid from ``TweenAnimations/add(key:curve:from:to:duration:delay:replacingExisting:)`` until the tween stops
/// (it finishes, which `finished` reports, its write fails, or it is removed or replaced); the same raw value
/// may name a later tween after that.
public struct TweenHandle: Hashable, Sendable {
    /// The handle's number, from 0.
    public let rawValue: Int32

    /// A handle from its number (as kept by a caller that stores handles compactly).
    public init(rawValue: Int32) { self.rawValue = rawValue }
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
