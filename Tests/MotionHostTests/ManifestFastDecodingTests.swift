import Foundation
import MotionCore
import Testing

@testable import MotionHost

/// The fast manifest reader (``PluginManifest/fastDecoded(_:url:)``, straight from simdjson's items) against
/// the strict path (``PluginManifest/strictlyDecoded(_:url:)``, through `JSONValue` with JSON paths): on
/// every manifest the fast reader accepts, the strict path gives the same manifest; on every manifest the
/// strict path refuses, the fast reader gives nothing, so the error comes from the strict path word for
/// word.
@Suite struct ManifestFastDecodingTests {
    /// Every manifest of the repository: the samples, the examples' and the test fixtures, and the
    /// templates the other suites edit.
    static let fixtures: [(name: String, bytes: [UInt8])] = {
        var found: [(String, [UInt8])] = []
        let root = Fixtures.packageRoot
        for folder in ["manifests", "Examples/Plugins", "Tests/Fixtures"] {
            let base = root.appendingPathComponent(folder)
            let enumerator = FileManager.default.enumerator(atPath: base.path)
            while let relative = enumerator?.nextObject() as? String {
                guard relative.hasSuffix(".json"), !relative.hasPrefix("schema/") else { continue }
                let bytes = Array(try! Data(contentsOf: base.appendingPathComponent(relative)))
                // Only manifests: other JSON files beside them (scenes) have no manifestVersion.
                guard case .object(let object)? = try? JSONParser.parse(bytes), object["manifestVersion"] != nil
                else { continue }
                found.append((folder + "/" + relative, bytes))
            }
        }
        found.append(("Fixtures.tweenManifest", Array(Fixtures.text(Fixtures.tweenManifest()).utf8)))
        found.append(("Fixtures.blinkManifest", Array(Fixtures.text(Fixtures.blinkManifest()).utf8)))
        return found.sorted { $0.0 < $1.0 }
    }()

    static let url = URL(fileURLWithPath: "/fixtures/manifest.json")

    /// What each path makes of `bytes`: the fast reader's manifest (or nil), the strict path's result.
    private static func both(_ bytes: [UInt8]) -> (fast: PluginManifest?, strict: Result<PluginManifest, ManifestError>) {
        let fast = bytes.withUnsafeBytes { PluginManifest.fastDecoded($0, url: url) }
        let strict = Result { () throws(ManifestError) in try PluginManifest.strictlyDecoded(Data(bytes), url: url) }
        return (fast, strict)
    }

    @Test func everyFixtureManifestIsFound() {
        // The sample manifests, one example, and the fixtures whose names the other suites use.
        let names = Set(Self.fixtures.map(\.name))
        #expect(names.contains("manifests/tweenkit.json"))
        #expect(names.contains("manifests/cdeclarative.json"))
        #expect(names.contains("Examples/Plugins/pulse.json"))
        #expect(names.contains("Tests/Fixtures/plugins/wrong-abi-major.json"))
        #expect(Self.fixtures.count >= 20)
    }

    @Test func fastReaderGivesTheStrictManifestForEveryValidFixture() throws {
        var valid = 0
        for (name, bytes) in Self.fixtures {
            let (fast, strict) = Self.both(bytes)
            switch strict {
            case .success(let manifest):
                valid += 1
                #expect(fast == manifest, "\(name): the fast reader gave \(fast.map { "\($0)" } ?? "nothing")")
            case .failure(let error):
                #expect(fast == nil, "\(name): the fast reader accepted what the strict path refuses: \(error)")
            }
        }
        // All are valid (wrong-abi-major.json is refused only when its library answers with another major).
        #expect(valid == Self.fixtures.count)
    }

    @Test func fastReaderAndStrictPathAgreeOnMutatedManifests() throws {
        var accepted = 0
        var refused = 0
        var total = 0
        for (name, bytes) in Self.fixtures {
            guard case .success = Self.both(bytes).strict, let root = try? JSONParser.parse(bytes) else { continue }
            for mutation in ManifestMutations.all(of: root) + ManifestMutations.textual(of: bytes) {
                total += 1
                let (fast, strict) = Self.both(mutation.bytes)
                switch strict {
                case .success(let manifest):
                    accepted += 1
                    // The fast reader may leave an unusual valid manifest to the strict path (a byte order mark).
                    if let fast {
                        #expect(fast == manifest, "\(name) \(mutation.name): the two paths read different manifests")
                    }
                case .failure(let error):
                    refused += 1
                    let isAcceptedByFastReader = fast != nil
                    #expect(
                        !isAcceptedByFastReader,
                        "\(name) \(mutation.name): the fast reader accepted what the strict path refuses: \(error)")
                }
            }
        }
        // Both sides are exercised: many mutations stay valid (a summary changed, an optional field removed), most
        // do not.
        print("ManifestFastDecodingTests: \(total) mutations, \(accepted) valid, \(refused) refused")
        #expect(total > 5_000)
        #expect(accepted > 500)
        #expect(refused > 2_000)
    }

    @Test func aKeyWrittenTwiceIsRefusedByTheFastReaderAndNamedByTheStrictPath() throws {
        let text = #"{"manifestVersion": 1, "id": "org.example.x", "id": "org.example.y"}"#
        let (fast, strict) = Self.both(Array(text.utf8))
        #expect(fast == nil)
        guard case .failure(let error) = strict else {
            Issue.record("the strict path accepted a key written twice")
            return
        }
        #expect(error.code == .invalidJSON)
        #expect(
            error.message
                == "invalid JSON at line 1, column 47: duplicate key \"id\" (first at line 1, column 24). To fix, keep one of them")
    }

    @Test func decodeStillGivesTheStrictMessageForEveryBadManifest() throws {
        // The first bad manifest of the decoding suite, through the public entry, which tries the fast reader
        // first.
        let bad = ManifestDecodingTests.badEntryManifests[1]
        let bytes = Array(Fixtures.text(Fixtures.tweenManifest().setting(bad.path, to: bad.value)).utf8)
        #expect(bytes.withUnsafeBytes { PluginManifest.fastDecoded($0, url: Self.url) } == nil)
        #expect(throws: ManifestError.self) { try PluginManifest.decode(Data(bytes), url: Self.url) }
        do {
            _ = try PluginManifest.decode(Data(bytes), url: Self.url)
        } catch {
            #expect(error.description == "/fixtures/manifest.json: " + bad.expected)
        }
    }
}

/// Edits of a valid manifest, each as the bytes of a whole document.
enum ManifestMutations {
    struct Mutation {
        var name: String
        var bytes: [UInt8]
    }

    /// Values put in place of each value of the document, whatever it was.
    static let palette: [JSONValue] = [
        .null, true, false, 0, 1, -1, 2.5, 1e16, "", "a.b", "Tween", "type", "motion_plugin_entry", "\u{1}x",
        [], ["frames"], [1, 2], [:], ["name": "x", "type": "number"],
    ]

    /// Every value replaced by a third of ``palette`` (a different third at each next value, so that the
    /// whole palette is tried at every kind of place in the larger manifests) and by near variants of itself,
    /// every member removed, an unknown member added to every object, every member written twice, every
    /// array element removed or its first one repeated.
    static func all(of root: JSONValue) -> [Mutation] {
        var result: [Mutation] = []
        var visited = 0
        func add(_ name: String, _ value: JSONValue) {
            var bytes: [UInt8] = []
            value.writeJSON(into: &bytes)
            result.append(Mutation(name: name, bytes: bytes))
        }
        func visit(_ node: JSONValue, _ path: [Step]) {
            let at = path.map(\.description).joined()
            if !path.isEmpty {
                visited += 1
                for (k, value) in palette.enumerated() where (k + visited) % 3 == 0 {
                    add("\(at) = \(JSONText.value(value))", root.setting(path, to: value))
                }
                for value in variants(of: node) { add("\(at) = \(JSONText.value(value))", root.setting(path, to: value)) }
            }
            switch node {
            case .object(let members):
                add("\(at).extra added", root.setting(path + [.key("extra")], to: 1))
                for (key, value) in members.sorted(by: { $0.key < $1.key }) {
                    add("\(at).\(key) removed", root.setting(path + [.key(key)], to: nil))
                    visit(value, path + [.key(key)])
                }
                // Each member written twice (the last one first, so that the two orders of dictionary reads differ).
                for key in members.keys.sorted() {
                    var bytes: [UInt8] = []
                    write(root, duplicating: key, at: path[...], into: &bytes)
                    result.append(Mutation(name: "\(at).\(key) written twice", bytes: bytes))
                }
            case .array(let items):
                for i in items.indices {
                    add("\(at)[\(i)] removed", root.setting(path, to: .array(items.enumerated().filter { $0.offset != i }.map(\.element))))
                    visit(items[i], path + [.index(i)])
                }
                if let first = items.first { add("\(at)[0] repeated", root.setting(path, to: .array(items + [first]))) }
            default:
                break
            }
        }
        visit(root, [])
        return result
    }

    /// Near variants of a value: a string changed at either end, a number moved a little.
    static func variants(of value: JSONValue) -> [JSONValue] {
        switch value {
        case .string(let s):
            return [
                .string(s + "."), .string("-" + s), .string(s.uppercased()), .string(s + "\u{1F}"), .string("../" + s),
                .string("/" + s), .string(s + "/"), .string(s.replacingOccurrences(of: "1", with: "2")),
            ]
        case .number(let n):
            return [.number(n + 1), .number(n - 1), .number(-n), .number(n + 0.5), .number(n * 1e20)]
        case .bool(let b):
            return [.bool(!b)]
        default:
            return []
        }
    }

    /// Edits of the text that no `JSONValue` can express: trailing commas, a byte order mark, a cut.
    static func textual(of bytes: [UInt8]) -> [Mutation] {
        var result: [Mutation] = []
        let text = String(decoding: bytes, as: UTF8.self)
        if let close = text.lastIndex(of: "]") {
            result.append(
                Mutation(name: "trailing comma in an array", bytes: Array((text[..<close] + ",]" + text[text.index(after: close)...]).utf8)))
        }
        if let close = text.lastIndex(of: "}") {
            result.append(Mutation(name: "trailing comma in an object", bytes: Array((text[..<close] + ",}").utf8)))
        }
        result.append(Mutation(name: "byte order mark", bytes: [0xEF, 0xBB, 0xBF] + bytes))
        result.append(Mutation(name: "cut in half", bytes: Array(bytes.prefix(bytes.count / 2))))
        result.append(Mutation(name: "comment", bytes: Array(("// manifest\n" + text).utf8)))
        return result
    }

    /// `value` as compact JSON, with the object at `path` writing its member `key` twice.
    static func write(_ value: JSONValue, duplicating key: String, at path: ArraySlice<Step>, into out: inout [UInt8]) {
        switch (value, path.first) {
        case (.object(let members), nil):
            var sorted = members.sorted { $0.key < $1.key }
            sorted.insert(sorted.first { $0.key == key }!, at: 0)
            out.append(UInt8(ascii: "{"))
            for (i, member) in sorted.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.string(member.key).writeJSON(into: &out)
                out.append(UInt8(ascii: ":"))
                member.value.writeJSON(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        case (.object(let members), .key(let step)?):
            out.append(UInt8(ascii: "{"))
            for (i, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.string(member.key).writeJSON(into: &out)
                out.append(UInt8(ascii: ":"))
                if member.key == step {
                    write(member.value, duplicating: key, at: path.dropFirst(), into: &out)
                } else {
                    member.value.writeJSON(into: &out)
                }
            }
            out.append(UInt8(ascii: "}"))
        case (.array(let items), .index(let step)?):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                if i == step { write(item, duplicating: key, at: path.dropFirst(), into: &out) } else { item.writeJSON(into: &out) }
            }
            out.append(UInt8(ascii: "]"))
        default:
            fatalError("mutation path \(path) does not fit \(value)")
        }
    }
}

/// The lexical rules that have an ASCII fast path read as their Character-based forms do.
@Suite struct ManifestLexicalRuleTests {
    @Test(
        arguments: [
            ("libtween.so", nil), ("lib/libtween.so", nil), ("./libtween.so", nil), ("a//b.so", nil), ("a/..b", nil),
            ("..a/b", nil), ("a/./b", nil), ("", "is empty"), ("/usr/lib/a.so", "is absolute"),
            ("~/a.so", "starts with \"~\" (paths are not expanded)"), ("../a.so", "escapes the folder with \"..\""),
            ("a/../../b.so", "escapes the folder with \"..\""), ("a/..", "escapes the folder with \"..\""),
            (".", "names a folder, not a file"), ("./.", "names a folder, not a file"), ("lib/", "names a folder, not a file"),
            ("a\u{0}b", "contains a NUL byte"), ("lïb.so", nil), ("lïb/../../x", "escapes the folder with \"..\""),
            // A combining mark after "/" makes one Character of the two, but the kernel reads bytes: the rules
            // must see "..", "/" and a leading "/" where the bytes have them.
            ("../\u{301}x.so", "escapes the folder with \"..\""), ("/\u{301}lib.so", "is absolute"),
            ("a/\u{301}", nil), ("a\u{301}/", "names a folder, not a file"),
        ] as [(String, String?)])
    func libraryPathRule(_ path: String, _ problem: String?) {
        #expect(ManifestDecoder.libraryPathProblem(path) == problem)
    }

    @Test(arguments: [
        ("/a/b/c.json", "/a/b"), ("/a/b/", "/a"), ("/a", "/"), ("/", "/"), ("//", "/"), ("a", "."), ("", "."),
        ("a/b", "a"), ("a//b", "a/"), ("/ä/b.json", "/ä"), ("manifests/x.json", "manifests"),
    ])
    func directoryNameIsDirnameOfThePath(_ path: String, _ folder: String) {
        #expect(directoryName(of: path) == folder)
    }
}
