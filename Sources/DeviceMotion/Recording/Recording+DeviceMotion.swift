import FoundationEssentials

extension Recording {
    /// The reference frames `deviceMotion(referenceFrame:)` can produce for this recording.
    ///
    /// - Recorded attitudes: only the frame they were recorded in.
    /// - Accelerometer + gyroscope: `xArbitraryZVertical`; with a magnetometer also
    ///   `xArbitraryCorrectedZVertical` and `xMagneticNorthZVertical`.
    /// - Never `xTrueNorthZVertical` (no location on Linux); none for rotation rate + user acceleration only.
    public var availableReferenceFrames: Set<ReferenceFrame> {
        if let recordedReferenceFrame, !recordedDeviceMotion.isEmpty { return [recordedReferenceFrame] }
        guard !accelerometerData.isEmpty, !gyroData.isEmpty else { return [] }
        if magnetometerData.isEmpty { return [.xArbitraryZVertical] }
        return [.xArbitraryZVertical, .xArbitraryCorrectedZVertical, .xMagneticNorthZVertical]
    }

    /// What the recording holds and what can be computed from it, in a sentence or two (for people).
    public var contentsDescription: String {
        var held: [String] = []
        if !recordedDeviceMotion.isEmpty { held.append("\(recordedDeviceMotion.count) complete device-motion samples") }
        if !accelerometerData.isEmpty { held.append("\(accelerometerData.count) accelerometer samples") }
        if !gyroData.isEmpty { held.append("\(gyroData.count) gyroscope samples") }
        if !magnetometerData.isEmpty { held.append("\(magnetometerData.count) magnetometer samples") }
        if !partialDeviceMotion.isEmpty {
            var parts: [String] = []
            if partialDeviceMotion.contains(where: { $0.gravity != nil }) { parts.append("gravity") }
            if partialDeviceMotion.contains(where: { $0.userAcceleration != nil }) { parts.append("user acceleration") }
            if partialDeviceMotion.contains(where: { $0.rotationRate != nil }) { parts.append("rotation rate") }
            held.append("\(partialDeviceMotion.count) samples of \(parts.joined(separator: " and ")) only")
        }
        if !referenceOrientations.isEmpty { held.append("\(referenceOrientations.count) reference orientations") }
        let frames = ReferenceFrame.allCases.filter(availableReferenceFrames.contains).map(\.name)
        let computable =
            frames.isEmpty
            ? "no attitude, gravity or device motion can be computed from it"
            : "device motion is available in \(frames.joined(separator: ", "))"
        return "\(format.summary): \(held.joined(separator: ", ")); \(computable)"
    }

    /// The recording as device-motion samples in a reference frame.
    ///
    /// Recorded attitudes are returned as recorded (in their own frame only). From raw sensors the attitude,
    /// gravity and user acceleration are computed with `SensorFusion` (`AttitudeEstimator`): 6-axis for
    /// `xArbitraryZVertical`, 9-axis for `xArbitraryCorrectedZVertical` and `xMagneticNorthZVertical`, one
    /// sample per accelerometer sample.
    /// - Parameter referenceFrame: The frame the attitudes are to be in.
    /// - Returns: The samples, in time order.
    /// - Throws: `RecordingError` with code `referenceFrameUnavailable` (true north on Linux; a 9-axis frame
    ///   without magnetometer; a frame other than the recorded one) or `attitudeUnavailable` (no attitude and
    ///   no accelerometer + gyroscope, as in the CoreMotion-Data-Logger logs).
    public func deviceMotion(referenceFrame: ReferenceFrame) throws(RecordingError) -> [DeviceMotion] {
        if let problem = deviceMotionUnavailability(referenceFrame: referenceFrame) { throw problem }
        if let recordedReferenceFrame, !recordedDeviceMotion.isEmpty, referenceFrame == recordedReferenceFrame {
            return recordedDeviceMotion
        }
        return SensorFusion.deviceMotion(
            accelerometer: accelerometerData, gyro: gyroData, magnetometer: magnetometerData,
            referenceFrame: referenceFrame)
    }

    /// Why `deviceMotion(referenceFrame:)` cannot give samples in `referenceFrame`, in words for people, or
    /// `nil` when it can (for a caller that reads the samples some other way, such as through a
    /// `MotionManager`, and wants this explanation rather than the manager's shorter one).
    /// - Parameter referenceFrame: The frame the attitudes are to be in.
    /// - Returns: A `RecordingError` with code `referenceFrameUnavailable` or `attitudeUnavailable`, or `nil`.
    public func deviceMotionUnavailability(referenceFrame: ReferenceFrame) -> RecordingError? {
        if referenceFrame == .xTrueNorthZVertical {
            return RecordingError(
                .referenceFrameUnavailable,
                "xTrueNorthZVertical needs the magnetic declination at the device's location, and there is no "
                    + "location service on Linux. To fix, use xMagneticNorthZVertical (x toward magnetic north)",
                path: url.path)
        }
        if let recordedReferenceFrame, !recordedDeviceMotion.isEmpty {
            guard referenceFrame == recordedReferenceFrame else {
                return RecordingError(
                    .referenceFrameUnavailable,
                    "this recording holds attitudes in \(recordedReferenceFrame.name) and no raw sensor samples, so "
                        + "they cannot be re-referenced to \(referenceFrame.name). To fix, use "
                        + "\(recordedReferenceFrame.name)",
                    path: url.path)
            }
            return nil
        }
        guard !accelerometerData.isEmpty, !gyroData.isEmpty else {
            return RecordingError(
                .attitudeUnavailable,
                "\(contentsDescription). Attitude needs either recorded attitudes or raw accelerometer and "
                    + "gyroscope samples; user acceleration without gravity does not give the direction of "
                    + "gravity. To fix, read what this recording holds without an attitude (`partialDeviceMotion` "
                    + "in Swift; `motion-host device-motion` without --reference-frame prints it), or use a "
                    + "recording with attitude or raw sensors",
                path: url.path)
        }
        if referenceFrame.needsMagnetometer && magnetometerData.isEmpty {
            return RecordingError(
                .referenceFrameUnavailable,
                "\(referenceFrame.name) needs magnetometer samples and this recording has none. "
                    + "To fix, use xArbitraryZVertical",
                path: url.path)
        }
        return nil
    }
}
