import DeviceMotion
import Foundation
import Testing

@Suite("Replaying recordings at their own timestamps")
struct ReplayTests {
    static func gyro(_ times: [Double]) -> [GyroData] {
        times.map { GyroData(rotationRate: RotationRate(x: $0, y: 0, z: 0), timestamp: $0) }
    }

    @Test func steppingTheSimulatedClockYieldsTheSamplesThatBecameDue() {
        var player = RecordingPlayer(samples: Self.gyro([10.0, 10.01, 10.02, 10.05, 10.1]))
        #expect(player.startTime == 10)
        #expect(player.advance(by: 0).map(\.timestamp) == [10.0])
        #expect(player.advance(by: 0.015).map(\.timestamp) == [10.01])
        #expect(player.advance(to: 0.05).map(\.timestamp) == [10.02, 10.05])
        #expect(player.advance(to: 0.01).isEmpty)  // never backwards
        #expect(!player.isFinished)
        #expect(player.advance(by: 1).map(\.timestamp) == [10.1])
        #expect(player.isFinished)
        #expect(abs(player.duration - 0.1) < 1e-12)
    }

    @Test func steppingAWholeRealRecordingDeliversEveryRowOnce() throws {
        let motion = try TestData.recording("iphone-devicemotion/rest_tremor.csv").recordedDeviceMotion
        var player = RecordingPlayer(samples: motion)
        var delivered: [DeviceMotion] = []
        while !player.isFinished { delivered += player.advance(by: 1.0 / 60) }
        #expect(delivered == motion)
        // The last frame is the one that reached the last sample's time.
        #expect(player.elapsed >= player.duration - 1e-12)
        #expect(player.elapsed - 1.0 / 60 < player.duration)
    }

    @Test func playingOnASimulatedClockWaitsForTheClock() async {
        let clock = SimulatedClock()
        let player = RecordingPlayer(samples: Self.gyro([5.0, 5.5, 7.0]))
        var iterator = player.play(on: clock).makeAsyncIterator()
        #expect(await iterator.next()?.timestamp == 5.0)  // due at once
        clock.advance(bySeconds: 0.5)
        #expect(await iterator.next()?.timestamp == 5.5)
        #expect(clock.elapsedSeconds == 0.5)
        clock.advance(bySeconds: 2)
        #expect(await iterator.next()?.timestamp == 7.0)
        #expect(await iterator.next() == nil)
    }

    @Test func playbackStartedLateSkipsThePast() async {
        let clock = SimulatedClock()
        let origin = clock.now
        clock.advance(bySeconds: 1)
        let player = RecordingPlayer(samples: Self.gyro([0, 0.5, 1.0, 1.5]))
        var iterator = player.play(on: clock, from: origin).makeAsyncIterator()
        #expect(await iterator.next()?.timestamp == 1.0)
        clock.advance(bySeconds: 0.5)
        #expect(await iterator.next()?.timestamp == 1.5)
    }

    @Test func simulatedClockWakesSleepersInDeadlineOrderAndHonoursCancellation() async throws {
        let clock = SimulatedClock()
        let task = Task { try await clock.sleep(until: clock.now.advanced(by: .seconds(10))) }
        while clock.sleeperCount == 0 { await Task.yield() }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.sleeperCount == 0)
        let short = Task { try await clock.sleep(until: .init(offset: .seconds(1))) }
        while clock.sleeperCount == 0 { await Task.yield() }
        clock.advance(by: .milliseconds(999))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .milliseconds(1))
        try await short.value
        #expect(clock.now == .init(offset: .seconds(1)))
    }
}
