import Foundation
import Testing

@testable import MotionHost

/// The published JSON Schemas must describe exactly what the decoders accept.
@Suite struct ManifestSchemaTests {
    private func schema(_ name: String) throws -> [String: Any] {
        let url = Fixtures.packageRoot.appendingPathComponent("manifests/schema/\(name)")
        return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    private func keys(_ object: [String: Any]?) -> Set<String> {
        Set((object?["properties"] as? [String: Any])?.keys.map { $0 } ?? [])
    }

    private func definition(_ schema: [String: Any], _ name: String) -> [String: Any]? {
        (schema["$defs"] as? [String: Any])?[name] as? [String: Any]
    }

    private func enumValues(_ object: Any?) -> Set<String> {
        Set(((object as? [String: Any])?["enum"] as? [String]) ?? [])
    }

    @Test func manifestSchemaDeclaresTheDecodersFields() throws {
        let s = try schema("manifest.schema.json")
        #expect(s["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
        #expect(keys(s) == Set(ManifestDecoder.manifestKeys))
        #expect(keys(definition(s, "performer")) == Set(ManifestDecoder.performerKeys))
        #expect(keys(definition(s, "plan")) == Set(ManifestDecoder.planKeys))
        #expect(keys(definition(s, "field")) == Set(ManifestDecoder.fieldKeys))
        #expect(keys(definition(s, "call")) == Set(ManifestDecoder.callKeys))
        let performer = try #require(definition(s, "performer")?["properties"] as? [String: Any])
        #expect(keys(performer["functions"] as? [String: Any]) == Set(ManifestDecoder.functionsKeys))
        #expect(enumValues(performer["interface"]) == Set(PerformerManifest.Interface.allCases.map(\.rawValue)))
        let capabilities = (performer["capabilities"] as? [String: Any])?["items"]
        #expect(enumValues(capabilities) == Set(PerformerManifest.Capability.allCases.map(\.rawValue)))
        let field = try #require(definition(s, "field")?["properties"] as? [String: Any])
        #expect(enumValues(field["type"]) == Set(FieldType.allCases.map(\.rawValue)))
    }

    @Test func hostConfigurationSchemaDeclaresTheDecodersFields() throws {
        let s = try schema("host-configuration.schema.json")
        #expect(
            keys(s) == [
                "configurationVersion", "searchPaths", "libraryPaths", "disabledPlugins", "planTypeOwners", "pins",
                "pluginManifests", "requirePins", "plugins",
            ])
        // A plugin's settings (PluginIsolation): their keys and the values of the two choices.
        let properties = try #require(s["properties"] as? [String: Any])
        let settings = try #require((properties["plugins"] as? [String: Any])?["additionalProperties"] as? [String: Any])
        #expect(keys(settings) == ["isolation", "memoryLimit", "onCrash", "maxRestarts", "group"])
        let fields = try #require(settings["properties"] as? [String: Any])
        #expect(enumValues(fields["isolation"]) == Set(PluginIsolation.Mode.allCases.map(\.rawValue)))
        #expect(enumValues(fields["onCrash"]) == Set(PluginIsolation.CrashPolicy.allCases.map(\.rawValue)))
    }
}
