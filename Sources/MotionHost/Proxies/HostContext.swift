import CMotionABI
import FoundationEssentials
import Glibc
import MotionCore
import MotionFiles
import Synchronization

/// The host's per-performer state behind a `motion_host_context *`: the performer's target, emitter and
/// token generator, and the tokens the plugin holds.
///
/// Thread rule: the emitter, token generator and token table are safe from any thread (the header's
/// `[thread-safe]` calls, under one lock); the target is used on the scheduler's thread only (the
/// header's `[scheduler-thread]` calls check the thread first). `@unchecked Sendable` because the target
/// references and the thread are immutable, and everything mutable is behind `state` or atomic.
///
/// Lifetime: a context outlives its performer. When the performer is destroyed the proxy calls
/// ``retire()``: the context lets go of its emitter, token generator and tokens, is marked gone, and is
/// kept (128 bytes, for the life of the process), so that a plugin thread that calls the host with
/// it afterwards — which the header forbids — gets `MOTION_ERR_SCHEDULER_GONE` instead of reading freed
/// memory.
///
/// Memory: one per performer of a plugin (a running TweenKit Tween has one), so it holds only what differs per
/// performer: who the plugin is lives in its shared ``PluginIdentity``, the target's name is the target's own
/// string (a short one inline, a long one shared), and its C copy for `target_name` is made on the first call.
final class HostContext: @unchecked Sendable {
    /// The performer's target and its scene, unretained: the scheduler holds the scene, the scene its
    /// targets, and the performer lives no longer than the scheduler (R42). Used only while ``isLive``
    /// (checked first by every call): borrowing them per property call costs no retain.
    private let targetReference: Unmanaged<Target>
    private let sceneReference: Unmanaged<Scene>
    let schedulerThread: pthread_t
    /// The plugin's name for messages and where its lines go, shared by all its contexts.
    let identity: PluginIdentity
    /// The target's name (its ``TargetID``'s string: no copy), readable from any thread.
    let targetID: String
    /// False once the performer is destroyed (``retire()``); never true again.
    private let live = Atomic<Bool>(true)
    /// Whether the scheduler may update the performer with others of its plugin in one `update_many` call: the
    /// proxy's flag, kept here beside ``live`` (in what was padding) so that an ``EntryPerformer`` is 40 bytes.
    let batchesFrames: Bool
    private let state = Mutex(State())

    /// How many of a context's most recently terminated tokens it remembers (R33), so that a second
    /// terminate of one of them reports `MOTION_ERR_TOKEN_ALREADY_TERMINATED`; an older one is forgotten
    /// (see ``terminateToken(_:)``), so the table stays this small however many tokens a performer takes.
    static let rememberedTerminations = 1024

    private struct State {
        var emitter: TransactionEmitter?
        var tokenGenerator: IsActiveTokenGenerator?
        /// The token the plugin holds, when it holds one: a performer usually holds one, kept inline; any more, by
        /// id, in ``more``.
        var token: IsActiveToken?
        /// What few performers need (a second token, a terminated one, the target's C name), made on first use, so
        /// that a running performer's context is 128 bytes (a 144-byte heap block; 160 before).
        var more: Rarer?
    }

    /// The parts of a context's state that a running performer with one token does not use.
    private final class Rarer {
        /// The tokens held besides ``State/token``, by id.
        var tokens: [motion_token: IsActiveToken] = [:]
        /// The last ``rememberedTerminations`` tokens terminated through this context, oldest first from `next`
        /// (a ring).
        var terminated: [motion_token] = []
        var next = 0
        /// The target's name as a C string for `target_name`, made on its first call and kept for the context's
        /// life (the header promises it stays valid as long as the context).
        var cTargetName: UnsafeMutablePointer<CChar>?

        deinit { free(cTargetName) }
    }

    /// A context of a plugin's performer for `target`.
    /// - Parameters:
    ///   - identity: The plugin's, shared by its contexts.
    ///   - batchesFrames: The proxy's ``batchesFrames``.
    init(target: Target, identity: PluginIdentity, batchesFrames: Bool = true) {
        self.targetReference = Unmanaged.passUnretained(target)
        self.sceneReference = Unmanaged.passUnretained(target.scene)
        self.schedulerThread = pthread_self()
        self.identity = identity
        self.targetID = target.id.name
        self.batchesFrames = batchesFrames
    }

    /// A context with an identity of its own (a declarative performer's, a test's).
    convenience init(target: Target, pluginDescription: String, logRoute: PluginLogRoute? = nil) {
        self.init(target: target, identity: PluginIdentity(description: pluginDescription, logRoute: logRoute))
    }

    /// Who the plugin is, for messages: `plugin id (manifest path)`.
    var pluginDescription: String { identity.description }
    /// Where the plugin's host sends its lines (the `motion.log/1` extension logs through it), if it has one.
    var logRoute: PluginLogRoute? { identity.logRoute }

    /// The target's name as a C string, valid for the context's life (`target_name`); made on the first call.
    var targetName: UnsafePointer<CChar> {
        state.withLock { state in
            let more = Self.rarer(&state)
            if let name = more.cTargetName { return UnsafePointer(name) }
            let name = strdup(targetID)!
            more.cTargetName = name
            return UnsafePointer(name)
        }
    }

    private static func rarer(_ state: inout State) -> Rarer {
        if let more = state.more { return more }
        let more = Rarer()
        state.more = more
        return more
    }

    /// Whether the performer still exists. A relaxed load: on the scheduler's thread it is written in the
    /// same thread's order; from another thread only the thread-safe calls use it, and they lock too.
    @inline(__always)
    var isLive: Bool { live.load(ordering: .relaxed) }

    /// The emitter, set on the scheduler's thread before the first plan (R11).
    var emitter: TransactionEmitter? {
        get { state.withLock { $0.emitter } }
        set { state.withLock { $0.emitter = newValue } }
    }

    /// The token generator, set on the scheduler's thread before the first plan (R11).
    var tokenGenerator: IsActiveTokenGenerator? {
        get { state.withLock { $0.tokenGenerator } }
        set { state.withLock { $0.tokenGenerator = newValue } }
    }

    /// Marks the context gone once its performer is destroyed, drops what it held, and keeps the context
    /// alive for the rest of the process (see the type's Lifetime note). Call once, on the scheduler's
    /// thread, after `destroy_performer` (or a failed `create_performer`) returned.
    func retire() {
        state.withLock { state in
            // The target's C name stays: a plugin may hold it for as long as the context lives.
            let name = state.more?.cTargetName
            state.more?.cTargetName = nil
            state = State()
            if let name {
                let more = Rarer()
                more.cTargetName = name
                state.more = more
            }
        }
        live.store(false, ordering: .releasing)
        _ = Unmanaged.passRetained(self)
    }

    /// Ends every token the plugin still holds through this context, as the host does for a performer that goes
    /// away (R37): for an isolated plugin whose sandbox failed, whose performers can end nothing any more.
    /// - Returns: How many tokens were ended.
    @discardableResult
    func endAllTokens() -> Int {
        let tokens = state.withLock { state in
            defer {
                state.token = nil
                state.more?.tokens = [:]
            }
            return ((state.more.map { Array($0.tokens.values) } ?? []) + (state.token.map { [$0] } ?? [])).sorted { $0.id < $1.id }
        }
        for token in tokens { try? token.terminate() }
        return tokens.count
    }

    /// Runs `body` with the target borrowed.
    @inline(__always)
    func withTarget<R>(_ body: (Target) -> R) -> R { targetReference._withUnsafeGuaranteedRef(body) }

    /// Runs `body` with the scene borrowed.
    @inline(__always)
    func withScene<R>(_ body: (Scene) -> R) -> R { sceneReference._withUnsafeGuaranteedRef(body) }

    /// The pointer handed to the plugin. Valid for the life of the process once retired (the proxy keeps
    /// it until then).
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

    /// How many terminated tokens the context remembers now (at most ``rememberedTerminations``).
    var rememberedTerminationCount: Int { state.withLock { $0.more?.terminated.count ?? 0 } }

    /// A new token, or `nil` when the scheduler or the performer is gone.
    func generateToken() -> motion_token? {
        guard isLive, let generator = tokenGenerator, let token = generator.generate() else { return nil }
        let kept = state.withLock { state in
            // Retired meanwhile: the token is the scheduler's to end (it is gone or going).
            guard isLive else { return false }
            if state.token == nil {
                state.token = token
            } else {
                Self.rarer(&state).tokens[token.id] = token
            }
            return true
        }
        return kept ? token.id : nil
    }

    /// Terminates a token generated through this context (R33, R36, R37).
    /// - Returns: `MOTION_OK`; `MOTION_ERR_TOKEN_ALREADY_TERMINATED` for one of the last
    ///   ``rememberedTerminations`` tokens terminated through this context; `MOTION_ERR_UNKNOWN_TOKEN` for
    ///   0, an id never generated here, or a token terminated longer ago than that (forgotten: either way
    ///   the call changes nothing); `MOTION_ERR_SCHEDULER_GONE` once the scheduler or the performer is gone.
    func terminateToken(_ id: motion_token) -> motion_status {
        enum Found { case live(IsActiveToken), terminated, unknown, gone }
        let found: Found = state.withLock { state in
            guard isLive else { return .gone }
            let held: IsActiveToken?
            if let token = state.token, token.id == id {
                state.token = nil
                held = token
            } else {
                held = state.more?.tokens.removeValue(forKey: id)
            }
            if let held {
                let more = Self.rarer(&state)
                if more.terminated.count < Self.rememberedTerminations {
                    more.terminated.append(id)
                } else {
                    more.terminated[more.next] = id
                    more.next = (more.next + 1) % Self.rememberedTerminations
                }
                return .live(held)
            }
            return id != 0 && state.more?.terminated.contains(id) == true ? .terminated : .unknown
        }
        switch found {
        case .gone: return MOTION_ERR_SCHEDULER_GONE
        case .unknown: return MOTION_ERR_UNKNOWN_TOKEN
        case .terminated:
            HostDiagnostics.recordDoubleTermination()
            return MOTION_ERR_TOKEN_ALREADY_TERMINATED
        case .live(let token):
            do {
                try token.terminate()
                return MOTION_OK
            } catch {
                // Terminated by the host already: the scheduler went away and ended it (R37).
                return MOTION_ERR_SCHEDULER_GONE
            }
        }
    }
}

/// Who a plugin is, for the host contexts of its performers: its name for messages and where its log lines go. One
/// per loaded plugin (``EntryPlugin/identity``, an isolated plugin's member), shared by every context.
///
/// Thread rule: immutable; safe from any thread.
final class PluginIdentity: Sendable {
    /// `plugin id (manifest path)`.
    let description: String
    /// Where the plugin's host sends its lines, if it has one.
    let logRoute: PluginLogRoute?

    init(description: String, logRoute: PluginLogRoute?) {
        self.description = description
        self.logRoute = logRoute
    }
}

/// Where plugin log lines go (`motion_host_v1.log`).
///
/// `log` takes no context, so a line is attributed by the thread it is logged on: while the host is
/// calling into a plugin on a thread (the entry, `create_performer`, plans, frames, samples, destroy), the
/// call's ``PluginLogRoute`` is the thread's, and the line goes to the sink of the ``PluginHost`` that made
/// the call (and, during the entry call, is kept as the entry's own words). A line logged on a thread the
/// host is not calling in on (a plugin's own thread) cannot be attributed: it goes to the process's
/// default sink, ``setSink(_:)``, or to standard error.
///
/// Thread rule: safe from any thread.
public enum PluginLog {
    /// A log line's level, `MOTION_LOG_*` in the C ABI.
    public enum Level: Int32, Sendable, CustomStringConvertible {
        case debug = 0, info, warning, error
        public var description: String { ["debug", "info", "warning", "error"][Int(rawValue)] }
    }

    /// A function that receives plugin log lines, already made safe for one line (``sanitized(_:)``).
    public typealias Sink = @Sendable (Level, String) -> Void

    private static let defaultSink = ProcessLock<Sink?>(nil)

    /// Sets the process's default sink: it receives the lines of hosts without a sink of their own and
    /// the lines no host call can be blamed for; `nil` writes warnings and errors to standard error.
    public static func setSink(_ newSink: Sink?) {
        defaultSink.withLock { $0 = newSink }
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

    /// The calling thread's route: the plugin call the host is making on it, if any.
    private static let routeKey: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed: no thread-specific key for plugin log lines")
        return key
    }()

    /// Runs `body` (a call into a plugin) with `route` as the calling thread's route; the previous route
    /// comes back afterwards (calls nest: a plugin's emission reaches another plugin).
    @inline(__always)
    static func routing<R>(_ route: PluginLogRoute, _ body: () throws -> R) rethrows -> R {
        let key = routeKey
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(route).toOpaque())
        defer { pthread_setspecific(key, previous) }
        return try body()
    }

    static func write(_ level: Level, _ rawMessage: String) {
        let message = sanitized(rawMessage)
        if let raw = pthread_getspecific(routeKey) {
            let route = Unmanaged<PluginLogRoute>.fromOpaque(raw).takeUnretainedValue()
            route.capture(level, message)
            if let sink = route.sink {
                sink(level, message)
                return
            }
        }
        if let current = defaultSink.withLock({ $0 }) {
            current(level, message)
        } else if level.rawValue >= Level.warning.rawValue {
            StandardStream.error.write("plugin \(level): \(message)\n")
        }
    }
}

/// Where the log lines of one host's calls into a plugin go: the host's sink (`nil`: the process's
/// default), and, for an entry call, the lines themselves, so that a refusal quotes the plugin's own
/// words for that call.
///
/// Thread rule: a route is the calling thread's only while a call runs (``PluginLog/routing(_:_:)``);
/// the captured lines are touched on that thread alone. `@unchecked Sendable` for that reason.
final class PluginLogRoute: @unchecked Sendable {
    let sink: PluginLog.Sink?
    private let isCapturing: Bool
    /// The lines logged on the call's thread during the call, when capturing.
    private(set) var captured: [(level: PluginLog.Level, message: String)] = []

    init(sink: PluginLog.Sink?, capturing: Bool = false) {
        self.sink = sink
        self.isCapturing = capturing
    }

    func capture(_ level: PluginLog.Level, _ message: String) {
        if isCapturing { captured.append((level, message)) }
    }

    /// The line a refusal quotes: the last error logged during the call, else its last line.
    var reason: String? { (captured.last { $0.level == .error } ?? captured.last)?.message }
}
