import Dispatch
import FoundationEssentials
import Glibc
import MotionFiles
import MotionHost

/// The hidden first argument that makes `motion-host` the validator's child process for one manifest.
let validateChildArgument = "__validate-plugin"
/// The child's argument that lists the plugins to isolate (`--isolate`), comma-separated, `*` for all.
let validateIsolatePrefix = "--isolating="
/// The child's argument that gives the scan time limit (`--scan-time-limit`), in seconds.
let validateScanTimeLimitPrefix = "--scan-time-limit-seconds="

/// `motion-host plugins validate MANIFEST|DIR`: checks each plugin in a child process with a timeout,
/// as clap-validator does, so a plugin that crashes or hangs is reported, not fatal. Prints one line per
/// check (`PASS`, `FAIL`, `SKIP`), then a summary.
/// - Parameter values: The `path` argument (a manifest, or a folder of `*.json` manifests), `--timeout` and
///   `--scan-time-limit` (milliseconds, ``PluginValidator/scanTimeLimit`` by default).
/// - Returns: 0 when every check passed, 1 otherwise.
/// - Throws: ``MotionHostError`` when the path does not exist or holds no manifest; ``UsageError`` for
///   a bad `--timeout` or `--scan-time-limit`.
func runPluginsValidate(_ values: ParsedValues) throws -> Int32 {
    let path = values.argument("path") ?? ""
    let timeoutText = values.value("timeout") ?? "10"
    guard let timeout = Double(timeoutText), timeout > 0 else {
        throw UsageError(message: "The value '\(timeoutText)' is invalid for '--timeout <s>': expected seconds > 0", commandPath: values.commandPath)
    }
    let scanLimitText = values.value("scan-time-limit") ?? "100"
    guard let scanLimit = Double(scanLimitText), scanLimit > 0, scanLimit.isFinite else {
        throw UsageError(
            message: "The value '\(scanLimitText)' is invalid for '--scan-time-limit <ms>': expected milliseconds > 0",
            commandPath: values.commandPath)
    }
    // The same configuration as `run` (library folders, pins, plan-type owners), passed on to each child.
    let configuration = try PluginEnvironment.configuration(at: values.value("config"))
    let isolating = values.values("isolate").map { $0 == "all" ? "*" : $0 }
    var isDirectory: Bool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw MotionHostError(.unreadableFile, file: path, "no such file or folder")
    }
    var manifests: [String] = []
    var skipped: [String] = []
    if isDirectory {
        // The same files discovery reads (`plugins list`, `run`): visible *.json names that are regular files
        // once symbolic links are followed. A folder, FIFO or device named *.json is skipped, never read.
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter {
            $0.hasSuffix(".json") && !$0.hasPrefix(".")
        }
        for name in names.sorted() {
            let file = appendingPathComponent(name, to: path)
            var status = stat()
            if stat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG {
                manifests.append(file)
            } else {
                skipped.append(file)
            }
        }
        guard !manifests.isEmpty else { throw MotionHostError(.unreadableFile, file: path, "the folder holds no *.json manifest") }
    } else {
        manifests = [path]
    }
    var checks = 0
    var failed = 0
    for file in skipped {
        print("\(file): SKIP not a regular file; plugins list and run skip it too")
    }
    if isDirectory {
        // Across the folder: two manifests claiming one plan type (or one plugin id) is a failure too.
        let catalog = PluginCatalog.discover(
            searchPath: PluginSearchPath(directories: [URL(fileURLWithPath: path, isDirectory: true)]),
            configuration: configuration)
        // A JSON file without manifestVersion (a scene beside the manifests) is not a manifest.
        let notManifests = Set(catalog.notManifests.map { $0.standardizedFileURL.path })
        for file in manifests where notManifests.contains(URL(fileURLWithPath: file).standardizedFileURL.path) {
            print("\(file): SKIP not a manifest (no manifestVersion key); plugins list and run skip it too")
        }
        manifests.removeAll { notManifests.contains(URL(fileURLWithPath: $0).standardizedFileURL.path) }
        checks += 1
        let conflicts = catalog.problems.filter { $0.code == .conflict || $0.code == .duplicate }
        if conflicts.isEmpty {
            print("\(path): PASS plan types and ids are unique across the folder")
        } else {
            failed += 1
            for conflict in conflicts { print("\(path): FAIL plan types and ids are unique across the folder: \(conflict)") }
        }
        if !catalog.shadowed.isEmpty {
            failed += 1
            for shadow in catalog.shadowed {
                print(
                    "\(path): FAIL plan types and ids are unique across the folder: plugin id \(shadow.pluginID) is declared by \(shadow.used.lastPathComponent) and \(shadow.ignored.lastPathComponent)"
                )
            }
        }
    }
    for manifest in manifests {
        let result = validateInChild(
            manifest: manifest, configuration: configuration.url?.path, isolating: isolating, scanTimeLimit: scanLimit / 1000,
            timeout: timeout)
        for line in result.lines {
            // Errors name their file; the line begins with it already.
            print("\(manifest): \(line.replacing(": \(manifest): ", with: ": "))")
            checks += 1
            if line.hasPrefix("FAIL") { failed += 1 }
        }
    }
    print(
        "\(manifests.count) plugin\(manifests.count == 1 ? "" : "s"), \(checks) check\(checks == 1 ? "" : "s"): \(checks - failed) passed, \(failed) failed"
    )
    return failed == 0 ? 0 : 1
}

/// Runs the checks of one manifest in a child process (this executable with `__validate-plugin`).
/// - Returns: The check lines, with a `FAIL` line added when the child crashed, hung or failed to start.
private func validateInChild(manifest: String, configuration: String?, isolating: [String], scanTimeLimit: Double, timeout: Double)
    -> (lines: [String], exitStatus: Int32)
{
    let executable = realpathText("/proc/self/exe") ?? "/proc/self/exe"
    let arguments =
        [validateChildArgument, manifest] + (configuration.map { [$0] } ?? [])
        + (isolating.isEmpty ? [] : [validateIsolatePrefix + isolating.joined(separator: ",")])
        + (scanTimeLimit == PluginValidator.scanTimeLimit ? [] : [validateScanTimeLimitPrefix + "\(scanTimeLimit)"])
    var environment = ProcessInfo.processInfo.environment
    environment["SWIFT_BACKTRACE"] = "enable=no"  // a crashing plugin should end the child at once
    let child: ChildProcess
    do {
        child = try ChildProcess(executable: executable, arguments: arguments, environment: environment)
    } catch {
        return (["FAIL child process: could not start \(executable): \(error)"], 1)
    }
    // Read while waiting, so a chatty child never blocks on a full pipe.
    let reader: OutputCollector
    do { reader = try OutputCollector(fileDescriptor: child.output) } catch {
        kill(child.pid, SIGKILL)
        _ = child.waitForExit(timeout: nil)
        close(child.output)
        return (["FAIL child process: \(error)"], 1)
    }
    var timedOut = false
    var status = child.waitForExit(timeout: timeout)
    if status == nil {
        timedOut = true
        kill(child.pid, SIGKILL)
        status = child.waitForExit(timeout: nil)
    }
    let ending = ChildProcess.Ending(waitStatus: status ?? 0)
    let text = reader.finish()
    var lines: [String] = []
    var current: String?
    for line in text.split(separator: "\n").map(String.init) {
        if line.hasPrefix("BEGIN ") {
            current = String(line.dropFirst(6))
        } else {
            lines.append(line)
            current = nil
        }
    }
    if timedOut {
        lines.append("FAIL \(current ?? "checks"): timed out after \(timeoutDescription(timeout)); the plugin hangs")
    } else if case .signal(let signal) = ending {
        lines.append("FAIL \(current ?? "checks"): the plugin crashed the child process with signal \(signal) (\(signalName(signal)))")
    } else if case .exit(let code) = ending, code != 0, !lines.contains(where: { $0.hasPrefix("FAIL") }) {
        lines.append("FAIL checks: the child process exited with status \(code)")
    }
    return (lines, ending.terminationStatus)
}

private func timeoutDescription(_ seconds: Double) -> String {
    seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
}

private func signalName(_ signal: Int32) -> String {
    switch signal {
    case SIGSEGV: "SIGSEGV"
    case SIGBUS: "SIGBUS"
    case SIGABRT: "SIGABRT"
    case SIGILL: "SIGILL"
    case SIGFPE: "SIGFPE"
    case SIGKILL: "SIGKILL"
    case SIGTRAP: "SIGTRAP"
    default: "signal \(signal)"
    }
}

/// Collects a pipe's output on a background thread, until the end of the pipe; closes the descriptor then.
private final class OutputCollector: @unchecked Sendable {
    // @unchecked: `bytes` is written by the reading thread and read only after `done` is signalled.
    private var bytes: [UInt8] = []
    private let done = DispatchSemaphore(value: 0)

    init(fileDescriptor: Int32) throws(ThreadStartFailure) {
        try DetachedThread.start(name: "validate output") { [self] in
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(fileDescriptor, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                bytes += chunk[..<n]
            }
            close(fileDescriptor)
            done.signal()
        }
    }

    func finish() -> String {
        done.wait()
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A child process started with `posix_spawn(3)` (for Foundation's `Process`, which FoundationEssentials
/// lacks): standard input from `/dev/null`, standard output into a pipe (``output``), standard error to
/// `/dev/null`; the signal mask emptied and every signal's action reset, whatever thread starts it.
private struct ChildProcess {
    /// How a child ended, from its `waitpid(2)` status.
    enum Ending {
        case exit(Int32)
        case signal(Int32)

        init(waitStatus: Int32) {
            // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift's Glibc module does not import (C macros).
            self = waitStatus & 0x7f == 0 ? .exit((waitStatus >> 8) & 0xff) : .signal(waitStatus & 0x7f)
        }

        /// The exit code, or the signal's number, as Foundation's `Process.terminationStatus` gives it.
        var terminationStatus: Int32 {
            switch self {
            case .exit(let code), .signal(let code): code
            }
        }
    }

    let pid: pid_t
    /// The reading end of the child's standard output (close-on-exec).
    let output: Int32

    init(executable: String, arguments: [String], environment: [String: String]) throws(SpawnError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw SpawnError(errno: errno) }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        let pid: pid_t
        do {
            pid = try Spawn.start(
                executable, arguments: arguments, environment: environment.map { "\($0.key)=\($0.value)" },
                actions: [
                    .open(fd: 0, path: "/dev/null", flags: O_RDONLY), .duplicate(source: ends[1], as: 1),
                    .open(fd: 2, path: "/dev/null", flags: O_WRONLY),
                ])
        } catch {
            close(ends[0])
            close(ends[1])
            throw error
        }
        close(ends[1])
        self.pid = pid
        output = ends[0]
    }

    /// Waits for the child to end, polling `waitpid(2)` every 2 ms up to `timeout` seconds (`nil`: blocking).
    /// - Returns: The raw wait status; `nil` when the child still runs at the time-out.
    func waitForExit(timeout: Double?) -> Int32? {
        var status: Int32 = 0
        guard let timeout else {
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            return status
        }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1e9)
        while true {
            let ended = waitpid(pid, &status, WNOHANG)
            if ended == pid { return status }
            if ended < 0 && errno != EINTR { return 0 }
            if DispatchTime.now().uptimeNanoseconds >= deadline { return nil }
            usleep(2000)
        }
    }
}

/// The canonical path (symbolic links resolved) of `path`, or `nil`. Wraps `realpath(3)`.
private func realpathText(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
}

/// The child process: runs ``PluginValidator`` on one manifest, printing `BEGIN <check>` before each
/// check and `PASS|FAIL|SKIP <check>: detail` after, flushing each line so the parent sees how far it got.
/// - Returns: 0 when every check passed, 1 otherwise.
/// - Parameters:
///   - manifest: The manifest's path.
///   - configurationPath: The host configuration the parent read, if any (read again here).
///   - isolating: Plugin ids to run in a sandbox (`--isolate`), `*` for every plugin.
///   - scanTimeLimit: The scan time check's limit, seconds (`--scan-time-limit`).
func runValidateChild(
    manifest: String, configurationPath: String?, isolating: [String] = [], scanTimeLimit: Double = PluginValidator.scanTimeLimit
) -> Int32 {
    // Written straight to the file descriptor (no buffering), so nothing is lost if the plugin crashes.
    func emit(_ line: String) { StandardStream.output.write(line + "\n") }
    let configuration: HostConfiguration
    do {
        configuration = try configurationPath.map { try HostConfiguration.load(contentsOf: URL(fileURLWithPath: $0)) } ?? .empty
    } catch {
        emit("FAIL host configuration: \(error)")
        return 1
    }
    let loader = PluginEnvironment.loader(configuration.isolating(isolating))
    let validator = PluginValidator(
        manifestURL: URL(fileURLWithPath: manifest), loader: loader, scanTimeLimit: scanTimeLimit,
        willStart: { emit("BEGIN \($0)") }, report: { emit($0.description) })
    return validator.run() ? 0 : 1
}
