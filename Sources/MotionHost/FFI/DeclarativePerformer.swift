import CMotionABI
import FoundationEssentials
import Glibc
import MotionCore

/// The functions a manifest declares for one declarative C performer class, resolved and prepared
/// once per class (and so once per plan type).
///
/// `create`: `void *fn(const char *target_name, const motion_host_v1 *host, motion_host_context *ctx)`;
/// `destroy`: `void fn(void *performer)`; optional `update`: `void fn(void *performer, double time, double delta)`;
/// per plan type a ``DeclaredCall``. Fixed signatures are called directly; plan functions through libffi.
final class DeclaredFunctions {
    typealias Create = @convention(c) (UnsafePointer<CChar>?, UnsafePointer<motion_host_v1>?, OpaquePointer?) -> UnsafeMutableRawPointer?
    typealias Destroy = @convention(c) (UnsafeMutableRawPointer?) -> Void
    typealias Update = @convention(c) (UnsafeMutableRawPointer?, Double, Double) -> Void

    let manifest: PluginManifest
    let className: String
    /// The plugin's id as a C string for ``PluginCrashReport``; it lives for the process.
    let cName: UnsafePointer<CChar>
    let create: Create
    let destroy: Destroy
    let update: Update?
    let calls: [String: DeclaredCall]
    /// The identity its performers' host contexts share, for the log route they were made with last: one identity
    /// (and so one context group per scheduler) for a class's performers, not one per performer.
    private let sharedIdentity = ProcessLock<PluginIdentity?>(nil)

    /// The identity for a performer whose log lines go to `logRoute`: the one made last, when it has that route.
    func identity(logRoute: PluginLogRoute) -> PluginIdentity {
        sharedIdentity.withLock { shared in
            if let shared, shared.logRoute === logRoute { return shared }
            let identity = PluginIdentity(description: manifest.id, logRoute: logRoute)
            shared = identity
            return identity
        }
    }

    /// Resolves and prepares a declarative class's functions.
    /// - Throws: ``PluginError`` `.missingSymbol` naming the first symbol the library does not export, or
    ///   `.invalidDeclaration` when the manifest declares no functions or a call cannot be prepared.
    init(manifest: PluginManifest, performer: PerformerManifest, library: LoadedLibrary) throws(PluginError) {
        guard let functions = performer.functions else {
            throw PluginError(
                code: .invalidDeclaration, message: "performer class \(performer.className) declares no functions", for: manifest)
        }
        self.manifest = manifest
        self.className = performer.className
        let cName = UnsafePointer(strdup("\(manifest.id) (\(manifest.url.relativePath))")!)
        self.cName = cName
        let create = try library.requiredSymbol(functions.create, for: manifest)
        self.create = unsafeBitCast(create, to: Create.self)
        // A crash on a thread of this library's own, outside any marked call, is blamed on it.
        PluginCrashReport.recordLibrary(containing: create, name: cName)
        self.destroy = unsafeBitCast(try library.requiredSymbol(functions.destroy, for: manifest), to: Destroy.self)
        if let update = functions.update {
            self.update = unsafeBitCast(try library.requiredSymbol(update, for: manifest), to: Update.self)
        } else {
            self.update = nil
        }
        var calls: [String: DeclaredCall] = [:]
        for plan in performer.plans {
            guard let declaration = plan.call else {
                throw PluginError(code: .invalidDeclaration, message: "plan type \"\(plan.type)\" declares no call", for: manifest)
            }
            let address = try library.requiredSymbol(declaration.symbol, for: manifest)
            guard let call = DeclaredCall(symbol: address, declaration: declaration) else {
                throw PluginError(
                    code: .invalidDeclaration, message: "libffi could not prepare the call to \(declaration.symbol)", for: manifest)
            }
            calls[plan.type] = call
        }
        self.calls = calls
    }
}

/// A performer made of plain C functions that a manifest declares; plans reach it as typed C arguments
/// through libffi.
///
/// Thread rule: the scheduler's thread.
final class DeclarativePerformer: ComposablePerforming, FrameUpdating {
    let functions: DeclaredFunctions
    let context: HostContext
    let performer: UnsafeMutableRawPointer
    /// Where the plugin's log lines from these calls go (the host's sink).
    let logRoute: PluginLogRoute

    /// Calls the declared `create`.
    /// - Throws: ``PluginError`` `.creationFailed` when it returns NULL.
    init(functions: DeclaredFunctions, context performerContext: PerformerContext, logRoute: PluginLogRoute = PluginLogRoute(sink: nil))
        throws(PluginError)
    {
        self.functions = functions
        self.logRoute = logRoute
        let target = performerContext.target
        let context = HostContext(target: target, identity: functions.identity(logRoute: logRoute))
        context.emitter = performerContext.emitter
        context.tokenGenerator = performerContext.tokenGenerator
        self.context = context
        guard
            let performer = PluginLog.routing(
                logRoute,
                { PluginCrashReport.calling(functions.cName, .create, { functions.create(context.targetName, HostInterface.table, context.opaque) }) }
            )
        else {
            context.retire()
            throw PluginError(
                code: .creationFailed,
                message: "the declared create function of performer class \(functions.className) returned NULL for target \"\(target.id.name)\"",
                for: functions.manifest)
        }
        self.performer = performer
    }

    deinit {
        PluginLog.routing(logRoute) { PluginCrashReport.calling(functions.cName, .destroy) { functions.destroy(performer) } }
        // A plugin thread that calls the host with this context from now on gets MOTION_ERR_SCHEDULER_GONE.
        context.retire()
    }

    func setEmitter(_ emitter: TransactionEmitter) { context.emitter = emitter }
    func setIsActiveTokenGenerator(_ generator: IsActiveTokenGenerator) { context.tokenGenerator = generator }

    func addPlan(_ plan: Plan) throws {
        guard let call = functions.calls[plan.type] else {
            throw PluginError(code: .invalidDeclaration, message: "no function is declared for plan type \"\(plan.type)\"", for: functions.manifest)
        }
        var problem: String?
        guard
            let status = PluginLog.routing(
                logRoute, { PluginCrashReport.calling(functions.cName, .addPlan, { call.call(performer: performer, plan: plan, problem: &problem) }) }
            )
        else {
            throw PluginError(code: .invalidDeclaration, message: problem ?? "the plan could not be converted", for: functions.manifest)
        }
        guard status == MOTION_OK else {
            var failure = PluginError(
                code: .callFailed,
                message: "\(call.declaration.symbol) for plan type \"\(plan.type)\" returned \(statusName(status))",
                for: functions.manifest)
            failure.status = status
            throw failure
        }
    }

    func update(frame: Frame) {
        PluginLog.routing(logRoute) {
            PluginCrashReport.calling(functions.cName, .update, frame: frame.index) { functions.update?(performer, frame.time, frame.delta) }
        }
    }
}
