import CMotionABI
import Foundation
import MotionCore
import Testing

@testable import MotionHost

/// Manifests, configuration and plan fields are read by the one parser: numbers as written, RFC 8259
/// strictly, duplicate keys refused with their line and column.
@Suite struct JSONInputTests {
    @Test func manifestNumberIsReadAsWritten() throws {
        let folder = TemporaryFolder()
        let durationDefault: [Step] = [
            .key("performers"), .index(0), .key("plans"), .index(0), .key("fields"), .index(2), .key("default"),
        ]
        let file = folder.write("tween.json", Fixtures.tweenManifest().setting(durationDefault, to: 0.30000000000000004))
        let manifest = try PluginManifest.load(contentsOf: file)
        let field = try #require(manifest.performers.first?.plans.first?.fields.first { $0.name == "duration" })
        #expect(field.defaultValue?.number?.bitPattern == (0.30000000000000004).bitPattern, "\(String(describing: field.defaultValue))")
    }

    @Test func manifestWithADuplicateKeyIsInvalidJSONNamingTheKeyAndBothPlaces() throws {
        let folder = TemporaryFolder()
        let text = Fixtures.text(Fixtures.tweenManifest())
        // The pretty-printed manifest has "id" on a line of its own: write it twice.
        let idLine = try #require(text.split(separator: "\n").first { $0.contains("\"id\" : ") })
        let file = folder.write("twice.json", text.replacingOccurrences(of: idLine, with: idLine + "\n  \"id\" : \"org.example.other\","))
        let error = try #require(throws: ManifestError.self) { try PluginManifest.load(contentsOf: file) }
        #expect(error.code == .invalidJSON)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let line = try #require(lines.firstIndex { $0.contains("\"id\" : ") }) + 1
        #expect(
            error.message
                == "invalid JSON at line \(line + 1), column 3: duplicate key \"id\" (first at line \(line), column 3). To fix, keep one of them"
        )
    }

    @Test(arguments: [
        ("{\n  \"pins\": {},\n  \"pins\": {}\n}", "invalid JSON at line 3, column 3: duplicate key \"pins\" (first at line 2, column 3)"),
        ("{\n  \"libraryPaths\": [\"/usr/lib\",]\n}", "invalid JSON at line 2, column 30: trailing comma after the last element of an array"),
    ])
    func configurationIsReadStrictly(text: String, message: String) throws {
        let folder = TemporaryFolder()
        let file = folder.write("host.json", text)
        let error = try #require(throws: ManifestError.self) { try HostConfiguration.load(contentsOf: file) }
        #expect(error.code == .invalidJSON)
        #expect(error.message.hasPrefix(message), "\(error.message)")
    }

    @Test func planNumberOfAPlanNotInFlightIsReadAsWritten() {
        let host = HostInterface.table.pointee
        let plan = #"{"type":"T","x":0.30000000000000004,"v":[1.0000000000000002]}"#
        var x = 0.0
        var v = 0.0
        plan.withCString { json in
            #expect(host.plan_number(json, strlen(json), "x", &x) == MOTION_OK)
            #expect(host.plan_number(json, strlen(json), "v[0]", &v) == MOTION_OK)
        }
        #expect(x.bitPattern == (0.30000000000000004).bitPattern, "\(x)")
        #expect(v.bitPattern == (1.0000000000000002).bitPattern, "\(v)")
    }
}
