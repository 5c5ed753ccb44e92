import CMotionABI
import Foundation
import MotionCore

/// The functions a manifest declares for one declarative C performer class, resolved and prepared.
///
/// `create`: `void *fn(const char *target_name, const motion_host_v1 *host, motion_host_context *ctx)`;
/// `destroy`: `void fn(void *performer)`; optional `update`: `void fn(void *performer, double time, double delta)`;
/// per plan type a ``DeclaredCall``. Fixed signatures are called directly; plan functions through libffi.
final class DeclaredFunctions {
    typealias Create = @convention(c) (UnsafePointer<CChar>?, UnsafePointer<motion_host_v1>?, OpaquePointer?) -> UnsafeMutableRawPointer?
    typealias Destroy = @convention(c) (UnsafeMutableRawPointer?) -> Void
    typealias Update = @convention(c) (UnsafeMutableRawPointer?, Double, Double) -> Void

    let name: String
    let create: Create
    let destroy: Destroy
    let update: Update?
    let calls: [String: DeclaredCall]

    /// Resolves and prepares a class's functions.
    /// - Parameters:
    ///   - name: The plugin and class, for messages.
    ///   - symbol: Looks a symbol up in the library (`dlsym`).
    ///   - create, destroy, update: Symbol names.
    ///   - plans: Per plan type, the plan function's symbol and arguments.
    /// - Throws: ``DeclarationError`` naming the first symbol that is missing or cannot be prepared.
    init(
        name: String, symbol: (String) -> UnsafeMutableRawPointer?, create: String, destroy: String, update: String?,
        plans: [String: (symbol: String, arguments: [(field: String, type: DeclaredCType)])]
    ) throws(DeclarationError) {
        func resolve(_ symbolName: String, _ role: String) throws(DeclarationError) -> UnsafeMutableRawPointer {
            guard let address = symbol(symbolName) else {
                throw DeclarationError(message: "\(name): the library does not export \(role) function \"\(symbolName)\"")
            }
            return address
        }
        self.name = name
        self.create = unsafeBitCast(try resolve(create, "create"), to: Create.self)
        self.destroy = unsafeBitCast(try resolve(destroy, "destroy"), to: Destroy.self)
        self.update = try update.map { (u: String) throws(DeclarationError) -> Update in unsafeBitCast(try resolve(u, "update"), to: Update.self) }
        var calls: [String: DeclaredCall] = [:]
        for (planType, declaration) in plans.sorted(by: { $0.key < $1.key }) {
            let address = try resolve(declaration.symbol, "plan \"\(planType)\"")
            calls[planType] = try DeclaredCall(symbol: address, symbolName: declaration.symbol, arguments: declaration.arguments)
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

    /// Calls the declared `create`.
    /// - Throws: ``HandshakeError`` with `.creationFailed` when it returns NULL.
    init(functions: DeclaredFunctions, target: Target) throws(HandshakeError) {
        self.functions = functions
        let context = HostContext(target: target, pluginDescription: functions.name)
        self.context = context
        guard let performer = functions.create(context.targetName, HostInterface.table, context.opaque) else {
            throw HandshakeError(.creationFailed, "\(functions.name): the declared create function returned NULL")
        }
        self.performer = performer
    }

    deinit { functions.destroy(performer) }

    func setEmitter(_ emitter: TransactionEmitter) { context.emitter = emitter }
    func setIsActiveTokenGenerator(_ generator: IsActiveTokenGenerator) { context.tokenGenerator = generator }

    func addPlan(_ plan: Plan) throws {
        guard let call = functions.calls[plan.type] else {
            throw DeclarationError(message: "\(functions.name): no function is declared for plan type \"\(plan.type)\"")
        }
        let status = try call.call(performer: performer, plan: plan)
        guard status == MOTION_OK else {
            throw PluginCallError(
                status: status,
                message:
                    "\(functions.name): \(call.symbolName) for plan type \"\(plan.type)\" returned \(String(cString: motion_status_name(status)))")
        }
    }

    func update(frame: Frame) { functions.update?(performer, frame.time, frame.delta) }
}
