import Foundation
import Testing

/// What one run of the built `motion-host` binary produced.
struct MotionHostResult {
    /// The exit status.
    var status: Int32
    /// Everything written to standard output.
    var standardOutput: String
    /// Everything written to standard error.
    var standardError: String

    /// Standard output split into lines (without the final empty one).
    var outputLines: [String] {
        standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty }
    }

    /// Standard error split into lines.
    var errorLines: [String] { standardError.split(separator: "\n").map(String.init) }

    /// Every JSON Lines line of standard output, decoded.
    func jsonLines() throws -> [[String: Any]] {
        try outputLines.map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            return try #require(object as? [String: Any], "not a JSON object: \(line)")
        }
    }
}

/// Runs the `motion-host` binary built next to the test bundle.
enum MotionHost {
    /// The built binary: in the products directory, which holds the test bundle (`/proc/self/exe`).
    static let executable: URL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("motion-host")

    /// The fixture scenes' folder (data, so found from this file's path).
    static let fixtures: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// The fixture plugins' manifests (`Tests/Fixtures/plugins`, data, so found from this file's path): the
    /// test performers plugin there performs the plan types the fixture scenes use (`SetValue`, `SetVector`,
    /// `HoldTokens`, `Emit`, `Record`, ...). Its libraries are built next to `motion-host`.
    static let pluginFixtures: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/plugins")

    /// The path of a fixture file.
    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    /// A fresh empty temporary folder.
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "motion-host-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs `motion-host run` with the fixture plugins on the search path (`--plugin-path`).
    /// - Parameters:
    ///   - arguments: The arguments after `run` (the scene and options).
    ///   - directory: The working directory, or the fixtures folder.
    static func runScene(_ arguments: [String], in directory: URL? = nil) throws -> MotionHostResult {
        try run(["run", "--plugin-path", pluginFixtures.path] + arguments, in: directory)
    }

    /// Runs the binary with arguments and waits for it to exit.
    /// - Parameters:
    ///   - arguments: The arguments, without the executable.
    ///   - directory: The working directory, or the fixtures folder.
    ///   - environment: Variables to set (or, with `nil`, remove) on top of this process's environment.
    static func run(_ arguments: [String], in directory: URL? = nil, environment: [String: String?] = [:]) throws
        -> MotionHostResult
    {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let outURL = folder.appendingPathComponent("stdout")
        let errURL = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            var merged = ProcessInfo.processInfo.environment
            for (name, value) in environment { merged[name] = value }
            process.environment = merged
        }
        process.currentDirectoryURL = directory ?? fixtures
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return MotionHostResult(
            status: process.terminationStatus,
            standardOutput: try String(contentsOf: outURL, encoding: .utf8),
            standardError: try String(contentsOf: errURL, encoding: .utf8))
    }
}

/// `plugins validate --scan-time-limit` for tests that check more than the scan time: the check measures wall time
/// (the default limit is 100 ms), which a test machine shared with other builds can exceed with no fault of the
/// plugin's; `theScanTimeCheckFailsPastItsLimitAndTheLimitIsChecked` tests the check itself.
let busyMachineScanLimit = "5000"
