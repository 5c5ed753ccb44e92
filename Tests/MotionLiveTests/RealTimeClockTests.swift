import Dispatch
import MotionLive
import Synchronization
import Testing

/// A clock that moves only when the clock under test waits (to the deadline) or the test says so.
private final class ManualTime: Sendable {
    let nanoseconds = Atomic<UInt64>(1_000_000_000)
    var now: RealTimeClock.Now { { self.nanoseconds.load(ordering: .relaxed) } }
    var wait: RealTimeClock.Wait {
        { deadline, _ in
            if deadline > self.nanoseconds.load(ordering: .relaxed) { self.nanoseconds.store(deadline, ordering: .relaxed) }
        }
    }
    func advance(seconds: Double) { nanoseconds.add(UInt64(seconds * 1e9), ordering: .relaxed) }
}

@Suite struct RealTimeClockTests {
    @Test func aFrameOnTimeWaitsForTheNextDueTime() {
        let time = ManualTime()
        let clock = RealTimeClock(frameRate: 50, now: time.now, wait: time.wait)
        clock.start()
        #expect(clock.nextFrame(after: 0) == 1)
        #expect(time.nanoseconds.load(ordering: .relaxed) == 1_020_000_000)
        #expect(clock.nextFrame(after: 1) == 2)
        #expect(time.nanoseconds.load(ordering: .relaxed) == 1_040_000_000)
        #expect(clock.droppedFrames == 0)
    }

    @Test func anOverrunFrameIsNotMadeUpAndTheSkippedFramesCount() {
        let time = ManualTime()
        let clock = RealTimeClock(frameRate: 50, now: time.now, wait: time.wait)
        clock.start()
        // Frame 0 takes 3.5 frame periods: frames 1, 2 and 3 are due already; the next one run is 3 (the real
        // time), with 1 and 2 dropped.
        time.advance(seconds: 0.07)
        #expect(clock.nextFrame(after: 0) == 3)
        #expect(clock.droppedFrames == 2)
        // Back on time: 4 waits for its due time, start + 80 ms.
        #expect(clock.nextFrame(after: 3) == 4)
        #expect(time.nanoseconds.load(ordering: .relaxed) == 1_080_000_000)
        #expect(clock.droppedFrames == 2)
    }

    @Test func aStopRequestEndsTheWaitAtTheFrameBoundary() {
        let clock = RealTimeClock(frameRate: 0.001)  // the next frame is due in 1000 s
        clock.start()
        let stopper = DispatchQueue(label: "stopper")
        stopper.async { clock.requestStop() }
        #expect(clock.nextFrame(after: 0) == nil)
        #expect(clock.isStopRequested)
    }

    // Issue 14: a reload prepared while the frame loop waits is applied then, not at the next frame's start.
    @Test func workAskedForWhileTheClockWaitsRunsAtOnceAndTheWaitGoesOnToTheSameDueTime() {
        let time = ManualTime()
        final class Box: @unchecked Sendable { var clock: RealTimeClock?; var waits = 0 }
        let box = Box()
        let clock = RealTimeClock(
            frameRate: 50, now: time.now,
            wait: { deadline, _ in
                box.waits += 1
                // The first wait is ended by a request from another thread, 5 ms in; the second reaches its deadline.
                if box.waits == 1 {
                    time.advance(seconds: 0.005)
                    box.clock?.requestWorkBetweenFrames()
                } else if deadline > time.nanoseconds.load(ordering: .relaxed) {
                    time.nanoseconds.store(deadline, ordering: .relaxed)
                }
            })
        box.clock = clock
        clock.start()
        var ranAt: [UInt64] = []
        #expect(clock.nextFrame(after: 0) { ranAt.append(time.nanoseconds.load(ordering: .relaxed)) } == 1)
        #expect(ranAt == [1_005_000_000])
        #expect(time.nanoseconds.load(ordering: .relaxed) == 1_020_000_000)
        #expect(clock.droppedFrames == 0)
        // Nothing asked for: the work does not run.
        #expect(clock.nextFrame(after: 1) { ranAt.append(0) } == 2)
        #expect(ranAt.count == 1)
    }

    @Test func workAskedForWhileAFrameRanRunsOnceBeforeTheNextFrame() {
        let time = ManualTime()
        let clock = RealTimeClock(frameRate: 50, now: time.now, wait: time.wait)
        clock.start()
        clock.requestWorkBetweenFrames()
        clock.requestWorkBetweenFrames()
        time.advance(seconds: 0.03)  // the frame overran: frame 1 is due already
        var runs = 0
        #expect(clock.nextFrame(after: 0) { runs += 1 } == 1)
        #expect(runs == 1)
    }
}
