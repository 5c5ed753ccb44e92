import CMotionABI
import Foundation
import MotionCore
import Synchronization

/// The host's per-performer state behind a `motion_host_context *`: the performer's target, emitter and
/// token generator, and the tokens the plugin holds.
///
/// Thread rule: the emitter, token generator and token table are safe from any thread (the header's
/// `[thread-safe]` calls); the target is used on the scheduler's thread only (the header's
/// `[scheduler-thread]` calls check the thread first). `@unchecked Sendable` because `target`,
/// `emitter` and `tokenGenerator` are set on the scheduler's thread before the plugin can see this
/// context from another thread, and `target` is only touched after the thread check.
final class HostContext: @unchecked Sendable {
    /// The performer's target and its scene, unretained: the scheduler holds the scene, the scene its
    /// targets, and this context lives no longer than its performer, which lives no longer than the
    /// scheduler (R42). Borrowing them per property call costs no retain.
    private let targetReference: Unmanaged<Target>
    private let sceneReference: Unmanaged<Scene>
    let schedulerThread: pthread_t
    /// Who the plugin is, for messages: `plugin id (manifest path)`.
    let pluginDescription: String
    /// The target's name as a C string, owned here, valid for the context's life (`target_name`).
    let targetName: UnsafeMutablePointer<CChar>
    var emitter: TransactionEmitter?
    var tokenGenerator: IsActiveTokenGenerator?
    private let tokens = Mutex(TokenTable())

    private struct TokenTable {
        var live: [motion_token: IsActiveToken] = [:]
        var terminated: Set<motion_token> = []
    }

    init(target: Target, pluginDescription: String) {
        self.targetReference = Unmanaged.passUnretained(target)
        self.sceneReference = Unmanaged.passUnretained(target.scene)
        self.schedulerThread = pthread_self()
        self.pluginDescription = pluginDescription
        self.targetName = strdup(target.id.name)
    }

    deinit { free(targetName) }

    /// Runs `body` with the target borrowed.
    @inline(__always)
    func withTarget<R>(_ body: (Target) -> R) -> R { targetReference._withUnsafeGuaranteedRef(body) }

    /// Runs `body` with the scene borrowed.
    @inline(__always)
    func withScene<R>(_ body: (Scene) -> R) -> R { sceneReference._withUnsafeGuaranteedRef(body) }

    /// The pointer handed to the plugin. Valid while this context is alive (the proxy keeps it).
    var opaque: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }

    static func from(_ pointer: OpaquePointer?) -> HostContext? {
        guard let pointer else { return nil }
        return Unmanaged<HostContext>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
    }

    /// Runs `body` with the context behind `pointer` borrowed, not retained (the proxy keeps it alive
    /// for as long as the plugin may use it): the per-frame property calls go through here.
    @inline(__always)
    static func borrowing<R>(_ pointer: OpaquePointer?, otherwise: R, _ body: (HostContext) -> R) -> R {
        guard let pointer else { return otherwise }
        return Unmanaged<HostContext>.fromOpaque(UnsafeRawPointer(pointer))._withUnsafeGuaranteedRef(body)
    }

    // pthread_t is an integer on Linux: comparing directly saves a call per property access.
    var isOnSchedulerThread: Bool { pthread_self() == schedulerThread }

    // MARK: Tokens ([thread-safe])

    func generateToken() -> motion_token? {
        guard let token = tokenGenerator?.generate() else { return nil }
        tokens.withLock { $0.live[token.id] = token }
        return token.id
    }

    func terminateToken(_ id: motion_token) -> motion_status {
        let token: IsActiveToken? = tokens.withLock { table in
            if let token = table.live.removeValue(forKey: id) {
                table.terminated.insert(id)
                return token
            }
            return nil
        }
        guard let token else {
            let wasTerminated = tokens.withLock { $0.terminated.contains(id) }
            if wasTerminated { HostDiagnostics.recordDoubleTermination() }
            return wasTerminated ? MOTION_ERR_TOKEN_ALREADY_TERMINATED : MOTION_ERR_UNKNOWN_TOKEN
        }
        do {
            try token.terminate()
            return MOTION_OK
        } catch {
            // Terminated by the host already: the scheduler went away and ended it (R37).
            return MOTION_ERR_SCHEDULER_GONE
        }
    }
}

/// Where plugin log lines go: one sink for the process, set by the host application.
///
/// Thread rule: safe from any thread.
public enum PluginLog {
    /// A log line's level, `MOTION_LOG_*` in the C ABI.
    public enum Level: Int32, Sendable, CustomStringConvertible {
        case debug = 0, info, warning, error
        public var description: String { ["debug", "info", "warning", "error"][Int(rawValue)] }
    }

    private static let sink = Mutex<(@Sendable (Level, String) -> Void)?>(nil)
    private static let recent = Mutex<(count: Int, last: String?)>((0, nil))

    /// A mark to pass to ``lastMessage(since:)``.
    static func mark() -> Int { recent.withLock { $0.count } }

    /// The last message logged after `mark`, if any.
    static func lastMessage(since mark: Int) -> String? {
        recent.withLock { $0.count > mark ? $0.last : nil }
    }

    /// Sets the function that receives every plugin log line (`motion_host_v1.log`), or `nil` to
    /// write warnings and errors to standard error.
    public static func setSink(_ newSink: (@Sendable (Level, String) -> Void)?) {
        sink.withLock { $0 = newSink }
    }

    /// A plugin's text made safe for one terminal line: control characters (newlines, escape sequences)
    /// become visible `\u{..}` escapes.
    static func sanitized(_ text: String) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value) {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func write(_ level: Level, _ rawMessage: String) {
        let message = sanitized(rawMessage)
        recent.withLock { $0 = ($0.count + 1, message) }
        if let current = sink.withLock({ $0 }) {
            current(level, message)
        } else if level.rawValue >= Level.warning.rawValue {
            FileHandle.standardError.write(Data("plugin \(level): \(message)\n".utf8))
        }
    }
}
