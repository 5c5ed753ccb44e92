import DeviceMotion
import Testing

/// Core Motion's roll, pitch and yaw, written once on MotionValues' `Quaternion` (the SDK's
/// `DeviceMotionSample.Quaternion` is the same type), and `Attitude`'s angles are its.
@Suite struct QuaternionAnglesTests {
    @Test(arguments: [(0.3, (1.0, 0.0, 0.0)), (-1.2, (0.0, 1.0, 0.0)), (2.5, (0.0, 0.0, 1.0))])
    func aRotationAboutOneDeviceAxisIsThatAngle(angle: Double, axis: (Double, Double, Double)) {
        let q = Quaternion(angle: angle, axis: (axis.0, axis.1, axis.2))
        let (pitch, roll, yaw) = (q.pitch, q.roll, q.yaw)
        #expect(abs(pitch - (axis.0 == 1 ? angle : 0)) < 1e-12)
        #expect(abs(roll - (axis.1 == 1 ? angle : 0)) < 1e-12)
        #expect(abs(yaw - (axis.2 == 1 ? angle : 0)) < 1e-12)
        let attitude = Attitude(quaternion: q)
        #expect(attitude.pitch == pitch && attitude.roll == roll && attitude.yaw == yaw)
    }

    @Test func theAnglesComposeAsCoreMotionsDo() {
        // q = q_z(yaw) · q_x(pitch) · q_y(roll)
        let q =
            Quaternion(angle: 0.7, axis: (0, 0, 1)) * Quaternion(angle: -0.4, axis: (1, 0, 0))
            * Quaternion(angle: 1.1, axis: (0, 1, 0))
        #expect(abs(q.yaw - 0.7) < 1e-12 && abs(q.pitch + 0.4) < 1e-12 && abs(q.roll - 1.1) < 1e-12)
    }
}
