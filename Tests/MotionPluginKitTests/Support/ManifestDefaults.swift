import Foundation

/// The fake host fills a plan's absent fields from the manifest's `default`s before the plugin sees it, as
/// the real host does (MotionHost's plan validation): a plugin reads its defaults from the manifest, the
/// one place they are written, and not from its own code.
///
/// The manifests are those of the repository (`manifests/`, `Examples/Plugins/`, `Tests/Fixtures/plugins/`),
/// found by plugin id.
enum ManifestDefaults {
    /// Plugin id → plan type → field name → default value (as `JSONSerialization` gives it). Never mutated
    /// after it is built (`Any` is not `Sendable`, hence the `nonisolated(unsafe)`).
    nonisolated(unsafe) static let byPlugin: [String: [String: [String: Any]]] = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        var defaults: [String: [String: [String: Any]]] = [:]
        for folder in ["manifests", "Examples/Plugins", "Tests/Fixtures/plugins"] {
            let directory = root.appendingPathComponent(folder)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            for name in names where name.hasSuffix(".json") {
                guard let data = try? Data(contentsOf: directory.appendingPathComponent(name)),
                    let manifest = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                    let id = manifest["id"] as? String, let performers = manifest["performers"] as? [[String: Any]]
                else { continue }
                for performer in performers {
                    for plan in performer["plans"] as? [[String: Any]] ?? [] {
                        guard let type = plan["type"] as? String else { continue }
                        for field in plan["fields"] as? [[String: Any]] ?? [] {
                            guard let fieldName = field["name"] as? String, let value = field["default"] else { continue }
                            defaults[id, default: [:]][type, default: [:]][fieldName] = value
                        }
                    }
                }
            }
        }
        return defaults
    }()

    /// `json` with the absent fields of its plan type filled from the manifest of plugin `id`; the text as
    /// it is when it is not a plan object or nothing is filled in (so malformed plans reach the plugin as
    /// written).
    static func filling(_ json: String, pluginID id: String) -> String {
        guard var plan = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any],
            let type = plan["type"] as? String, let defaults = byPlugin[id]?[type]
        else { return json }
        let absent = defaults.filter { plan[$0.key] == nil }
        guard !absent.isEmpty else { return json }
        for (name, value) in absent { plan[name] = value }
        guard let data = try? JSONSerialization.data(withJSONObject: plan, options: [.sortedKeys]) else { return json }
        return String(decoding: data, as: UTF8.self)
    }
}
