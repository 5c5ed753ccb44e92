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
/// Thread rule: use an instance from one thread at a time.
public final class TweenAnimations {
    /// One tween: 112 bytes, its components inline.
    @usableFromInline
    struct Record {
        @usableFromInline var key: Int64
        /// The curve, `nil` for linear: a preset's process-wide copy (``presetCurves``) or one of
        /// ``customCurves``, so a frame reads it with no lookup.
        @usableFromInline var curve: UnsafePointer<CubicBezier>?
        @usableFromInline var count: UInt8
        @usableFromInline var hasFrom: Bool
        /// Whether a frame has fixed its start; `false` again once it is removed (so that a pass finds both in one
        /// compare of a running tween).
        @usableFromInline var hasStart: Bool
        /// Removed by ``remove(_:)``, to be dropped by the next pass.
        @usableFromInline var isRemoved: Bool
        /// Its ``TweenHandle``'s raw value: ``locations`` at it is this record's index.
        @usableFromInline var handle: Int32
        @usableFromInline var duration: Double
        @usableFromInline var delay: Double
        @usableFromInline var start: Double
        @usableFromInline var from: (Double, Double, Double, Double)
        @usableFromInline var to: (Double, Double, Double, Double)
    }

    // The buffer: `records[0..<storedCount]` initialized (`removedCount` of them removed, not yet dropped), room
    // for `capacity`, and the custom curves; `locations[h]`, for each handle `h` given out and not yet free, the
    // index of its record (`records[locations[h]].handle == h`); `freeHandles` the handles whose records were
    // dropped, below `handleCount`. Touched only by this instance's methods, one at a time
    // (``advance(to:currentValue:write:)`` refuses reentrant changes), so the dynamic exclusivity checks (one
    // cost 30 % of a frame's instructions) are switched off for these.
    @usableFromInline @exclusivity(unchecked) var records: UnsafeMutablePointer<Record>
    @usableFromInline @exclusivity(unchecked) var storedCount = 0
    @exclusivity(unchecked) private var capacity = 0
    @usableFromInline @exclusivity(unchecked) var isAdvancing = false
    @usableFromInline @exclusivity(unchecked) var removedCount = 0
    @usableFromInline @exclusivity(unchecked) var locations: UnsafeMutablePointer<Int32>
    @exclusivity(unchecked) private var handleCount = 0
    @exclusivity(unchecked) private var handleCapacity = 0
    @exclusivity(unchecked) private var freeHandles: [Int32] = []
    /// How many records the passes over the buffer have visited since this instance was made: each
    /// ``advance(to:currentValue:write:)`` visits every record, a compaction (``remove(_:)`` when removed
    /// records outnumber running ones, ``removeAll(where:)``) every record. The measure of work that a test of
    /// removal's cost compares with the number of tweens (removing n tweens by handle visits at most 2n
    /// records beyond the frames' own passes).
    public internal(set) var recordsVisited: Int {
        get { visited }
        set { visited = newValue }
    }
    @usableFromInline @exclusivity(unchecked) var visited = 0
    /// Curves that are neither linear nor a preset, one allocation each, owned here (freed in `deinit`).
    @exclusivity(unchecked) private var customCurves: [UnsafeMutablePointer<CubicBezier>] = []

    /// No tweens.
    public init() {
        records = unsafe .allocate(capacity: 0)
        locations = unsafe .allocate(capacity: 0)
    }

    deinit {
        unsafe records.deallocate()
        unsafe locations.deallocate()
        for curve in unsafe customCurves { unsafe curve.deallocate() }
    }

    /// How many tweens run (including those still in their delay; not those removed).
    public var count: Int { storedCount - removedCount }

    /// Whether no tween runs.
    public var isEmpty: Bool { count == 0 }

    /// Whether every removed tween's record has been dropped (none waits for the next pass), so that no record
    /// holds a key or handle that its owner has let go of.
    public var hasNoRemovedRecords: Bool { removedCount == 0 }

    /// The tweens' keys, in the order they were added.
    public var keys: [Int64] { (0..<storedCount).compactMap { unsafe records[$0].isRemoved ? nil : records[$0].key } }

    /// The number of components of the tween on `key`, or `nil` when none runs there (a scan of every tween).
    public func componentCount(key: Int64) -> Int? {
        for i in 0..<storedCount where unsafe records[i].key == key && !records[i].isRemoved {
            return unsafe Int(records[i].count)
        }
        return nil
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
        if storedCount == capacity {
            capacity = Swift.max(1, capacity * 2)
            unsafe records = Self.moved(records, count: storedCount, capacity: capacity)
        }
        let handle = unsafe freeHandles.popLast() ?? newHandle()
        let record = Record(
            key: key, curve: unsafe curvePointer(curve), count: UInt8(to.count), hasFrom: from != nil, hasStart: false, isRemoved: false,
            handle: handle, duration: duration, delay: delay, start: 0, from: Components(from ?? to).tuple, to: Components(to).tuple)
        unsafe (records + storedCount).initialize(to: record)
        unsafe locations[Int(handle)] = Int32(truncatingIfNeeded: storedCount)
        storedCount += 1
        return TweenHandle(rawValue: handle)
    }

    /// Moves the record at `index` down to `destination` (a pass closing the gap of records it dropped), where its
    /// handle finds it; out of the frame loop, which does this only after a tween stopped.
    @usableFromInline @inline(never)
    func moveRecord(from index: Int, to destination: Int) {
        unsafe records[destination] = records[index]
        unsafe locations[Int(records[destination].handle)] = Int32(truncatingIfNeeded: destination)
    }

    /// A dropped record's handle is free (out of the frame loop, which it would otherwise slow by keeping the
    /// free list's array code inline: 1 instruction a tween a frame in process, callgrind).
    @usableFromInline @inline(never)
    func freeHandle(_ handle: Int32) {
        freeHandles.append(handle)
    }

    /// `buffer`'s first `count` elements moved into a new allocation of `capacity`; `buffer` is deallocated.
    private static func moved<T>(_ buffer: UnsafeMutablePointer<T>, count: Int, capacity: Int) -> UnsafeMutablePointer<T> {
        let new = unsafe UnsafeMutablePointer<T>.allocate(capacity: capacity)
        unsafe new.moveInitialize(from: buffer, count: count)
        unsafe buffer.deallocate()
        return unsafe new
    }

    /// A handle never given out, its location made room for.
    private func newHandle() -> Int32 {
        precondition(handleCount < Int(Int32.max), "a TweenAnimations holds at most 2^31 - 1 tweens")
        if handleCount == handleCapacity {
            handleCapacity = Swift.max(16, handleCapacity * 2)
            unsafe locations = Self.moved(locations, count: handleCount, capacity: handleCapacity)
        }
        handleCount += 1
        return Int32(handleCount - 1)
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
        let index = unsafe Int(locations[Int(handle.rawValue)])
        precondition(
            unsafe index < storedCount && records[index].handle == handle.rawValue && !records[index].isRemoved,
            "tween handle \(handle.rawValue) names no running tween")
        unsafe records[index].isRemoved = true
        unsafe records[index].hasStart = false
        removedCount += 1
        // Amortized: a compaction visits storedCount records and drops at least half of them.
        if removedCount * 2 > storedCount { removeAll { _ in false } }
    }

    /// Stops the tween on `key`, if one runs (a scan of every tween); the others keep their order.
    public func remove(key: Int64) {
        removeAll { $0 == key }
    }

    /// Stops every tween whose key satisfies `shouldRemove`, and drops the records of removed ones (a scan of every
    /// tween); the others keep their order.
    public func removeAll(where shouldRemove: (Int64) -> Bool) {
        precondition(!isAdvancing, "a tween was removed while its TweenAnimations advanced")
        var kept = 0
        visited += storedCount
        for i in 0..<storedCount {
            let record = unsafe records + i
            guard unsafe !record.pointee.isRemoved && !shouldRemove(record.pointee.key) else {
                unsafe freeHandles.append(record.pointee.handle)
                continue
            }
            if kept != i {
                unsafe records[kept] = record.pointee
                unsafe locations[Int(record.pointee.handle)] = Int32(truncatingIfNeeded: kept)
            }
            kept += 1
        }
        storedCount = kept
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
        visited &+= count
        // The buffer does not move during a pass (adding and removing are refused): read its address once, not
        // after every write (which the compiler cannot prove leaves this instance alone).
        let records = unsafe self.records
        var kept = 0
        for i in 0..<count {
            let record = unsafe records + i
            // One compare of the state per running tween; a tween not included keeps its state (not started).
            let isIncludedNow = unsafe isIncluded(record.pointee.key)
            if unsafe !record.pointee.hasStart {
                if unsafe record.pointee.isRemoved {
                    unsafe freeHandle(record.pointee.handle)
                    continue
                }
                if isIncludedNow {
                    unsafe record.pointee.start = time
                    unsafe record.pointee.hasStart = true
                }
            }
            var isFinished = false
            if isIncludedNow {
                let elapsed = unsafe time - record.pointee.start - record.pointee.delay
                if elapsed >= 0 {
                    if unsafe !record.pointee.hasFrom {
                        let key = unsafe record.pointee.key
                        if let current = currentValue(key), unsafe current.count == Int(record.pointee.count) {
                            unsafe record.pointee.from = Components(current).tuple
                        }
                        unsafe record.pointee.hasFrom = true
                    }
                    let duration = unsafe record.pointee.duration
                    let progress = duration > 0 ? elapsed / duration : 1
                    let fraction: Double
                    if let curve = unsafe record.pointee.curve {
                        fraction = unsafe curve.pointee.value(at: progress)
                    } else {
                        fraction = progress > 0 ? (progress < 1 ? progress : 1) : 0  // TimingCurve.linear
                    }
                    let value = unsafe Components.interpolating(
                        count: Int(record.pointee.count), from: record.pointee.from, to: record.pointee.to, fraction: fraction)
                    let isLast = progress >= 1
                    isFinished = unsafe !write(record.pointee.key, value) || isLast
                }
            }
            if !isFinished {
                if kept != i { moveRecord(from: i, to: kept) }
                kept &+= 1
            } else {
                unsafe freeHandle(record.pointee.handle)
                unsafe finished(record.pointee.key)
            }
        }
        storedCount = kept
        removedCount = 0
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
