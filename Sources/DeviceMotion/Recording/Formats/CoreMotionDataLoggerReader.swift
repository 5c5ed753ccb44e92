import FoundationEssentials

/// Reads a CoreMotion-Data-Logger pair: `rotationRate_<when>.txt` (rad/s) and `userAcceleration_<when>.txt`
/// (g), header-less lines `timestamp,x,y,z` written from the same `CMDeviceMotion` objects.
///
/// These logs hold rotation rate and user acceleration only: no attitude, no gravity and no raw
/// accelerometer reading, so no attitude can be computed from them either. They fill
/// `Recording.partialDeviceMotion`.
enum CoreMotionDataLoggerReader {
    struct Pair {
        var rotationRate: URL
        var userAcceleration: URL
    }

    static let rotationRatePrefix = "rotationRate_"
    static let userAccelerationPrefix = "userAcceleration_"

    /// The pair a file belongs to, when its name has one of the two prefixes.
    static func pair(forFile url: URL) -> Pair? {
        let name = url.lastPathComponent
        let folder = url.deletingLastPathComponent()
        if name.hasPrefix(rotationRatePrefix) {
            let suffix = name.dropFirst(rotationRatePrefix.count)
            return Pair(
                rotationRate: url, userAcceleration: folder.appendingPathComponent(userAccelerationPrefix + suffix))
        }
        if name.hasPrefix(userAccelerationPrefix) {
            let suffix = name.dropFirst(userAccelerationPrefix.count)
            return Pair(rotationRate: folder.appendingPathComponent(rotationRatePrefix + suffix), userAcceleration: url)
        }
        return nil
    }

    /// The one pair in a folder, when it holds exactly one `rotationRate_*.txt`.
    static func pair(inFolder folder: URL) -> Pair? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let candidates = names.filter { $0.hasPrefix(rotationRatePrefix) && $0.hasSuffix(".txt") }
        guard candidates.count == 1 else { return nil }
        return pair(forFile: folder.appendingPathComponent(candidates[0]))
    }

    static func read(_ pair: Pair, url: URL) throws(RecordingError) -> Recording {
        for file in [pair.rotationRate, pair.userAcceleration] where !FileManager.default.fileExists(atPath: file.path) {
            throw RecordingError(
                .mismatchedFiles,
                "a CoreMotion-Data-Logger recording is a pair of files and \(file.lastPathComponent) is missing. "
                    + "To fix, put both logs of the recording in the same folder",
                path: file.path)
        }
        let rotation = try readLines(pair.rotationRate)
        let user = try readLines(pair.userAcceleration)
        guard rotation.count == user.count else {
            let shorter = rotation.count < user.count ? pair.rotationRate : pair.userAcceleration
            throw RecordingError(
                .mismatchedFiles,
                "the pair has \(rotation.count) rotation-rate and \(user.count) user-acceleration lines; both logs "
                    + "come from the same samples and must have as many lines. To fix, use the pair as the logger wrote it",
                path: shorter.path, line: min(rotation.count, user.count) + 1)
        }
        var samples: [PartialDeviceMotion] = []
        samples.reserveCapacity(rotation.count)
        for (index, (r, u)) in zip(rotation, user).enumerated() {
            guard r.x == u.x else {
                throw RecordingError(
                    .mismatchedFiles,
                    "timestamp \(u.x) differs from \(r.x) on the same line of \(pair.rotationRate.lastPathComponent); "
                        + "both logs come from the same samples. To fix, use the pair as the logger wrote it",
                    path: pair.userAcceleration.path, line: index + 1, column: 1)
            }
            samples.append(
                PartialDeviceMotion(
                    userAcceleration: Acceleration(x: u.y, y: u.z, z: u.w),
                    rotationRate: RotationRate(x: r.y, y: r.z, z: r.w), timestamp: r.x))
        }
        return Recording(
            format: .coreMotionDataLogger, url: url, files: [pair.rotationRate, pair.userAcceleration],
            partialDeviceMotion: samples)
    }

    private static func readLines(_ url: URL) throws(RecordingError) -> [SIMD4<Double>] {
        var scanner = try CSVScanner(contentsOf: url)
        var lines: [SIMD4<Double>] = []
        let names = ["timestamp", "x", "y", "z"]
        while scanner.nextLine() {
            try scanner.expectFieldCount(4, what: "timestamp,x,y,z")
            try scanner.checkTimestamp(try scanner.number(0, names[0]), field: 0, names[0])
            lines.append(
                SIMD4(
                    try scanner.number(0, names[0]), try scanner.number(1, names[1]), try scanner.number(2, names[2]),
                    try scanner.number(3, names[3])))
        }
        return lines
    }
}
