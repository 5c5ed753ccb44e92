/// One running `Tween`: a property moved from a value to a value over a duration along a timing curve,
/// after a delay. The frame arithmetic of TweenKit's `TweenPerformer` and of the in-process Tween the
/// benchmark compares it with, written once; each performer only reads and writes the property its own way.
///
/// Thread rule: a value type; use one instance from one thread at a time.
public struct TweenAnimation: Sendable {
    /// The timing curve.
    public let curve: TimingCurve
    /// The end value.
    public let to: [Double]
    /// s, >= 0, after the delay.
    public let duration: Double
    /// s, >= 0, before the tween starts.
    public let delay: Double
    /// The start value: as given, or the property's value when the tween started (after its delay), or
    /// `to` when that value had another number of components; `nil` until then. (Settable, like
    /// ``values``, only so that ``advance(to:currentValue:)`` can be inlined into the performer's frame.)
    public var from: [Double]?
    /// The value for the last frame `advance(to:currentValue:)` moved it to (`to` before the first).
    public var values: [Double]
    @usableFromInline var start: Double?

    /// A tween that has not started.
    /// - Parameters:
    ///   - curve: The timing curve.
    ///   - from: The start value (as many components as `to`), or `nil` for the property's value when the
    ///     tween starts.
    ///   - to: The end value.
    ///   - duration: s, >= 0.
    ///   - delay: s, >= 0.
    public init(curve: TimingCurve, from: [Double]?, to: [Double], duration: Double, delay: Double) {
        self.curve = curve
        self.from = from
        self.to = to
        self.duration = duration
        self.delay = delay
        values = to
    }

    /// What a frame did to the tween.
    public enum Step: Sendable, Equatable {
        /// Still in its delay: nothing to write.
        case waiting
        /// Running: write ``values``.
        case running
        /// Done: write ``values`` (which equal `to`) one last time.
        case finished
    }

    /// Moves the tween to a frame's time. The first call fixes the start time; the start value is read
    /// with `currentValue` once, when the delay has passed, unless `from` was given.
    /// - Parameters:
    ///   - time: The frame's time, seconds.
    ///   - currentValue: The property's value now, or `nil` when it has none.
    /// - Returns: Whether to write ``values``, and whether the tween has finished.
    @inlinable
    public mutating func advance(to time: Double, currentValue: () -> [Double]?) -> Step {
        let start = self.start ?? time
        self.start = start
        let elapsed = time - start - delay
        guard elapsed >= 0 else { return .waiting }
        if from == nil {
            let current = currentValue()
            from = current?.count == to.count ? current : to
        }
        let progress = duration > 0 ? elapsed / duration : 1
        let fraction = curve.value(at: progress)
        let from = self.from ?? to
        for component in values.indices {
            values[component] = interpolate(from: from[component], to: to[component], fraction: fraction)
        }
        return progress >= 1 ? .finished : .running
    }
}
