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
    /// One tween: 112 bytes, its components inline.
    @usableFromInline
    struct Record {
        @usableFromInline var key: Int64
        /// The curve, `nil` for linear: a preset's process-wide copy (``presetCurves``) or one of
        /// ``customCurves``, so a frame reads it with no lookup.
        @usableFromInline var curve: UnsafePointer<CubicBezier>?
        @usableFromInline var count: UInt8
        @usableFromInline var hasFrom: Bool
        @usableFromInline var hasStart: Bool
        @usableFromInline var duration: Double
        @usableFromInline var delay: Double
        @usableFromInline var start: Double
        @usableFromInline var from: (Double, Double, Double, Double)
        @usableFromInline var to: (Double, Double, Double, Double)
    }

    // The buffer: `records[0..<count]` initialized, room for `capacity`, and the custom curves. Touched only by
    // this instance's methods, one at a time (``advance(to:currentValue:write:)`` refuses reentrant changes),
    // so the dynamic exclusivity checks (one cost 30 % of a frame's instructions) are switched off for these.
    @usableFromInline @exclusivity(unchecked) var records: UnsafeMutablePointer<Record>
    @usableFromInline @exclusivity(unchecked) var storedCount = 0
    @exclusivity(unchecked) private var capacity = 0
    @usableFromInline @exclusivity(unchecked) var isAdvancing = false
    /// Curves that are neither linear nor a preset, one allocation each, owned here (freed in `deinit`).
    @exclusivity(unchecked) private var customCurves: [UnsafeMutablePointer<CubicBezier>] = []

    /// No tweens.
    public init() { records = unsafe .allocate(capacity: 0) }

    deinit {
        unsafe records.deallocate()
        for curve in unsafe customCurves { unsafe curve.deallocate() }
    }

    /// How many tweens run (including those still in their delay).
    public var count: Int { storedCount }

    /// Whether no tween runs.
    public var isEmpty: Bool { storedCount == 0 }

    /// The tweens' keys, in the order they were added.
    public var keys: [Int64] { (0..<storedCount).map { unsafe records[$0].key } }

    /// The number of components of the tween on `key`, or `nil` when none runs there.
    public func componentCount(key: Int64) -> Int? {
        for i in 0..<storedCount where unsafe records[i].key == key { return unsafe Int(records[i].count) }
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
        if storedCount == capacity {
            let grown = Swift.max(1, capacity * 2)
            let new = unsafe UnsafeMutablePointer<Record>.allocate(capacity: grown)
            unsafe new.moveInitialize(from: records, count: storedCount)
            unsafe records.deallocate()
            unsafe records = new
            capacity = grown
        }
        let record = Record(
            key: key, curve: unsafe curvePointer(curve), count: UInt8(to.count), hasFrom: from != nil, hasStart: false,
            duration: duration, delay: delay, start: 0, from: Components(from ?? to).tuple, to: Components(to).tuple)
        unsafe (records + storedCount).initialize(to: record)
        storedCount += 1
    }

    /// Stops the tween on `key`, if one runs; the others keep their order.
    public func remove(key: Int64) {
        removeAll { $0 == key }
    }

    /// Stops every tween whose key satisfies `shouldRemove`; the others keep their order.
    public func removeAll(where shouldRemove: (Int64) -> Bool) {
        precondition(!isAdvancing, "a tween was removed while its TweenAnimations advanced")
        var kept = 0
        for i in 0..<storedCount where unsafe !shouldRemove(records[i].key) {
            unsafe records[kept] = records[i]
            kept += 1
        }
        storedCount = kept
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
        var kept = 0
        for i in 0..<count {
            let record = unsafe records + i
            if unsafe !record.pointee.hasStart {
                unsafe record.pointee.start = time
                unsafe record.pointee.hasStart = true
            }
            let elapsed = unsafe time - record.pointee.start - record.pointee.delay
            var isFinished = false
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
                isFinished = unsafe !write(record.pointee.key, value) || progress >= 1
            }
            if !isFinished {
                if kept != i { unsafe records[kept] = record.pointee }
                kept += 1
            } else {
                unsafe finished(record.pointee.key)
            }
        }
        storedCount = kept
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
