import CMotionABI
import Foundation

/// A performer a fake router hands plans to. `@unchecked Sendable`: the performer pointer is only
/// used on the test's thread, as the scheduler thread would use it.
struct Route: @unchecked Sendable {
    let plugin: Plugin
    let performer: OpaquePointer
}

/// A router that performs each `add` operation of an emitted transaction synchronously on the
/// performer registered for its plan type, as a host does (depth-first, before emit returns).
/// Plan types without a route fail with MOTION_ERR_UNKNOWN_PLAN_TYPE, as for a type no manifest declares.
func addRouter(_ routes: [String: Route]) -> FakeContext.Router {
    { json in
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
            let operations = object["operations"] as? [[String: Any]]
        else { return (MOTION_ERR_EMISSION_FAILED, "the transaction is not {\"operations\": [...]}") }
        for operation in operations where operation["op"] as? String == "add" {
            guard let plan = operation["plan"] as? [String: Any], let type = plan["type"] as? String else {
                return (MOTION_ERR_EMISSION_FAILED, "an add operation has no plan type")
            }
            guard let route = routes[type] else {
                return (MOTION_ERR_UNKNOWN_PLAN_TYPE, "no manifest declares plan type \"\(type)\"")
            }
            guard let data = try? JSONSerialization.data(withJSONObject: plan) else {
                return (MOTION_ERR_EMISSION_FAILED, "cannot re-encode the plan")
            }
            let (status, message) = route.plugin.add(String(decoding: data, as: UTF8.self), to: route.performer)
            guard status == MOTION_OK else { return (status, message) }
        }
        return (MOTION_OK, "")
    }
}

/// The operations of an emitted transaction, decoded.
func operations(of json: String) -> [[String: Any]] {
    guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return [] }
    return object["operations"] as? [[String: Any]] ?? []
}
