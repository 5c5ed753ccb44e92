import Foundation
import MotionHost
import Testing

@Suite struct InvalidManifestPlanTypeTests {
    @Test func planTypeDeclaredOnlyByAnInvalidManifestIsExplainedByThatManifest() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("invalid-manifest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = #"""
            {"manifestVersion": 1, "id": "org.example.ramp", "name": "Ramp", "version": "1.0.0", "abiVersion": "1.0",
             "library": "libRamp.so", "performers": [{"class": "Ramp", "interface": "entry", "capabilities": [],
             "plans": [{"type": "Ramp", "fields": [{"name": "to", "type": "float"}]}]}]}
            """#
        try Data(manifest.utf8).write(to: folder.appendingPathComponent("ramp.json"))
        let catalog = PluginCatalog.discover(searchPath: PluginSearchPath(directories: [folder]))
        #expect(catalog.problems.count == 1)
        let reason = try #require(catalog.unavailability(ofPlanType: "Ramp"))
        #expect(reason.message.contains(#"plan type "Ramp" is declared only by"#))
        #expect(reason.message.contains("ramp.json, which is invalid ($.performers[0].plans[0].fields[0].type: expected one of"))
        // A plan type no manifest names at all keeps the usual message.
        #expect(catalog.unavailability(ofPlanType: "Other")?.message.hasPrefix("no manifest on the plugin search path declares") == true)
    }
}
