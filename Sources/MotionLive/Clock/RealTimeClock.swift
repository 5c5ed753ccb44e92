import Dispatch
import Synchronization

/// Paces a frame loop by the monotonic clock: frame *i* is due at start + *i* / frameRate.
///
/// A frame that overruns is not made up: when the loop asks for the frame after *i* and the due time of
/// *i* + 1 has already passed, it gets the latest frame whose due time has passed (the real time), and the
/// frames in between count as dropped. A frame's time therefore stays `frame / frameRate` seconds.
///
/// Thread rule: ``start()``, ``nextFrame(after:)`` and ``droppedFrames`` belong to the frame loop's
/// thread; ``requestStop()`` and ``isStopRequested`` may be called from any thread.
public final class RealTimeClock: Sendable {
    /// Reads a monotonic clock, nanoseconds.
    public typealias Now = @Sendable () -> UInt64
    /// Waits until a monotonic deadline (nanoseconds) or until woken; returns early when woken.
    public typealias Wait = @Sendable (_ deadline: UInt64, _ wake: DispatchSemaphore) -> Void

    /// Frames per second.
    public let frameRate: Double
    private let now: Now
    private let wait: Wait
    private let wake = DispatchSemaphore(value: 0)
    private let stopRequested = Atomic<Bool>(false)
    private let workRequested = Atomic<Bool>(false)
    private let state = Mutex((start: UInt64(0), dropped: 0))

    /// A clock for a frame rate.
    /// - Parameters:
    ///   - frameRate: Frames per second (> 0).
    ///   - now: The monotonic clock, nanoseconds; by default `DispatchTime.now().uptimeNanoseconds`
    ///     (`CLOCK_MONOTONIC` on Linux).
    ///   - wait: How to wait for a deadline; by default a semaphore wait with that deadline, so a stop
    ///     request ends it at once. Tests pass a wait that moves their own clock.
    public init(frameRate: Double, now: @escaping Now = RealTimeClock.monotonicNanoseconds, wait: Wait? = nil) {
        precondition(frameRate > 0, "RealTimeClock: frameRate must be > 0")
        self.frameRate = frameRate
        self.now = now
        self.wait = wait ?? { deadline, wake in _ = wake.wait(timeout: DispatchTime(uptimeNanoseconds: deadline)) }
    }

    /// `DispatchTime.now().uptimeNanoseconds`: the monotonic clock, nanoseconds.
    public static let monotonicNanoseconds: Now = { DispatchTime.now().uptimeNanoseconds }

    /// Makes now the due time of frame 0.
    public func start() { state.withLock { $0.start = now() } }

    /// How many frames were skipped because an earlier frame overran.
    public var droppedFrames: Int { state.withLock { $0.dropped } }

    /// Seconds since ``start()``.
    public var elapsed: Double { Double(now() &- state.withLock { $0.start }) / 1e9 }

    /// The monotonic due time of a frame, nanoseconds.
    /// - Parameter frame: The frame's index.
    public func dueTime(ofFrame frame: Int) -> UInt64 {
        state.withLock { $0.start } &+ UInt64((Double(frame) * 1e9 / frameRate).rounded())
    }

    /// Waits until the frame after `frame` is due and returns it, or returns the latest frame already due
    /// when the loop is late (counting the skipped ones in ``droppedFrames``).
    /// - Parameter frame: The frame that just ran.
    /// - Returns: The next frame's index, or `nil` once ``requestStop()`` was called.
    public func nextFrame(after frame: Int) -> Int? { nextFrame(after: frame, betweenFrames: {}) }

    /// ``nextFrame(after:)``, doing work between the frames when asked to (``requestWorkBetweenFrames()``): while it
    /// waits, each request ends the wait, `betweenFrames` runs on this thread, and the wait goes on to the same due
    /// time (so the work runs as soon as it is asked for, not at the next frame's start). A request made before the
    /// wait, or while the frame after is due already, runs it once before returning.
    /// - Parameters:
    ///   - frame: The frame that just ran.
    ///   - betweenFrames: The work; it may take longer than the frame period (the frames it overran are dropped).
    /// - Returns: The next frame's index, or `nil` once ``requestStop()`` was called.
    public func nextFrame(after frame: Int, betweenFrames: () -> Void) -> Int? {
        let next = frame + 1
        while true {
            if stopRequested.load(ordering: .acquiring) { return nil }
            if workRequested.exchange(false, ordering: .acquiringAndReleasing) {
                betweenFrames()
                continue
            }
            let due = dueTime(ofFrame: next)
            let current = now()
            if current >= due {
                let start = state.withLock { $0.start }
                let latest = max(next, Int((Double(current &- start) * frameRate / 1e9).rounded(.down)))
                if latest > next { state.withLock { $0.dropped += latest - next } }
                return latest
            }
            wait(due, wake)
        }
    }

    /// Asks the loop to run its between-frames work (``nextFrame(after:betweenFrames:)``) now, or, when it is not
    /// waiting, before it next returns a frame. Safe from any thread; requests before the work runs count once.
    public func requestWorkBetweenFrames() {
        workRequested.store(true, ordering: .releasing)
        wake.signal()
    }

    /// Asks the loop to stop at its next frame boundary; wakes a ``nextFrame(after:)`` that is waiting.
    /// Safe from any thread (a signal handler's thread too).
    public func requestStop() {
        stopRequested.store(true, ordering: .releasing)
        wake.signal()
    }

    /// Whether ``requestStop()`` was called.
    public var isStopRequested: Bool { stopRequested.load(ordering: .acquiring) }
}
