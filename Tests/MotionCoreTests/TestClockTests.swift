import DeviceMotion
import MotionCore
import MotionTesting
import Testing

/// One clock that moves only when told: DeviceMotion's `SimulatedClock`, a `FrameClock` through MotionTesting.
@Suite struct TestClockTests {
    @Test func theSimulatedClockIsAFrameClockThatMovesOnlyWhenAdvanced() async throws {
        let clock = SimulatedClock()
        let frameClock: any FrameClock = clock
        #expect(frameClock.elapsedSeconds == 0)
        try await Task.sleep(for: .milliseconds(20))  // real time passes; the clock does not
        #expect(frameClock.elapsedSeconds == 0)
        clock.advance(by: .milliseconds(250))
        #expect(frameClock.elapsedSeconds == 0.25)
        clock.advance(to: .init(offset: .milliseconds(100)))  // never backwards
        #expect(frameClock.elapsedSeconds == 0.25)
    }

    @Test func aTaskSleepingOnTheClockWakesWhenAnAdvanceReachesItsDeadline() async throws {
        let clock = SimulatedClock()
        let sleeper = Task { try await clock.sleep(until: .init(offset: .seconds(1))) }
        while clock.sleeperCount == 0 { await Task.yield() }
        clock.advance(by: .milliseconds(999))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .milliseconds(1))
        try await sleeper.value
        #expect(clock.sleeperCount == 0)
    }
}
