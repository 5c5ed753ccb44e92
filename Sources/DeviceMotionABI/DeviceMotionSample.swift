import CMotionABI
import DeviceMotion

extension motion_device_motion_sample {
    /// Converts a `DeviceMotion` value into the C ABI's sample (`motion.device-motion/1`), field by field
    /// in the units `motion_plugin.h` gives: timestamp in s, attitude as the unit quaternion (x, y, z, w)
    /// rotating device axes into the reference frame, gravity and user acceleration in g, rotation rate in
    /// rad/s, magnetic field in µT with its `CMMagneticFieldCalibrationAccuracy` raw value, the
    /// `CMAttitudeReferenceFrame` raw value, and heading in degrees (−1 when unknown).
    ///
    /// The one conversion shared by `motion-host` (which replays a scene's recording) and the tests.
    /// `struct_size` is set to this build's `sizeof(motion_device_motion_sample)` and `reserved` to 0.
    /// - Parameters:
    ///   - motion: The sample, in Core Motion's units and signs.
    ///   - referenceFrame: The frame `motion.attitude` is expressed in.
    ///   - timestampOrigin: Seconds subtracted from `motion.timestamp` (e.g. the recording's first
    ///     timestamp, so the replay starts at 0 s).
    public init(_ motion: DeviceMotion, referenceFrame: ReferenceFrame, timestampOrigin: Double = 0) {
        self.init()
        struct_size = UInt32(MemoryLayout<motion_device_motion_sample>.size)
        reserved = 0
        timestamp = motion.timestamp - timestampOrigin
        let q = motion.attitude.quaternion
        (attitude_x, attitude_y, attitude_z, attitude_w) = (q.x, q.y, q.z, q.w)
        (gravity_x, gravity_y, gravity_z) = (motion.gravity.x, motion.gravity.y, motion.gravity.z)
        let user = motion.userAcceleration
        (user_acceleration_x, user_acceleration_y, user_acceleration_z) = (user.x, user.y, user.z)
        let rate = motion.rotationRate
        (rotation_rate_x, rotation_rate_y, rotation_rate_z) = (rate.x, rate.y, rate.z)
        let field = motion.magneticField.field
        (magnetic_field_x, magnetic_field_y, magnetic_field_z) = (field.x, field.y, field.z)
        magnetic_field_accuracy = motion.magneticField.accuracy.rawValue
        reference_frame = Int32(referenceFrame.rawValue)
        heading = motion.heading
    }
}
