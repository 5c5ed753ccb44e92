// A plugin (through MotionPluginKit) that misuses the host: it terminates a token twice and emits a
// plan type no manifest declares. It does not crash: it records the statuses the host returned in
// properties of its target, so tests can check both sides.
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

@_cdecl("motion_plugin_entry")
public func motionPluginEntry(_ version: UInt32, _ host: UnsafePointer<motion_host_v1>?)
    -> UnsafePointer<motion_plugin_v1>?
{
    MotionPlugin(id: "org.motion.fixtures.token-misuse", performers: [MisusePerformer.self])
        .export(hostVersion: version, host: host)
}
