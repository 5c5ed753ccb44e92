import Foundation
import Testing

/// A `motion-host` (or other) child process the test talks to while it runs: it can be signalled, and
/// every wait is bounded.
final class ChildProcess {
    let process = Process()
    private let folder: URL
    private let finished = DispatchSemaphore(value: 0)
    private let outURL: URL
    private let errURL: URL

    /// Starts `executable` with `arguments` in `directory`; standard output and error go to files.
    init(_ arguments: [String], executable: URL = MotionHost.executable, in directory: URL? = nil) throws {
        folder = try MotionHost.temporaryFolder()
        outURL = folder.appendingPathComponent("stdout")
        errURL = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory ?? MotionHost.fixtures
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"  // a crash ends the child at once
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        process.standardInput = FileHandle.nullDevice
        process.terminationHandler = { [finished] _ in finished.signal() }
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: folder)
    }

    /// Waits at most `seconds` for the child to exit; kills it (SIGKILL) and returns `false` when it did not.
    func waitForExit(seconds: Double) -> Bool {
        if finished.wait(timeout: .now() + seconds) == .success { return true }
        kill(process.processIdentifier, SIGKILL)
        finished.wait()
        return false
    }

    /// Sends a signal.
    func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Everything the child wrote to standard output (so far).
    var standardOutput: String { (try? String(contentsOf: outURL, encoding: .utf8)) ?? "" }
    /// Everything the child wrote to standard error (so far).
    var standardError: String { (try? String(contentsOf: errURL, encoding: .utf8)) ?? "" }
}

/// Polls `condition` every 10 ms for at most `seconds`.
/// - Returns: Whether it became true in time.
func eventually(within seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}

/// The lines of a JSON Lines file, decoded (a line that is not a JSON object fails the test).
func jsonLines(ofFile url: URL) throws -> [[String: Any]] {
    let text = try String(contentsOf: url, encoding: .utf8)
    return try text.split(separator: "\n").map { line in
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
        return try #require(object as? [String: Any], "not a JSON object: \(line)")
    }
}
