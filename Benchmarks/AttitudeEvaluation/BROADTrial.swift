import DeviceMotion
import Foundation

/// One BROAD trial as exported to CSV in `shared/data/broad` (see its PROVENANCE.txt), converted to the
/// estimator's inputs: gyroscope rad/s, accelerometer in g with Core Motion's sign, magnetometer µT.
public struct BROADTrial: Sendable {
    /// Standard gravity, m/s², to turn the trial's m/s² into g.
    public static let standardGravity = 9.806_65
    /// The trials' sampling rate, Hz (PROVENANCE.txt).
    public static let samplingRate = 285.714

    public var name: String
    public var gyroscope: [SIMD3<Double>] = []
    public var accelerometer: [SIMD3<Double>] = []
    public var magnetometer: [SIMD3<Double>] = []
    /// Optical reference, IMU → ENU; `nil` where the marker was lost.
    public var reference: [Quaternion?] = []
    public var isMovement: [Bool] = []

    public var count: Int { gyroscope.count }

    public struct LoadError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Reads a trial CSV.
    /// - Throws: `LoadError` naming the file, line and column of a malformed value.
    public init(contentsOf url: URL) throws {
        name = url.deletingPathExtension().lastPathComponent
        let text = try String(contentsOf: url, encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        guard !lines.isEmpty else { throw LoadError(description: "\(url.path): empty file") }
        let header = lines.removeFirst().split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let wanted = [
            "acc_x_mps2", "acc_y_mps2", "acc_z_mps2", "gyr_x_radps", "gyr_y_radps", "gyr_z_radps",
            "mag_x_uT", "mag_y_uT", "mag_z_uT", "movement", "ref_qw", "ref_qx", "ref_qy", "ref_qz",
        ]
        var index: [Int] = []
        for column in wanted {
            guard let i = header.firstIndex(of: column) else {
                throw LoadError(description: "\(url.path): line 1: no column \(column); is this a BROAD CSV?")
            }
            index.append(i)
        }
        gyroscope.reserveCapacity(lines.count)
        accelerometer.reserveCapacity(lines.count)
        magnetometer.reserveCapacity(lines.count)
        reference.reserveCapacity(lines.count)
        isMovement.reserveCapacity(lines.count)
        for (n, line) in lines.enumerated() {
            let cells = line.split(separator: ",", omittingEmptySubsequences: false)
            func value(_ k: Int) throws -> Double? {
                let i = index[k]
                guard i < cells.count else {
                    throw LoadError(description: "\(url.path): line \(n + 2): missing column \(wanted[k])")
                }
                if cells[i].isEmpty { return nil }
                guard let v = Double(cells[i]) else {
                    throw LoadError(description: "\(url.path): line \(n + 2), column \(wanted[k]): not a number")
                }
                return v
            }
            func required(_ k: Int) throws -> Double {
                guard let v = try value(k) else {
                    throw LoadError(description: "\(url.path): line \(n + 2), column \(wanted[k]): empty")
                }
                return v
            }
            let g = Self.standardGravity
            // Specific force (m/s², +g up) → Core Motion's acceleration (g, −specific force).
            accelerometer.append(SIMD3(try required(0), try required(1), try required(2)) / -g)
            gyroscope.append(SIMD3(try required(3), try required(4), try required(5)))
            magnetometer.append(SIMD3(try required(6), try required(7), try required(8)))
            isMovement.append(try required(9) == 1)
            if let w = try value(10), let x = try value(11), let y = try value(12), let z = try value(13) {
                reference.append(Quaternion(x: x, y: y, z: z, w: w))
            } else {
                reference.append(nil)
            }
        }
    }
}
