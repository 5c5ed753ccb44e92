/// Replays timestamped samples at their own timestamps, either stepwise on a simulated clock that the caller
/// advances (`advance(by:)`, `advance(to:)`) or as an asynchronous sequence paced by any `Clock` (real time
/// with `ContinuousClock`, simulated time with `SimulatedClock`).
///
/// Player time 0 is `startTime` (by default the first sample's timestamp); a sample is due when
/// `timestamp − startTime` ≤ the player's elapsed time. Samples keep their original timestamps.
///
/// Thread rule: a value type; use one instance from one task at a time.
public struct RecordingPlayer<Sample: TimestampedSample>: Sendable {
    /// The samples, in time order.
    public let samples: [Sample]
    /// The recording time that player time 0 stands for, seconds.
    public let startTime: Double
    /// The simulated time since the start, seconds.
    public private(set) var elapsed: Double = 0
    private var nextIndex = 0

    /// Creates a player.
    /// - Parameters:
    ///   - samples: Samples in time order.
    ///   - startTime: The recording time of player time 0; the first sample's timestamp when `nil`.
    public init(samples: [Sample], startTime: Double? = nil) {
        self.samples = samples
        self.startTime = startTime ?? samples.first?.timestamp ?? 0
    }

    /// Whether every sample has been delivered.
    public var isFinished: Bool { nextIndex >= samples.count }

    /// The player time of the last sample, seconds (0 when empty).
    public var duration: Double { max(0, (samples.last?.timestamp ?? startTime) - startTime) }

    /// Moves simulated time forward and returns the samples that became due, in order.
    /// - Parameter seconds: How far to move, seconds (negative counts as zero).
    /// - Returns: The samples with `timestamp − startTime` in `(previous elapsed, new elapsed]` (the first
    ///   call also includes a sample at exactly 0).
    public mutating func advance(by seconds: Double) -> ArraySlice<Sample> {
        advance(to: elapsed + max(0, seconds))
    }

    /// Moves simulated time to `time` (never backwards) and returns the samples that became due, in order.
    /// - Parameter time: The new player time, seconds since `startTime`.
    /// - Returns: The samples now due that were not returned before.
    public mutating func advance(to time: Double) -> ArraySlice<Sample> {
        elapsed = max(elapsed, time)
        let first = nextIndex
        while nextIndex < samples.count && samples[nextIndex].timestamp - startTime <= elapsed + 1e-12 {
            nextIndex += 1
        }
        return samples[first..<nextIndex]
    }

    /// The samples as an asynchronous sequence, each delivered when `clock` reaches its time.
    ///
    /// Samples whose time had already passed when `play` was called (when `origin` is in the past) are
    /// skipped, as a live sensor does not deliver the past; a sample that falls due while the consumer is busy
    /// is delivered late rather than dropped. The sequence finishes after the last sample; cancelling the
    /// iterating task stops playback.
    /// - Parameters:
    ///   - clock: `ContinuousClock()` for real time, a `SimulatedClock` for simulated time.
    ///   - origin: The instant that player time 0 maps to; `clock.now` when `nil`.
    /// - Returns: The samples, paced by the clock.
    public func play<C: Clock>(on clock: C, from origin: C.Instant? = nil) -> AsyncStream<Sample>
    where C.Duration == Duration {
        let now = clock.now
        let origin = origin ?? now
        return play(on: clock, from: origin, skippingBefore: origin.duration(to: now))
    }

    /// `play(on:from:)` with the skipped past given: samples with a player time before `skipped` are not
    /// delivered.
    func play<C: Clock>(on clock: C, from origin: C.Instant, skippingBefore skipped: Duration) -> AsyncStream<Sample>
    where C.Duration == Duration {
        let samples = samples
        let startTime = startTime
        return AsyncStream { continuation in
            let task = Task {
                for sample in samples {
                    let offset = Duration.nanoseconds(Int64(((sample.timestamp - startTime) * 1e9).rounded()))
                    if offset < skipped { continue }
                    do {
                        try await clock.sleep(until: origin.advanced(by: offset), tolerance: nil)
                    } catch {
                        break
                    }
                    continuation.yield(sample)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// Keeps samples at least an update interval apart, as Core Motion delivers at the interval asked for.
///
/// A sample is kept when it reaches the next due time; due times advance by the interval from the first
/// kept sample (and restart from a sample when it lags by more than an interval), so a 107 Hz source asked
/// for 0.01 s delivers about 100 Hz, not every other sample.
struct SampleDecimator {
    let interval: Double
    private var due = -Double.infinity

    init(interval: Double) {
        self.interval = interval
    }

    mutating func keeps(_ timestamp: Double) -> Bool {
        guard interval > 0 else { return true }
        guard timestamp >= due - 1e-9 else { return false }
        due = due + interval > timestamp ? due + interval : timestamp + interval
        return true
    }

    static func decimate<S: TimestampedSample>(_ samples: [S], interval: Double) -> [S] {
        var decimator = SampleDecimator(interval: interval)
        return samples.filter { decimator.keeps($0.timestamp) }
    }
}
