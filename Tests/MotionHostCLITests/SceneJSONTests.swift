import Foundation
import Testing

/// Scenes through the built `motion-host`: numbers as written, duplicate keys refused.
@Suite("Scene JSON as written")
struct SceneJSONTests {
    func run(_ scene: String) throws -> MotionHostResult {
        let folder = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(scene.utf8).write(to: folder.appendingPathComponent("scene.json"))
        return try MotionHost.runScene(["scene.json"], in: folder)
    }

    @Test func keyWrittenTwiceFailsTheSceneNamingTheKeyAndBothPlaces() throws {
        let result = try run(
            """
            {"sceneVersion": 1, "frameRate": 10,
             "duration":1,"duration":3,
             "targets": [], "transactions": []}
            """)
        #expect(result.status == 1)
        #expect(result.standardOutput.isEmpty)
        #expect(
            result.errorLines == [
                "error: scene.json: invalid JSON at line 2, column 15: duplicate key \"duration\" (first at line 2, column 2). To fix, keep one of them"
            ], "\(result.standardError)")
    }

    @Test func trailingCommaFailsTheSceneAtTheComma() throws {
        let result = try run(#"{"sceneVersion": 1, "duration": 1, "targets": [], "transactions": [],}"#)
        #expect(result.status == 1)
        #expect(
            result.errorLines == ["error: scene.json: invalid JSON at line 1, column 69: trailing comma after the last member of an object"],
            "\(result.standardError)")
    }

    @Test func seventeenDigitNumbersReachTheTimelineAsWritten() throws {
        let result = try run(
            """
            {"sceneVersion": 1, "frameRate": 10, "duration": 0,
             "targets": [{"name": "card", "properties": {"opacity": 1.0000000000000002}}],
             "transactions": [{"at": 0, "operations": [
               {"op": "add", "target": "card", "plan": {"type": "SetValue", "property": "opacity", "value": 0.30000000000000004}}]}]}
            """)
        #expect(result.status == 0, "\(result.standardError)")
        // The timeline's text, not a Foundation parse of it (which would misread these very numbers).
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.first?.contains(#""opacity":1.0000000000000002"#) == true, "\(lines.first ?? "")")
        #expect(lines.first { $0.contains(#""commit":0"#) }?.contains(#""value":0.30000000000000004"#) == true, "\(result.standardOutput)")
        #expect(lines.first { $0.contains(#""changes""#) }?.contains(#""opacity":0.30000000000000004"#) == true, "\(result.standardOutput)")
        #expect(lines.last?.contains(#""opacity":0.30000000000000004"#) == true, "\(lines.last ?? "")")
    }
}
