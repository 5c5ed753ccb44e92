import Foundation
import MotionCore
import MotionHost
import Testing

/// The README's worked plugins (Examples/Plugins): they build, load and perform, and the README shows
/// them as they are.
@Suite("The README's example plugins")
struct ExamplePluginTests {
    static func host() throws -> PluginHost {
        let manifests = try ["pulse.json", "setter.json"].map {
            try PluginManifest.load(contentsOf: packageRoot.appendingPathComponent("Examples/Plugins/\($0)"))
        }
        return PluginHost(catalog: PluginCatalog(plugins: manifests), loader: LibraryLoader(extraLibraryDirectories: [productsDirectory]))
    }

    @Test func swiftPulsePluginRaisesAndLowersItsPropertyHoldingAToken() throws {
        let scene = Scene()
        scene.addTarget("badge", properties: ["scale": 1])
        let scheduler = Scheduler(scene: scene, registry: try Self.host())
        try scheduler.commit(
            Transaction([.add(Plan(type: "Pulse", fields: ["property": "scale", "amplitude": 0.2, "duration": 1]), target: "badge")]))
        #expect(scheduler.isActive)
        var peak = 0.0
        for frame in 0...70 {
            scheduler.advanceFrame(to: Double(frame) / 60)
            peak = max(peak, scene.target("badge")?["scale"]?.scalar ?? 0)
        }
        #expect(abs(peak - 1.2) < 1e-9)  // at progress 0.5 (frame 30) the offset is the whole amplitude
        #expect(scene.target("badge")?["scale"] == 1)
        #expect(!scheduler.isActive)
    }

    @Test func cSetterPluginSetsTheProperty() throws {
        let scene = Scene()
        scene.addTarget("card", properties: ["opacity": 1])
        let scheduler = Scheduler(scene: scene, registry: try Self.host())
        try scheduler.commit(Transaction([.add(Plan(type: "Set", fields: ["property": "opacity", "value": 0.5]), target: "card")]))
        #expect(scene.target("card")?["opacity"] == 0.5)
    }

    @Test func theHostRejectsAPlanThatFailsTheManifestBeforeThePluginSeesIt() throws {
        let scheduler = Scheduler(scene: Scene(targets: ["card"]), registry: try Self.host())
        #expect {
            try scheduler.commit(Transaction([.add(Plan(type: "Pulse", fields: ["property": "scale", "duration": 0]), target: "card")]))
        } throws: { error in
            (error as? CommitError)?.description
                == #"operation 0, target "card", plan type "Pulse": field "duration": expected a number in 0.001...60 (s), found 0"#
        }
    }

    @Test(arguments: ["Examples/Plugins/Pulse/Pulse.swift", "Examples/Plugins/pulse.json", "Examples/Plugins/Setter/Setter.c"])
    func theREADMEShowsTheExampleAsItIs(file: String) throws {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let source = try String(contentsOf: packageRoot.appendingPathComponent(file), encoding: .utf8)
        #expect(readme.contains(source.trimmingCharacters(in: .whitespacesAndNewlines)), "README.md does not show \(file) as it is")
    }
}
