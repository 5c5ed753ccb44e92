import Foundation
import MotionCore
import Testing

@testable import MotionHost

/// A plan checked at commit by the plugin host: validated against its manifest with defaults filled in, and each
/// field of type `property` checked against the target, in one pass. The manifest's library does not exist, so a
/// plan that passes every check fails afterwards, loading it: the error's code tells which happened.
@Suite struct PlanPreparationTests {
    private static let manifest = try! PluginManifest.decode(
        Data(
            #"""
            {"manifestVersion": 1, "id": "org.test.preparation", "name": "Preparation", "version": "1.0.0", "abiVersion": "1.0",
             "library": "libabsent-preparation.so",
             "performers": [{"class": "Mover", "interface": "entry", "capabilities": [], "plans": [{"type": "Move", "fields": [
               {"name": "property", "type": "property", "default": "position"},
               {"name": "to", "type": "number", "required": true},
               {"name": "speed", "type": "number", "default": 2, "minimum": 0}]}]}]}
            """#.utf8), url: URL(fileURLWithPath: "/preparation/move.json"))

    /// Commits one `Move` with `fields` to `target` of `scene` through a new scheduler over `host`.
    private func commit(_ fields: [String: JSONValue], to target: String, of scene: Scene, host: PluginHost) -> CommitError? {
        let scheduler = Scheduler(scene: scene, registry: host)
        do {
            try scheduler.commit(Transaction([.add(Plan(type: "Move", fields: fields), target: TargetID(target))]))
            return nil
        } catch {
            return error
        }
    }

    private func makeHost() -> PluginHost {
        PluginHost(catalog: PluginCatalog(plugins: [Self.manifest]), loader: LibraryLoader())
    }

    @Test func aPropertyFieldLeftOutIsCheckedWithItsDefault() throws {
        let scene = Scene()
        scene.addTarget("card", properties: ["opacity": 1])
        let error = try #require(commit(["to": 1], to: "card", of: scene, host: makeHost()))
        #expect(error.code == .invalidPlan)
        #expect(
            error.message.hasPrefix(
                #"field "property": target "card" has no property "position"; its properties: opacity. To fix, name one of them"#),
            "\(error)")
        #expect(error.planType == "Move")
    }

    @Test func aBadFieldIsReportedBeforeAMissingProperty() throws {
        // Validation first, as before the checks were merged: the speed, not the property.
        let scene = Scene()
        scene.addTarget("card", properties: ["opacity": 1])
        let error = try #require(commit(["to": 1, "property": "postion", "speed": -1], to: "card", of: scene, host: makeHost()))
        #expect(error.code == .invalidPlan)
        #expect(error.message == #"field "speed": expected a number >= 0, found -1"#)
    }

    @Test func thePropertyCheckFollowsEachTargetAndScene() throws {
        // One host for three scenes in which "x" has different ids, or none, or no value on the target: the check
        // must not carry one scene's answer over to another.
        let host = makeHost()
        let first = Scene()
        first.addTarget("card", properties: ["x": 0])
        let second = Scene()
        second.addTarget("card", properties: ["a": 0, "x": 0])
        let third = Scene()
        third.addTarget("card", properties: ["a": 0])
        third.addTarget("other", properties: ["x": 0])
        for scene in [first, second, first] {
            let passed = try #require(commit(["to": 1, "property": "x"], to: "card", of: scene, host: host))
            #expect(passed.code != .invalidPlan, "the property check refused a target that has x: \(passed)")
        }
        let refused = try #require(commit(["to": 1, "property": "x"], to: "card", of: third, host: host))
        #expect(refused.code == .invalidPlan)
        #expect(refused.message.hasPrefix(#"field "property": target "card" has no property "x"; its properties: a."#), "\(refused)")
        let other = try #require(commit(["to": 1, "property": "x"], to: "other", of: third, host: host))
        #expect(other.code != .invalidPlan, "\(other)")
    }
}
