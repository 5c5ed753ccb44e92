import Foundation
import Testing

/// Small things a newcomer tripped on (issue 15), each through the built binaries.
@Suite struct NewcomerFindingsTests {
    private func temporaryPluginFolder(manifest: String) throws -> URL {
        let folder = try MotionHost.temporaryFolder()
        try Data(manifest.utf8).write(to: folder.appendingPathComponent("long.json"))
        return folder
    }

    @Test func describeAlignsEveryFieldToTheLongestName() throws {
        let folder = try temporaryPluginFolder(
            manifest: #"""
                {"manifestVersion": 1, "id": "org.example.long", "name": "Long", "version": "1.0.0", "abiVersion": "1.0",
                 "library": "libLong.so", "performers": [{"class": "Long", "interface": "entry", "plans": [{"type": "Long",
                 "fields": [{"name": "x", "type": "number", "default": 1, "summary": "Short."},
                            {"name": "aVeryLongFieldName", "type": "number", "default": 2, "summary": "Long."}]}]}]}
                """#)
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try MotionHost.run(["plugins", "describe", "Long", "--plugin-path", folder.path])
        #expect(result.status == 0)
        let lines = result.outputLines.drop { $0 != "FIELDS:" }.dropFirst()
        #expect(
            Array(lines) == [
                "  x                   a number; default 1",
                "                      Short.",
                "  aVeryLongFieldName  a number; default 2",
                "                      Long.",
            ])
    }

    @Test func aFileGivenAsThePluginPathIsNamedAsAFile() throws {
        let root = MotionHost.fixtures.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let file = try MotionHost.run(["plugins", "list", "--plugin-path", "manifests/tweenkit.json"], in: root)
        #expect(file.status == 1)
        #expect(
            file.errorLines == [
                "error: manifests/tweenkit.json: --plugin-path: a file, not a folder; it takes the folder that holds the manifests. To fix, pass --plugin-path manifests"
            ])
        let missing = try MotionHost.run(["plugins", "list", "--plugin-path", "plugins"], in: root)
        #expect(
            missing.errorLines == [
                "error: plugins: --plugin-path: no such folder. The sample plugins' manifests are in manifests/ here: pass --plugin-path manifests"
            ])
    }

    @Test func aPluginWhoseLibraryIsMissingIsListedUnderTheManifestsLibraryName() throws {
        let folder = try temporaryPluginFolder(
            manifest: #"""
                {"manifestVersion": 1, "id": "org.example.long", "name": "Long", "version": "1.0.0", "abiVersion": "1.0",
                 "library": "lib/libLong.so", "performers": [{"class": "Long", "interface": "entry", "plans": [{"type": "Long"}]}]}
                """#)
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try MotionHost.run(["plugins", "list", "--plugin-path", folder.path])
        #expect(result.status == 1)
        let row = result.outputLines.first { $0.hasPrefix("org.example.long") }
        let columns = row?.split(separator: " ", omittingEmptySubsequences: true).prefix(4).map(String.init)
        #expect(columns == ["org.example.long", "1.0.0", "lib/libLong.so", "Long"])
        #expect(row?.contains("library unavailable: the library file was not found; looked in \(folder.path)") == true)
    }

    @Test func aLibraryNameWithACombiningMarkIsNotCutInTheTable() throws {
        // "li\u{308}b" is 3 Characters but 4 UTF-16 units: padding the column to its width in Characters must
        // not cut the mark off, and the next column starts where the others' do.
        let library = "lib/li\u{308}bLong.so"
        let folder = try temporaryPluginFolder(
            manifest: #"""
                {"manifestVersion": 1, "id": "org.example.long", "name": "Long", "version": "1.0.0", "abiVersion": "1.0",
                 "library": "\#(library)", "performers": [{"class": "Long", "interface": "entry", "plans": [{"type": "Long"}]}]}
                """#)
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try MotionHost.run(["plugins", "list", "--plugin-path", folder.path])
        let header = try #require(result.outputLines.first { $0.hasPrefix("ID") })
        let row = try #require(result.outputLines.first { $0.hasPrefix("org.example.long") })
        #expect(row.contains(library + " "))
        let planColumn = try #require(header.range(of: "PLAN TYPES"))
        #expect(
            row.distance(from: row.startIndex, to: try #require(row.range(of: "  Long  ")).lowerBound) + 2
                == header.distance(from: header.startIndex, to: planColumn.lowerBound))
    }

    @Test func listWithNothingValidFails() throws {
        let empty = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: empty) }
        let environment = ["MOTION_PLUGIN_PATH": nil, "XDG_DATA_HOME": empty.path, "XDG_CONFIG_HOME": empty.path] as [String: String?]
        let none = try MotionHost.run(["plugins", "list", "--plugin-path", empty.path], environment: environment)
        #expect(none.status == 1)
        #expect(none.outputLines.first?.hasPrefix("No plugins found. Searched: \(empty.path)") == true)
        try Data(#"{"manifestVersion": 1, "id": "org.example.broken"}"#.utf8).write(to: empty.appendingPathComponent("broken.json"))
        let invalid = try MotionHost.run(["plugins", "list", "--plugin-path", empty.path], environment: environment)
        #expect(invalid.status == 1)
        #expect(invalid.outputLines.first?.hasPrefix("invalid: \(empty.appendingPathComponent("broken.json").path)") == true)
        #expect(invalid.errorLines.last?.hasPrefix("error: no valid plugin on the search path") == true)
    }

    @Test func aReferenceFrameGivenByItsBeginningIsSuggested() throws {
        let result = try MotionHost.run(["device-motion", "x.csv", "--reference-frame", "xMagneticNorth"])
        #expect(result.status == 64)
        #expect(
            result.errorLines.first
                == "error: The value 'xMagneticNorth' is invalid for '--reference-frame <frame>'. Did you mean 'xMagneticNorthZVertical'?"
        )
    }

    @Test func motionBenchmarkRefusesAnUnknownArgumentAsAUsageError() throws {
        let benchmark = MotionHost.executable.deletingLastPathComponent().appendingPathComponent("motion-benchmark")
        let process = Process()
        process.executableURL = benchmark
        process.arguments = ["--bogus"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 64)
    }
}

@Suite struct PartialRecordingTests {
    /// The iPhone 4S CoreMotion-Data-Logger pair in ../shared/data (user acceleration and rotation rate only).
    private let logs = MotionHost.fixtures.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/data/iphone4s-coremotion-logger").path

    @Test func aLoggerPairPrintsTheFieldsItHasAndSaysSo() throws {
        let result = try MotionHost.run(["device-motion", logs])
        #expect(result.status == 0)
        #expect(result.outputLines.count == 3820)
        #expect(
            result.outputLines.first
                == #"{"timestamp":38672.799784,"userAcceleration":{"x":-0.065686,"y":-0.046375,"z":0.056379},"rotationRate":{"x":-0.095856,"y":0.135729,"z":0.172877}}"#
        )
        #expect(
            result.errorLines.first?.hasSuffix(
                "printing the fields it has (timestamp, userAcceleration, rotationRate), without attitude or gravity") == true)
        let framed = try MotionHost.run(["device-motion", logs, "--reference-frame", "xArbitraryZVertical"])
        #expect(framed.status == 1)
        #expect(framed.errorLines.first?.contains("`motion-host device-motion` without --reference-frame prints it") == true)
    }
}

@Suite struct CFramesExampleTests {
    private let root = MotionHost.fixtures.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func theCFaderFadesFrameByFrameHoldingATokenUntilItArrives() throws {
        let result = try MotionHost.run(["run", "Examples/fade-to.json", "--plugin-path", "Examples/Plugins"], in: root)
        #expect(result.status == 0)
        let lines = try result.jsonLines()
        func opacity(atFrame frame: Int) -> Double? {
            let line = lines.first { $0["frame"] as? Int == frame && $0["changes"] != nil }
            return ((line?["changes"] as? [String: Any])?["card"] as? [String: Any])?["opacity"] as? Double
        }
        #expect(opacity(atFrame: 15) == 0.2)  // 0.25 s at 60 fps: arrived, exactly
        #expect(opacity(atFrame: 16) == nil)  // idle: nothing changes until the second plan
        // The second FadeTo takes the manifest's default duration, 0.5 s: it starts at frame 30, ends at 60.
        let activity = lines.compactMap { line in (line["activity"] as? String).map { ($0, line["frame"] as? Int ?? -1) } }
        #expect(activity.map(\.0) == ["active", "idle", "active", "idle"])
        #expect(activity.map(\.1) == [0, 15, 30, 60])
        let summary = try #require(lines.last?["summary"] as? [String: Any])
        #expect(summary["stoppedBecause"] as? String == "idle")
        #expect(((summary["finalValues"] as? [String: Any])?["card"] as? [String: Any])?["opacity"] as? Double == 1)
    }
}

@Suite struct PropertyNameTests {
    private func run(_ scene: String) throws -> MotionHostResult {
        let folder = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("scene.json")
        try Data(scene.utf8).write(to: file)
        let root = MotionHost.fixtures.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try MotionHost.run(["run", file.path, "--plugin-path", "manifests"], in: root)
    }

    private func scene(units: String = "{}", plan: String) -> String {
        #"{"sceneVersion": 1, "duration": 0.1, "units": \#(units), "targets": [{"name": "card", "properties": {"position": [0, 0], "opacity": 1}}], "transactions": [{"at": 0, "operations": [{"op": "add", "target": "card", "plan": \#(plan)}]}]}"#
    }

    @Test func aMisspeltPropertyInAPlanFailsTheCommitNamingTheNearestOne() throws {
        let result = try run(scene(plan: #"{"type": "Tween", "property": "postion", "to": [1, 2], "duration": 0.05}"#))
        #expect(result.status == 1)
        #expect(
            result.errorLines.first?.hasSuffix(
                #"operation 0, target "card", plan type "Tween": field "property": target "card" has no property "postion" (did you mean "position"?); its properties: opacity, position. To fix, name one of them, or give the target that property in the scene"#
            ) == true, "\(result.standardError)")
        #expect(!result.standardOutput.contains(#""changes""#))  // no such property was created
    }

    @Test func aVectorOfAnotherLengthThanThePropertyIsAnError() throws {
        let result = try run(scene(plan: #"{"type": "Tween", "property": "position", "to": [1, 2, 3], "duration": 0.05}"#))
        #expect(result.status == 1)
        #expect(result.errorLines.first?.hasSuffix("to: has 3 components but position has 2. To fix, give it 2") == true, "\(result.standardError)")
        #expect(!result.standardOutput.contains(#""changes""#))  // the property kept its shape: nothing was set
    }

    @Test func aUnitForAPropertyNoTargetHasIsATypo() throws {
        let result = try run(scene(units: #"{"postion": "pt"}"#, plan: #"{"type": "Tween", "property": "opacity", "to": [0]}"#))
        #expect(result.status == 1)
        #expect(
            result.errorLines.first?.hasSuffix(
                #"$.units.postion: expected the name of a property a target declares (opacity, position); found "postion", which no target has (did you mean "position"?)"#
            ) == true, "\(result.standardError)")
    }
}
