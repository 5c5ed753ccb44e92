import Foundation

/// Names the plugin that was running when the process received a fatal signal, in one line on standard
/// error, instead of a crash report about the host.
///
/// The host marks every call into a plugin (entry, create, plans, frames, samples, destroy) with the
/// plugin's id and manifest; a signal handler installed by ``install()`` writes `error: plugin ID (MANIFEST)
/// crashed the host (signal N) …` with async-signal-safe `write(2)` calls, then lets the signal take its course (so a
/// parent process, such as `plugins validate`, still sees the signal).
///
/// Thread rule: marks are written on the scheduler's thread; the handler may run on any thread.
public enum PluginCrashReport {
    /// The name of the plugin being called, as a C string that lives for the process, or `nil`.
    nonisolated(unsafe) static var current: UnsafePointer<CChar>?

    /// Installs the handler for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT. Call once, early.
    public static func install() {
        for signal in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signal in
                if let name = PluginCrashReport.current {
                    writeError("error: plugin ")
                    _ = write(2, name, strlen(name))
                    writeError(" crashed the host (signal ")
                    // Signal numbers have one or two digits; a stack tuple keeps this allocation-free.
                    var digits: (CChar, CChar) = (CChar(48 + signal / 10 % 10), CChar(48 + signal % 10))
                    withUnsafeBytes(of: &digits) { bytes in
                        let skip = signal < 10 ? 1 : 0
                        _ = write(2, bytes.baseAddress! + skip, 2 - skip)
                    }
                    writeError("). To find out more, run motion-host plugins validate on its manifest\n")
                }
                Foundation.signal(signal, SIG_DFL)
                raise(signal)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(signal, &action, nil)
        }
    }

    /// Runs `body` marked as a call into the plugin `name`.
    @inline(__always)
    static func calling<R>(_ name: UnsafePointer<CChar>, _ body: () throws -> R) rethrows -> R {
        let outer = current
        current = name
        defer { current = outer }
        return try body()
    }
}

private func writeError(_ text: StaticString) {
    _ = write(2, text.utf8Start, text.utf8CodeUnitCount)
}
