import DeviceMotion
import Foundation
import Testing

/// The real recordings in `shared/data`, found from this file's location.
///
/// The CI checkout has `shared/` next to the repository root (`<repo>/../shared/data`); a git worktree sits
/// one level deeper, so the ancestors of the package root are searched in order, nearest first. (This locates
/// data only; built products are found next to the test executable.)
enum TestData {
    static let folder: URL? = {
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var candidate = packageRoot.deletingLastPathComponent()
        while true {
            let data = candidate.appendingPathComponent("shared/data")
            if FileManager.default.fileExists(atPath: data.appendingPathComponent("README.md").path) { return data }
            let parent = candidate.deletingLastPathComponent()
            if parent.path == candidate.path { return nil }
            candidate = parent
        }
    }()

    /// The URL of a file or folder under `shared/data`.
    static func url(_ path: String) throws -> URL {
        let folder = try #require(folder, "shared/data not found next to the repository (<repo>/../shared/data)")
        return folder.appendingPathComponent(path)
    }

    /// A recording read from `shared/data`.
    static func recording(_ path: String) throws -> Recording {
        try Recording.read(contentsOf: url(path))
    }

    /// A fresh temporary folder for a test.
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("devicemotion-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// The largest absolute difference between two vectors.
func maxDifference(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
    let d = a - b
    return max(abs(d.x), abs(d.y), abs(d.z))
}

/// The angle between two directions, degrees.
func angleDegrees(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
    let cosine = (a * b).sum() / ((a * a).sum().squareRoot() * (b * b).sum().squareRoot())
    return acos(min(1, max(-1, cosine))) * 180 / .pi
}

/// The Pearson correlation of two series.
func correlation(_ x: [Double], _ y: [Double]) -> Double {
    let n = Double(x.count)
    let mx = x.reduce(0, +) / n
    let my = y.reduce(0, +) / n
    var sxy = 0.0
    var sxx = 0.0
    var syy = 0.0
    for (a, b) in zip(x, y) {
        sxy += (a - mx) * (b - my)
        sxx += (a - mx) * (a - mx)
        syy += (b - my) * (b - my)
    }
    return sxy / (sxx * syy).squareRoot()
}
