import Foundation
import MotionHost

/// The hidden first argument that makes `motion-host` the validator's child process for one manifest.
let validateChildArgument = "__validate-plugin"
/// The child's argument that lists the plugins to isolate (`--isolate`), comma-separated, `*` for all.
let validateIsolatePrefix = "--isolating="

/// `motion-host plugins validate MANIFEST|DIR`: checks each plugin in a child process with a timeout,
/// as clap-validator does, so a plugin that crashes or hangs is reported, not fatal. Prints one line per
/// check (`PASS`, `FAIL`, `SKIP`), then a summary.
/// - Parameter values: The `path` argument (a manifest, or a folder of `*.json` manifests) and `--timeout`.
/// - Returns: 0 when every check passed, 1 otherwise.
/// - Throws: ``MotionHostError`` when the path does not exist or holds no manifest; ``UsageError`` for
///   a bad `--timeout`.
func runPluginsValidate(_ values: ParsedValues) throws -> Int32 {
    let path = values.argument("path") ?? ""
    let timeoutText = values.value("timeout") ?? "10"
    guard let timeout = Double(timeoutText), timeout > 0 else {
        throw UsageError(message: "The value '\(timeoutText)' is invalid for '--timeout <s>': expected seconds > 0", commandPath: values.commandPath)
    }
    // The same configuration as `run` (library folders, pins, plan-type owners), passed on to each child.
    let configuration = try PluginEnvironment.configuration(at: values.value("config"))
    let isolating = values.values("isolate").map { $0 == "all" ? "*" : $0 }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw MotionHostError(.unreadableFile, file: path, "no such file or folder")
    }
    var manifests: [String] = []
    var skipped: [String] = []
    if isDirectory.boolValue {
        // The same files discovery reads (`plugins list`, `run`): visible *.json names that are regular files
        // once symbolic links are followed. A folder, FIFO or device named *.json is skipped, never read.
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter {
            $0.hasSuffix(".json") && !$0.hasPrefix(".")
        }
        for name in names.sorted() {
            let file = (path as NSString).appendingPathComponent(name)
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
    if isDirectory.boolValue {
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
        let result = validateInChild(manifest: manifest, configuration: configuration.url?.path, isolating: isolating, timeout: timeout)
        for line in result.lines {
            // Errors name their file; the line begins with it already.
            print("\(manifest): \(line.replacingOccurrences(of: ": \(manifest): ", with: ": "))")
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
private func validateInChild(manifest: String, configuration: String?, isolating: [String], timeout: Double) -> (
    lines: [String], exitStatus: Int32
) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    process.arguments =
        [validateChildArgument, manifest] + (configuration.map { [$0] } ?? [])
        + (isolating.isEmpty ? [] : [validateIsolatePrefix + isolating.joined(separator: ",")])
    var environment = ProcessInfo.processInfo.environment
    environment["SWIFT_BACKTRACE"] = "enable=no"  // a crashing plugin should end the child at once
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    let finished = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in finished.signal() }
    do {
        try process.run()
    } catch {
        return (["FAIL child process: could not start \(process.executableURL?.path ?? "motion-host"): \(error)"], 1)
    }
    // Read while waiting, so a chatty child never blocks on a full pipe.
    let reader = OutputCollector(handle: output.fileHandleForReading)
    var timedOut = false
    if finished.wait(timeout: .now() + timeout) == .timedOut {
        timedOut = true
        kill(process.processIdentifier, SIGKILL)
        finished.wait()
    }
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
    } else if process.terminationReason == .uncaughtSignal {
        let signal = process.terminationStatus
        lines.append("FAIL \(current ?? "checks"): the plugin crashed the child process with signal \(signal) (\(signalName(signal)))")
    } else if process.terminationStatus != 0, !lines.contains(where: { $0.hasPrefix("FAIL") }) {
        lines.append("FAIL checks: the child process exited with status \(process.terminationStatus)")
    }
    return (lines, process.terminationStatus)
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

/// Collects a pipe's output on a background thread.
private final class OutputCollector: @unchecked Sendable {
    // @unchecked: `data` is written by the reading thread and read only after `done` is signalled.
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    func finish() -> String {
        done.wait()
        return String(decoding: data, as: UTF8.self)
    }
}

/// The child process: runs ``PluginValidator`` on one manifest, printing `BEGIN <check>` before each
/// check and `PASS|FAIL|SKIP <check>: detail` after, flushing each line so the parent sees how far it got.
/// - Returns: 0 when every check passed, 1 otherwise.
/// - Parameters:
///   - manifest: The manifest's path.
///   - configurationPath: The host configuration the parent read, if any (read again here).
///   - isolating: Plugin ids to run in a sandbox (`--isolate`), `*` for every plugin.
func runValidateChild(manifest: String, configurationPath: String?, isolating: [String] = []) -> Int32 {
    // Written straight to the file descriptor (no buffering), so nothing is lost if the plugin crashes.
    func emit(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    let configuration: HostConfiguration
    do {
        configuration = try configurationPath.map { try HostConfiguration.load(contentsOf: URL(fileURLWithPath: $0)) } ?? .empty
    } catch {
        emit("FAIL host configuration: \(error)")
        return 1
    }
    let loader = PluginEnvironment.loader(configuration.isolating(isolating))
    let validator = PluginValidator(
        manifestURL: URL(fileURLWithPath: manifest), loader: loader,
        willStart: { emit("BEGIN \($0)") }, report: { emit($0.description) })
    return validator.run() ? 0 : 1
}
