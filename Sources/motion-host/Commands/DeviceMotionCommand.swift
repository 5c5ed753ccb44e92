/// `motion-host device-motion RECORDING`: prints a recording's Core Motion `DeviceMotion` stream.
/// - Parameter values: The `recording` argument, `--reference-frame`, `--format jsonl|csv`.
/// - Returns: The exit status.
/// - Throws: ``MotionHostError`` `.notAvailable` in this build.
func runDeviceMotion(_ values: ParsedValues) throws -> Int32 {
    throw MotionHostError(.notAvailable, "device-motion: not available in this build")
}
