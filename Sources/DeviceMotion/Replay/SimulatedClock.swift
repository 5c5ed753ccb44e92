import Synchronization

/// A clock that moves only when its owner says so (`advance(by:)`, `advance(to:)`), for replaying
/// recordings on simulated time and for deterministic tests.
///
/// Its instants are durations since the clock's zero. Tasks sleeping on it wake, in deadline order, when an
/// advance reaches their deadline; a cancelled sleep throws `CancellationError`.
///
/// Thread rule: all members are safe to call from any thread or task.
public final class SimulatedClock: Clock, Sendable {
    /// A point on a simulated clock: the time since its zero.
    public struct Instant: InstantProtocol, Hashable, Sendable {
        /// The time since the clock's zero.
        public var offset: Duration

        /// Creates an instant at `offset` after the clock's zero.
        public init(offset: Duration) {
            self.offset = offset
        }

        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }

        /// The duration from this instant to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }

        /// Orders instants by offset.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Int: Sleeper] = [:]
        var cancelled: Set<Int> = []
    }

    private let state = Mutex(State())

    /// Creates a clock at its zero.
    public init() {}

    /// The current instant.
    public var now: Instant { state.withLock { $0.now } }

    /// The current time since the clock's zero, seconds.
    public var elapsedSeconds: Double {
        let c = now.offset.components
        return Double(c.seconds) + Double(c.attoseconds) * 1e-18
    }

    /// The smallest step: zero (any duration can be simulated).
    public var minimumResolution: Duration { .zero }

    /// The number of tasks currently sleeping on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Suspends until the clock reaches `deadline` (at once if it already has).
    /// - Parameters:
    ///   - deadline: The instant to wake at.
    ///   - tolerance: Ignored.
    /// - Throws: `CancellationError` when the task is cancelled first.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Bool, CancellationError> = state.withLock { state in
                    if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(true) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return .success(false)
                }
                switch outcome {
                case .failure(let error): continuation.resume(throwing: error)
                case .success(true): continuation.resume()
                case .success(false): break
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelled.insert(id)
                    return Sleeper?.none
                }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward by `duration` and wakes the sleepers whose deadline it reaches.
    /// - Parameter duration: A non-negative duration; a negative one is treated as zero.
    public func advance(by duration: Duration) {
        advance(to: now.advanced(by: max(duration, .zero)))
    }

    /// Moves the clock forward by `seconds` seconds.
    /// - Parameter seconds: A non-negative number of seconds.
    public func advance(bySeconds seconds: Double) {
        advance(by: .nanoseconds(Int64((max(seconds, 0) * 1e9).rounded())))
    }

    /// Moves the clock to `instant` (never backwards) and wakes the sleepers whose deadline it reaches, in
    /// deadline order.
    /// - Parameter instant: The new time.
    public func advance(to instant: Instant) {
        let due = state.withLock { state -> [Sleeper] in
            if instant > state.now { state.now = instant }
            let now = state.now
            let ids = state.sleepers.filter { $0.value.deadline <= now }.map(\.key)
            return ids.compactMap { state.sleepers.removeValue(forKey: $0) }.sorted { $0.deadline < $1.deadline }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
