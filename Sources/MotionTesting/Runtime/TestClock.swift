import DeviceMotion
import MotionCore

/// The test clock is DeviceMotion's `SimulatedClock`: it moves only when the test says so (`advance(by:)`,
/// `advance(to:)`, as NIOEmbedded's clock does), wakes tasks sleeping on it in deadline order, and, with this
/// conformance, is a `FrameClock` too, so one clock paces a recording's replay (`RecordingSource`,
/// `TestMotionManager`) and a scheduler's frames (`SchedulerTestStore`).
extension SimulatedClock: FrameClock {}
