// A plugin (through MotionPluginKit) that misuses the host: it terminates a token twice and emits a
// plan type no manifest declares. It does not crash: it records the statuses the host returned in
// properties of its target, so tests can check both sides. Its WorkerPerformer terminates tokens from
// a thread of its own, also after the performer has been destroyed.
// Manifest: Tests/Fixtures/plugins/token-misuse.json.

import MotionPluginKit

/// `{"type": "MisuseTokens"}`: generate a token, terminate it twice.
struct MisuseTokens: PluginPlan {
    static let type = "MisuseTokens"
}

/// `{"type": "EmitUnknownPlan"}`: emit `{"type": "NoSuchPlan"}` to the performer's own target.
struct EmitUnknownPlan: PluginPlan {
    static let type = "EmitUnknownPlan"
}

/// The plan type it emits, which no manifest declares.
struct NoSuchPlan: PluginPlan {
    static let type = "NoSuchPlan"
}

final class MisusePerformer: PluginPerformer {
    static let planTypes: [any PluginPlan.Type] = [MisuseTokens.self, EmitUnknownPlan.self]

    private let context: PerformerContext

    init(context: PerformerContext) {
        self.context = context
    }

    func add(_ plan: any PluginPlan) throws {
        switch plan {
        case is MisuseTokens:
            guard let token = context.generateToken() else {
                throw PluginError(.schedulerGone, "the host gave no token.")
            }
            try token.terminate()
            do {
                try token.terminate()
                try record(0, as: "secondTerminateStatus")
            } catch {
                context.log(.warning, "second terminate of \(token) reported \(error.code): \(error.message)")
                try record(error.code.rawValue, as: "secondTerminateStatus")
            }
        case is EmitUnknownPlan:
            do {
                try context.emit(NoSuchPlan())
                try record(0, as: "emissionStatus")
            } catch {
                context.log(.warning, "emitting NoSuchPlan reported \(error.code): \(error.message)")
                try record(error.code.rawValue, as: "emissionStatus")
            }
        default:
            throw PluginError(.unknownPlanType, "MisusePerformer does not perform this plan.", field: "type")
        }
    }

    private func record(_ status: Int32, as name: String) throws(PluginError) {
        try context.setValue(Double(status), of: context.propertyID(named: name))
    }
}

/// `{"type": "BadWrites"}`: takes a token; on its next frame tries to set a NaN, an infinity and five
/// components, records the error code each got (`nanStatus`, `infinityStatus`, `fiveStatus`), writes
/// `after` = 1, and ends its token. Inside `update_many` those writes are queued, so this shows that a
/// write the host would refuse is refused at once, in the performer, and the good ones still arrive.
struct BadWrites: PluginPlan {
    static let type = "BadWrites"
}

final class BadWriter: PluginPerformer, FrameUpdating {
    static let planTypes: [any PluginPlan.Type] = [BadWrites.self]

    private let context: PerformerContext
    private var token: Token?

    init(context: PerformerContext) {
        self.context = context
    }

    func add(_ plan: any PluginPlan) throws {
        token = context.generateToken()
    }

    func update(frame: Frame) {
        guard let held = token else { return }
        token = nil
        for (values, name) in [([Double.nan], "nanStatus"), ([1, .infinity], "infinityStatus"), ([1, 2, 3, 4, 5], "fiveStatus")] {
            var status: Int32 = 0
            do {
                try context.setValue(values, of: context.propertyID(named: "bad"))
            } catch {
                status = error.code.rawValue
            }
            try? context.setValue(Double(status), of: context.propertyID(named: name))
        }
        try? context.setValue(1, of: context.propertyID(named: "after"))
        try? held.terminate()
    }
}

/// `{"type": "NestWrites"}`: takes a token; on its next frame (inside update_many) emits one transaction
/// that adds `{"type": "SetP", "value": 7}` to its own target and then `{"type": "ReadP"}` (a plan the test
/// performs in-process, which reads p). The write SetP makes is queued, because this performer is being
/// updated: the SDK must hand it over before add_plan returns, so ReadP sees 7.
struct NestWrites: PluginPlan {
    static let type = "NestWrites"
}

/// `{"type": "SetP", "value": 7}`: sets p.
struct SetP: PluginPlan {
    static let type = "SetP"
    var value: Double
}

final class NestedWriter: PluginPerformer, FrameUpdating {
    static let planTypes: [any PluginPlan.Type] = [NestWrites.self, SetP.self]

    private let context: PerformerContext
    private var token: Token?

    init(context: PerformerContext) {
        self.context = context
    }

    func add(_ plan: any PluginPlan) throws {
        if let set = plan as? SetP {
            try context.setValue(set.value, of: context.propertyID(named: "p"))
        } else {
            token = context.generateToken()
        }
    }

    func update(frame: Frame) {
        guard let held = token else { return }
        token = nil
        let own = context.targetName
        let operations =
            #"{"operations":[{"op":"add","target":"\#(own)","plan":{"type":"SetP","value":7}},"#
            + #"{"op":"add","target":"\#(own)","plan":{"type":"ReadP"}}]}"#
        do {
            try context.emit(transactionJSON: operations)
        } catch {
            context.log(.error, "NestWrites: \(error.message)")
        }
        try? held.terminate()
    }
}

@c(motion_plugin_entry)
public func motionPluginEntry(_ version: UInt32, _ host: UnsafePointer<motion_host_v1>?)
    -> UnsafePointer<motion_plugin_v1>?
{
    MotionPlugin(
        id: "org.motion.fixtures.token-misuse",
        performers: [MisusePerformer.self, WorkerPerformer.self, BadWriter.self, NestedWriter.self]
    )
    .export(hostVersion: version, host: host)
}

// MARK: Terminating from a plugin-owned thread

#if canImport(Glibc)
    import Glibc
#endif

/// `{"type": "TerminateOnWorker", "delay": 0.05, "afterDestroy": false}`: take a token and terminate it
/// from a new thread after `delay` seconds (R36) or, with `afterDestroy`, once the performer has been
/// destroyed: the terminate then reports MOTION_ERR_SCHEDULER_GONE instead of touching the host's
/// freed context.
struct TerminateOnWorker: PluginPlan {
    static let type = "TerminateOnWorker"
    /// s, >= 0.
    var delay: Double = 0.05
    /// Wait for the performer's destruction (at most 10 s) instead of the delay.
    var afterDestroy: Bool = false

    enum CodingKeys: String, CodingKey { case delay, afterDestroy }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        delay = try container.decodeIfPresent(Double.self, forKey: .delay) ?? 0.05
        afterDestroy = try container.decodeIfPresent(Bool.self, forKey: .afterDestroy) ?? false
    }
}

/// What the worker thread needs. `Sendable`: a token (Sendable) and a number.
final class WorkerJob: Sendable {
    let token: Token
    let context: PerformerContext
    let delay: Double
    let afterDestroy: Bool

    init(token: Token, context: PerformerContext, delay: Double, afterDestroy: Bool) {
        self.token = token
        self.context = context
        self.delay = delay
        self.afterDestroy = afterDestroy
    }

    func run() {
        if afterDestroy {
            for _ in 0..<10_000 where !context.isDestroyed { usleep(1_000) }
        } else if delay > 0 {
            usleep(useconds_t(min(delay, 10) * 1_000_000))
        }
        do {
            try token.terminate()
            context.log(.info, "worker terminated \(token): MOTION_OK")
        } catch {
            context.log(.info, "worker terminated \(token): \(error.code)")
        }
    }
}

final class WorkerPerformer: PluginPerformer {
    static let planTypes: [any PluginPlan.Type] = [TerminateOnWorker.self]

    private let context: PerformerContext

    init(context: PerformerContext) {
        self.context = context
    }

    func add(_ plan: any PluginPlan) throws {
        guard let work = plan as? TerminateOnWorker else {
            throw PluginError(.unknownPlanType, "WorkerPerformer performs only TerminateOnWorker.", field: "type")
        }
        guard work.delay.isFinite, work.delay >= 0 else {
            throw PluginError.invalidPlan(field: "delay", "is \(work.delay). To fix, pass a delay >= 0 in seconds.")
        }
        guard let token = context.generateToken() else { throw PluginError(.schedulerGone, "the host gave no token.") }
        let job = Unmanaged.passRetained(
            WorkerJob(token: token, context: context, delay: work.delay, afterDestroy: work.afterDestroy)
        ).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(
            &thread, nil,
            { raw in
                guard let raw else { return nil }
                Unmanaged<WorkerJob>.fromOpaque(raw).takeRetainedValue().run()
                return nil
            }, job)
        guard created == 0 else {
            Unmanaged<WorkerJob>.fromOpaque(job).release()
            try token.terminate()
            throw PluginError(.internal, "pthread_create failed with \(created).")
        }
        pthread_detach(thread)
    }
}
