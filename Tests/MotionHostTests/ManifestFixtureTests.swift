import Foundation
import MotionCore
import Testing

@testable import MotionHost

// Fixtures shared by the MotionHost tests: temporary folders, manifest templates as JSONValue, JSON
// path edits, and a tiny shared library compiled with `cc` at test time.

/// A temporary folder (mode 0700), removed when the value is released.
final class TemporaryFolder {
    let url: URL
    var path: String { url.path }

    init() {
        var template = Array((NSTemporaryDirectory() + "/motionhost-test-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let path = mkdtemp(buffer.baseAddress!) else { return nil }
            return String(cString: path)
        }
        precondition(made != nil, "mkdtemp failed")
        url = URL(fileURLWithPath: made!, isDirectory: true).standardizedFileURL
    }

    deinit {
        // Make everything removable again (some tests chmod files or folders).
        _ = try? FileManager.default.subpathsOfDirectory(atPath: path).forEach {
            chmod(path + "/" + $0, 0o700)
        }
        try? FileManager.default.removeItem(at: url)
    }

    /// A sub-folder (created, mode 0755).
    @discardableResult
    func folder(_ name: String) -> URL {
        let folder = url.appendingPathComponent(name, isDirectory: true)
        try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        chmod(folder.path, 0o755)
        return folder
    }

    /// Writes a file (mode 0644) and returns its URL.
    @discardableResult
    func write(_ name: String, _ text: String) -> URL {
        let file = url.appendingPathComponent(name)
        try! FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try! Data(text.utf8).write(to: file)
        chmod(file.path, 0o644)
        return file
    }

    /// Writes a manifest as JSON.
    @discardableResult
    func write(_ name: String, _ json: JSONValue) -> URL {
        write(name, Fixtures.text(json))
    }
}

/// A step of a JSON path in a fixture edit.
enum Step: Sendable, CustomStringConvertible {
    case key(String)
    case index(Int)

    var description: String {
        switch self {
        case .key(let k): ".\(k)"
        case .index(let i): "[\(i)]"
        }
    }
}

extension JSONValue {
    /// This value with the value at `path` replaced (or removed when `newValue` is nil).
    func setting(_ path: [Step], to newValue: JSONValue?) -> JSONValue {
        guard let first = path.first else { return newValue ?? .null }
        let rest = Array(path.dropFirst())
        switch (self, first) {
        case (.object(var members), .key(let key)):
            if rest.isEmpty && newValue == nil {
                members.removeValue(forKey: key)
            } else {
                members[key] = (members[key] ?? .object([:])).setting(rest, to: newValue)
            }
            return .object(members)
        case (.array(var items), .index(let i)):
            if rest.isEmpty && newValue == nil {
                items.remove(at: i)
            } else {
                items[i] = items[i].setting(rest, to: newValue)
            }
            return .array(items)
        default:
            fatalError("fixture path \(path) does not fit \(self)")
        }
    }
}

enum Fixtures {
    static func text(_ json: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try! encoder.encode(json), as: UTF8.self)
    }

    /// A valid manifest with an "entry" performer declaring Tween and FadeIn.
    static func tweenManifest(
        id: String = "org.example.tween", library: String = "libtween.so", planTypes: [String] = ["Tween", "FadeIn"]
    ) -> JSONValue {
        var plans: [JSONValue] = []
        for type in planTypes {
            if type == "Tween" {
                plans.append(tweenPlan)
            } else {
                plans.append([
                    "type": .string(type), "summary": "Fades.",
                    "fields": [["name": "duration", "type": "number", "unit": "s", "default": 0.2, "minimum": 0]],
                ])
            }
        }
        return [
            "manifestVersion": 1, "id": .string(id), "name": "Tween", "version": "1.0.0", "abiVersion": "1.0",
            "library": .string(library), "summary": "Tweens properties.",
            "performers": [
                [
                    "class": "TweenPerformer", "interface": "entry", "capabilities": ["frames", "tokens"],
                    "plans": .array(plans),
                ]
            ],
        ]
    }

    static let tweenPlan: JSONValue = [
        "type": "Tween", "summary": "Animates one property to a value over a duration.",
        "fields": [
            ["name": "property", "type": "string", "required": true, "summary": "The property."],
            ["name": "to", "type": "vector", "required": true, "minItems": 1, "maxItems": 4],
            ["name": "duration", "type": "number", "unit": "s", "default": 0.3, "minimum": 0, "maximum": 3600],
            [
                "name": "timing", "type": "string", "enum": ["linear", "easeIn", "easeOut", "easeInOut"],
                "default": "easeInOut",
            ],
            ["name": "repeats", "type": "integer", "default": 1, "minimum": 1, "maximum": 100],
            ["name": "transaction", "type": "object"],
        ],
    ]

    /// A valid manifest with a declarative "functions" performer whose call covers every C type.
    static func blinkManifest(id: String = "org.example.blink") -> JSONValue {
        [
            "manifestVersion": 1, "id": .string(id), "name": "Blink", "version": "0.1.0", "abiVersion": "1.0",
            "library": "libblink.so",
            "performers": [
                [
                    "class": "Blinker", "interface": "functions", "capabilities": ["frames"],
                    "functions": ["create": "blink_create", "destroy": "blink_destroy", "update": "blink_update"],
                    "plans": [
                        [
                            "type": "Blink",
                            "fields": [
                                ["name": "period", "type": "number", "unit": "s", "required": true, "minimum": 0],
                                ["name": "count", "type": "integer", "default": 3],
                                ["name": "visible", "type": "boolean", "default": true],
                                ["name": "label", "type": "string", "default": "x"],
                            ],
                            "call": [
                                "symbol": "blink_add",
                                "arguments": [
                                    ["field": "period", "type": "double"], ["field": "count", "type": "int64"],
                                    ["field": "visible", "type": "bool"], ["field": "label", "type": "string"],
                                ],
                            ],
                        ]
                    ],
                ]
            ],
        ]
    }

    /// The Tween plan declaration, decoded from ``tweenManifest``.
    static let tweenDeclaration: PlanManifest = {
        let manifest = try! PluginManifest.decode(
            Data(text(tweenManifest()).utf8), url: URL(fileURLWithPath: "/t.json"))
        return manifest.performers[0].plans[0]
    }()

    /// A shared library built once per test run from a tiny C file: exports `fixture_answer() -> 42`.
    static let sharedLibrary: [UInt8] = {
        let folder = TemporaryFolder()
        let source = folder.write("fixture.c", "int fixture_answer(void) { return 42; }\n")
        let output = folder.url.appendingPathComponent("libfixture.so")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["cc", "-shared", "-fPIC", "-o", output.path, source.path]
        try! process.run()
        process.waitUntilExit()
        precondition(process.terminationStatus == 0, "cc failed to build the fixture library")
        return Array(try! Data(contentsOf: output))
    }()

    /// Writes the fixture library into a folder (mode 0755).
    @discardableResult
    static func installLibrary(named name: String = "libfixture.so", in folder: URL) -> URL {
        let file = folder.appendingPathComponent(name)
        try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try! Data(sharedLibrary).write(to: file)
        chmod(file.path, 0o755)
        return file
    }

    /// The package root, found from this file's path (for data such as `manifests/`).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
}

@Suite struct ManifestFixtureTests {
    @Test func fixtureManifestsAreValid() throws {
        let folder = TemporaryFolder()
        let tween = try PluginManifest.load(contentsOf: folder.write("tween.json", Fixtures.tweenManifest()))
        #expect(tween.planTypes == ["Tween", "FadeIn"])
        let blink = try PluginManifest.load(contentsOf: folder.write("blink.json", Fixtures.blinkManifest()))
        #expect(blink.performers[0].plans[0].call?.arguments.map(\.ctype) == [.double, .int64, .bool, .string])
    }

    @Test func jsonPathEditsReplaceAndRemove() {
        let edited = Fixtures.tweenManifest().setting([.key("id")], to: "org.x.y").setting([.key("summary")], to: nil)
        #expect(edited.object?["id"] == "org.x.y")
        #expect(edited.object?["summary"] == nil)
    }
}
