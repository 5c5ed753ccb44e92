import DeviceMotion
import Foundation
import MotionTesting
import Testing

@Suite("MotionManager: failing() records a test issue naming the endpoint")
struct FailingMotionManagerTests {
    /// Whether `issue` is the one `failing()` records for `endpoint`.
    static func isFailure(_ issue: Issue, naming endpoint: String) -> Bool {
        issue.comments.contains { $0.rawValue.hasPrefix("MotionManager.failing(): \(endpoint) was called") }
            && issue.comments.contains { $0.rawValue.contains("To fix, give the endpoint an implementation") }
    }

    @Test func anEndpointCalledWithTryQuestionMarkStillFailsTheTest() {
        let manager = MotionManager.failing()
        withKnownIssue {
            _ = try? manager.create("tilt")  // swallowed by try?, yet recorded
        } matching: {
            Self.isFailure($0, naming: "create")
        }
        withKnownIssue {
            _ = try? manager.availableReferenceFrames("tilt")
        } matching: {
            Self.isFailure($0, naming: "availableReferenceFrames")
        }
    }

    @Test func aStreamEndpointFailsTheTestWhenItIsStartedAndFinishesWithTheError() async {
        let manager = MotionManager.failing()
        await withKnownIssue {
            var thrown: MotionManagerError?
            do {
                for try await _ in manager.startGyroUpdates("tilt") {}
            } catch {
                thrown = error as? MotionManagerError
            }
            #expect(thrown?.code == .unimplemented && thrown?.endpoint == "startGyroUpdates")
        } matching: {
            Self.isFailure($0, naming: "startGyroUpdates")
        }
    }

    @Test func endpointsReplacedOnAFailingManagerDoNotFail() throws {
        var manager = MotionManager.failing()
        manager.create = { _ in }
        try manager.create("tilt")  // no issue: this endpoint was given an implementation
    }

    @Test func unimplementedStillOnlyThrows() {
        #expect(throws: MotionManagerError.self) { try MotionManager.unimplemented.create(1) }
    }
}

@Suite("MotionManager: reading a whole recording through the client")
struct AllDeviceMotionTests {
    @Test func allDeviceMotionOfARecordingSourceIsTheRecordingsDeviceMotion() async throws {
        let xio = try TestData.recording("xio-imu/sensor_data.csv")
        let clock = SimulatedClock()
        let manager = MotionManager.live(source: RecordingSource(recording: xio, pacing: .simulated(clock)))
        let span = try #require(xio.timeRange).upperBound - xio.timeRange!.lowerBound
        let samples = try await manager.allDeviceMotion(
            id: "all", referenceFrame: .xMagneticNorthZVertical, clock: clock,
            until: SimulatedClock.Instant(offset: .seconds(span + 1)))
        let expected = try xio.deviceMotion(referenceFrame: .xMagneticNorthZVertical)
        #expect(samples.count == expected.count && samples.count > 1000)
        #expect(samples == expected)
        #expect(throws: MotionManagerError.self) { try manager.isActive("all", .deviceMotion) }  // destroyed at the end
    }

    @Test func aFrameTheRecordingCannotGiveIsExplainedByTheRecording() throws {
        let logger = try TestData.recording("iphone4s-coremotion-logger")
        let problem = try #require(logger.deviceMotionUnavailability(referenceFrame: .xArbitraryZVertical))
        #expect(problem.code == .attitudeUnavailable)
        #expect(problem.message.contains("`motion-host device-motion` without --reference-frame prints it"))
        let xio = try TestData.recording("xio-imu/sensor_data.csv")
        #expect(xio.deviceMotionUnavailability(referenceFrame: .xMagneticNorthZVertical)?.message == nil)
        #expect(xio.deviceMotionUnavailability(referenceFrame: .xTrueNorthZVertical)?.code == .referenceFrameUnavailable)
    }

    @Test func allDeviceMotionOfAFailingManagerFailsAtCreate() async {
        await withKnownIssue {
            await #expect(throws: MotionManagerError.self) {
                _ = try await MotionManager.failing().allDeviceMotion(
                    id: 1, referenceFrame: .xArbitraryZVertical, clock: SimulatedClock(), until: .init(offset: .zero))
            }
        } matching: {
            FailingMotionManagerTests.isFailure($0, naming: "create")
        }
    }
}
