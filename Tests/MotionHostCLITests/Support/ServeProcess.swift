import Foundation
import LoopbackTesting

/// A running `motion-host serve`, started with port 0: its port is read from the first line of standard
/// error (`listening on http://HOST:PORT`). It is killed (SIGKILL) when dropped if still running, so a
/// failing test never leaves it behind; ``stop(signal:)`` ends it the normal way.
final class ServeProcess {
    let process = Process()
    let port: Int
    private let errorURL: URL
    private let folder: URL

    /// Starts `motion-host serve ARGUMENTS --listen 127.0.0.1:0` in `directory`.
    /// - Parameter seconds: How long to wait for the `listening on` line.
    init(_ arguments: [String], in directory: URL, environment: [String: String] = [:], seconds: Double = 20) throws {
        folder = try MotionHost.temporaryFolder()
        errorURL = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        process.executableURL = MotionHost.executable
        process.arguments = ["serve"] + arguments + ["--listen", "127.0.0.1:0"]
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardError = try FileHandle(forWritingTo: errorURL)
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(seconds)
        var found: Int?
        while found == nil, Date() < deadline, process.isRunning {
            let text = (try? String(contentsOf: errorURL, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first, line.hasPrefix("listening on http://127.0.0.1:"),
                text.contains("\n")
            {
                found = Int(line.split(separator: ":").last ?? "")
            }
            usleep(10_000)
        }
        guard let found else {
            process.terminate()
            throw ClientError("serve did not print 'listening on': \((try? String(contentsOf: errorURL, encoding: .utf8)) ?? "")")
        }
        port = found
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: folder)
    }

    /// `127.0.0.1:PORT`.
    var host: String { "127.0.0.1:\(port)" }

    /// A new connection to it.
    func connect() throws -> LoopbackClient { try LoopbackClient(port: port) }

    /// Everything written to standard error so far.
    var standardErrorText: String { (try? String(contentsOf: errorURL, encoding: .utf8)) ?? "" }

    /// Sends a signal (if given) and waits for the exit, up to `seconds`.
    /// - Returns: The exit status, or `nil` if it was still running (then it is killed).
    func stop(signal: Int32? = nil, seconds: Double = 20) -> Int32? {
        if let signal { kill(process.processIdentifier, signal) }
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            return nil
        }
        return process.terminationStatus
    }
}
