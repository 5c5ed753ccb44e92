import Foundation
import MotionCore
import Testing

@testable import MotionHost

/// One bad manifest: an edit of a valid template and the exact line the error must print after the file.
struct BadManifest: Sendable, CustomTestStringConvertible {
    var path: [Step]
    var value: JSONValue?
    var expected: String
    var code: ManifestError.Code

    init(_ path: [Step], _ value: JSONValue?, _ expected: String, _ code: ManifestError.Code) {
        self.path = path
        self.value = value
        self.expected = expected
        self.code = code
    }

    var testDescription: String {
        path.map(\.description).joined() + " = " + (value.map { JSONText.value($0) } ?? "removed")
    }
}

private let p0: [Step] = [.key("performers"), .index(0)]
private let plan0 = p0 + [.key("plans"), .index(0)]
private func field(_ i: Int, _ key: String) -> [Step] { plan0 + [.key("fields"), .index(i), .key(key)] }
private let fieldsPath = "$.performers[0].plans[0].fields"

@Suite struct ManifestDecodingTests {
    static let badEntryManifests: [BadManifest] = [
        BadManifest(
            [.key("manifestVersion")], nil, "$.manifestVersion: expected 1 (a required field); found no value",
            .missingField),
        BadManifest(
            [.key("manifestVersion")], 2,
            "$.manifestVersion: expected 1 (the manifest version this host reads); found 2", .unsupportedVersion),
        BadManifest(
            [.key("id")], nil, "$.id: expected a reverse-DNS id string (a required field); found no value",
            .missingField),
        BadManifest([.key("id")], 5, "$.id: expected a reverse-DNS id string; found 5", .wrongType),
        BadManifest(
            [.key("id")], "tweenkit",
            "$.id: expected a reverse-DNS id such as \"org.example.myplugin\"; found \"tweenkit\"",
            .invalidValue),
        BadManifest(
            [.key("name")], nil, "$.name: expected a non-empty string (a required field); found no value", .missingField
        ),
        BadManifest(
            [.key("name")], "", "$.name: expected a non-empty string without control characters; found \"\"",
            .invalidValue),
        BadManifest(
            [.key("version")], "one",
            "$.version: expected a version such as \"1.0.0\" (MAJOR[.MINOR[.PATCH]][-pre][+build]); found \"one\"",
            .invalidValue),
        BadManifest(
            [.key("abiVersion")], "1",
            "$.abiVersion: expected \"MAJOR.MINOR\" of motion_plugin.h, such as \"1.0\"; found \"1\"",
            .invalidValue),
        BadManifest(
            [.key("abiVersion")], "1.0.0",
            "$.abiVersion: expected \"MAJOR.MINOR\" of motion_plugin.h, such as \"1.0\"; found \"1.0.0\"", .invalidValue
        ),
        BadManifest([.key("abiVersion")], 1.0, "$.abiVersion: expected a string \"MAJOR.MINOR\"; found 1", .wrongType),
        BadManifest(
            [.key("abiVersion")], "2.0",
            "$.abiVersion: expected ABI 1.x, the major this host speaks (1.4); found \"2.0\" (a plugin built for another major cannot load in this host)",
            .invalidValue),
        BadManifest(
            [.key("abiVersion")], "1.5",
            "$.abiVersion: expected ABI 1.0 to 1.4, the ones this host can serve; found \"1.5\" (the plugin needs a newer host; if it also works with an older one, give the oldest)",
            .invalidValue),
        BadManifest(
            [.key("library")], "/usr/lib/libtween.so",
            "$.library: expected a file name or a relative path inside the manifest's folder; found \"/usr/lib/libtween.so\", which is absolute",
            .invalidValue),
        BadManifest(
            [.key("library")], "../libtween.so",
            "$.library: expected a file name or a relative path inside the manifest's folder; found \"../libtween.so\", which escapes the folder with \"..\"",
            .invalidValue),
        BadManifest(
            [.key("library")], "lib/../../libtween.so",
            "$.library: expected a file name or a relative path inside the manifest's folder; found \"lib/../../libtween.so\", which escapes the folder with \"..\"",
            .invalidValue),
        BadManifest(
            [.key("library")], nil, "$.library: expected a library file name (a required field); found no value",
            .missingField),
        BadManifest(
            [.key("sha256")], "abc", "$.sha256: expected a SHA-256 of 64 hexadecimal digits; found \"abc\"",
            .invalidValue),
        BadManifest([.key("summary")], ["x"], "$.summary: expected a string; found an array of 1", .wrongType),
        BadManifest(
            [.key("performer")], [],
            "$.performer: expected one of the fields of a manifest (manifestVersion, id, name, version, abiVersion, library, sha256, summary, performers); found unknown field \"performer\" (did you mean \"performers\"?)",
            .unknownField),
        BadManifest(
            [.key("performers")], [], "$.performers: expected at least one performer; found an empty array",
            .invalidValue),
        BadManifest(
            [.key("performers")], "all", "$.performers: expected an array of performers; found \"all\"", .wrongType),
        BadManifest(
            p0 + [.key("class")], nil,
            "$.performers[0].class: expected a class name (a required field); found no value",
            .missingField),
        BadManifest(
            p0 + [.key("interface")], "vtable",
            "$.performers[0].interface: expected one of entry, functions; found \"vtable\"",
            .invalidValue),
        BadManifest(
            p0 + [.key("capabilities")], ["frames", "sparkles"],
            "$.performers[0].capabilities[1]: expected one of frames, tokens, composition, namedPlans, deviceMotion; found \"sparkles\"",
            .invalidValue),
        BadManifest(
            p0 + [.key("capabilities")], ["frames", "frames"],
            "$.performers[0].capabilities[1]: expected each capability once; found \"frames\" again", .duplicate),
        BadManifest(
            p0 + [.key("functions")], ["create": "a", "destroy": "b"],
            "$.performers[0].functions: expected no \"functions\" for an \"entry\" performer (it is reached through motion_plugin_entry); found an object. To fix, remove it or set \"interface\": \"functions\"",
            .invalidValue),
        BadManifest(
            p0 + [.key("plans")], [], "$.performers[0].plans: expected at least one plan; found an empty array",
            .invalidValue),
        BadManifest(
            plan0 + [.key("type")], nil,
            "$.performers[0].plans[0].type: expected a plan type name (a required field); found no value", .missingField
        ),
        BadManifest(
            p0 + [.key("plans"), .index(1), .key("type")], "Tween",
            "$.performers[0].plans[1].type: expected a plan type not declared earlier in this manifest; found \"Tween\" again (first at $.performers[0].plans[0].type)",
            .duplicate),
        BadManifest(
            plan0 + [.key("call")], ["symbol": "tween_add", "arguments": []],
            "$.performers[0].plans[0].call: expected no \"call\" in a plan of an \"entry\" performer (its plans reach add_plan as JSON); found an object",
            .invalidValue),
        BadManifest(
            plan0 + [.key("fields")], ["name": "x"],
            "$.performers[0].plans[0].fields: expected an array of fields; found an object",
            .wrongType),
        BadManifest(
            field(2, "type"), "float",
            "\(fieldsPath)[2].type: expected one of number, integer, boolean, string, property, vector, object, array; found \"float\"",
            .invalidValue),
        BadManifest(
            field(2, "type"), nil, "\(fieldsPath)[2].type: expected a field type (a required field); found no value",
            .missingField),
        BadManifest(
            field(0, "name"), "type",
            "\(fieldsPath)[0].name: expected a field name other than \"type\" (it holds the plan type); found \"type\"",
            .invalidValue),
        BadManifest(
            field(1, "name"), "property",
            "\(fieldsPath)[1].name: expected a field name not used earlier in this plan; found \"property\" again (first at fields[0])",
            .duplicate),
        BadManifest(
            field(0, "required"), "yes", "\(fieldsPath)[0].required: expected true or false; found \"yes\"", .wrongType),
        BadManifest(field(2, "unit"), 1, "\(fieldsPath)[2].unit: expected a string; found 1", .wrongType),
        BadManifest(
            field(2, "default"), "slow", "\(fieldsPath)[2].default: expected a number in 0...3600 (s); found \"slow\"",
            .invalidValue),
        BadManifest(
            field(2, "default"), -1, "\(fieldsPath)[2].default: expected a number in 0...3600 (s); found -1",
            .invalidValue),
        BadManifest(
            field(3, "default"), "bounce",
            "\(fieldsPath)[3].default: expected one of \"linear\", \"easeIn\", \"easeOut\", \"easeInOut\"; found \"bounce\"",
            .invalidValue),
        BadManifest(
            field(4, "default"), 1.5, "\(fieldsPath)[4].default: expected an integer in 1...100; found 1.5",
            .invalidValue),
        BadManifest(
            field(0, "default"), "x",
            "\(fieldsPath)[0].default: expected no default on a required field (a plan always gives it); found \"x\". To fix, remove \"default\" or \"required\"",
            .invalidValue),
        BadManifest(field(2, "minimum"), "0", "\(fieldsPath)[2].minimum: expected a number; found \"0\"", .wrongType),
        BadManifest(
            field(2, "maximum"), -5, "\(fieldsPath)[2].maximum: expected a maximum >= the minimum 0; found -5",
            .invalidValue),
        BadManifest(
            field(0, "minimum"), 0,
            "\(fieldsPath)[0].minimum: expected minimum only on a number, integer or vector field; found it on a string field",
            .invalidValue),
        BadManifest(
            field(1, "minItems"), 0, "\(fieldsPath)[1].minItems: expected an integer >= 1; found 0", .invalidValue),
        BadManifest(field(1, "maxItems"), 2.5, "\(fieldsPath)[1].maxItems: expected an integer; found 2.5", .wrongType),
        BadManifest(
            field(2, "minItems"), 1,
            "\(fieldsPath)[2].minItems: expected minItems only on a vector or array field; found it on a number field",
            .invalidValue),
        BadManifest(
            field(3, "enum"), ["linear", 2],
            "\(fieldsPath)[3].enum[1]: expected a string (the field's type); found 2", .invalidValue),
        BadManifest(
            field(3, "enum"), ["linear", "linear"],
            "\(fieldsPath)[3].enum[1]: expected each allowed value once; found \"linear\" again",
            .duplicate),
        BadManifest(
            field(1, "enum"), [1],
            "\(fieldsPath)[1].enum: expected enum only on a string, number or integer field; found it on a vector field",
            .invalidValue),
        BadManifest(
            field(2, "defualt"), 1,
            "\(fieldsPath)[2].defualt: expected one of the fields of a field (name, type, unit, default, minimum, maximum, enum, required, summary, minItems, maxItems); found unknown field \"defualt\" (did you mean \"default\"?)",
            .unknownField),
    ]

    @Test(arguments: badEntryManifests)
    func badEntryManifestGivesOneLineNamingFileAndField(_ bad: BadManifest) throws {
        try expectError(bad, template: Fixtures.tweenManifest())
    }

    static let badFunctionsManifests: [BadManifest] = [
        BadManifest(
            p0 + [.key("functions")], nil,
            "$.performers[0].functions: expected an object {\"create\", \"destroy\"} naming the C functions of a \"functions\" performer; found no value",
            .missingField),
        BadManifest(
            p0 + [.key("functions"), .key("destroy")], nil,
            "$.performers[0].functions.destroy: expected a C symbol name (a required field); found no value",
            .missingField),
        BadManifest(
            p0 + [.key("functions"), .key("create")], "blink-create",
            "$.performers[0].functions.create: expected a C symbol name ([A-Za-z_][A-Za-z0-9_]*); found \"blink-create\"",
            .invalidValue),
        BadManifest(
            plan0 + [.key("call")], nil,
            "$.performers[0].plans[0].call: expected a call {\"symbol\", \"arguments\"} for each plan of a \"functions\" performer; found no value",
            .missingField),
        BadManifest(
            plan0 + [.key("call"), .key("symbol")], nil,
            "$.performers[0].plans[0].call.symbol: expected a C symbol name (a required field); found no value",
            .missingField),
        BadManifest(
            plan0 + [.key("call"), .key("arguments"), .index(0), .key("field")], "perod",
            "$.performers[0].plans[0].call.arguments[0].field: expected the name of a field of plan type \"Blink\" (period, count, visible, label); found \"perod\" (did you mean \"period\"?)",
            .invalidValue),
        BadManifest(
            plan0 + [.key("call"), .key("arguments"), .index(0), .key("type")], "float",
            "$.performers[0].plans[0].call.arguments[0].type: expected one of double, int64, bool, string; found \"float\"",
            .invalidValue),
        BadManifest(
            plan0 + [.key("call"), .key("arguments"), .index(3), .key("type")], "double",
            "$.performers[0].plans[0].call.arguments[3].type: expected a C type that holds a string field (string); found \"double\"",
            .invalidValue),
        BadManifest(
            plan0 + [.key("call"), .key("arguments"), .index(1), .key("type")], "bool",
            "$.performers[0].plans[0].call.arguments[1].type: expected a C type that holds an integer field (double, int64); found \"bool\"",
            .invalidValue),
        BadManifest(
            plan0 + [.key("fields"), .index(1), .key("default")], nil,
            "$.performers[0].plans[0].call.arguments[1].field: expected a field that always has a value (required, or with a default); found \"count\", which is optional with no default",
            .invalidValue),
        BadManifest(
            plan0 + [.key("call"), .key("arguments"), .index(1), .key("field")], "period",
            "$.performers[0].plans[0].call.arguments[1].field: expected each field passed once; found \"period\" again",
            .duplicate),
        BadManifest(
            plan0 + [.key("call"), .key("arguments")], "period",
            "$.performers[0].plans[0].call.arguments: expected an array of arguments {\"field\", \"type\"}; found \"period\"",
            .wrongType),
    ]

    @Test(arguments: badFunctionsManifests)
    func badDeclarativeManifestGivesOneLineNamingFileAndField(_ bad: BadManifest) throws {
        try expectError(bad, template: Fixtures.blinkManifest())
    }

    private func expectError(_ bad: BadManifest, template: JSONValue) throws {
        let folder = TemporaryFolder()
        let file = folder.write("bad.json", template.setting(bad.path, to: bad.value))
        let error = try #require(throws: ManifestError.self) { try PluginManifest.load(contentsOf: file) }
        #expect(error.description == "\(file.relativePath): \(bad.expected)")
        #expect(error.code == bad.code)
        #expect(error.file == file)
        #expect(!error.description.contains("\n"))
    }

    @Test func twoPerformersWithOneClassNameAreRejected() throws {
        let performer = Fixtures.tweenManifest().object!["performers"]!.array![0]
        let second = performer.setting([.key("plans"), .index(0), .key("type")], to: "Tween2")
            .setting([.key("plans"), .index(1), .key("type")], to: "FadeIn2")
        let manifest = Fixtures.tweenManifest().setting([.key("performers")], to: [performer, second])
        let folder = TemporaryFolder()
        let file = folder.write("two.json", manifest)
        let error = try #require(throws: ManifestError.self) { try PluginManifest.load(contentsOf: file) }
        #expect(
            error.description
                == "\(file.relativePath): $.performers[1].class: expected a class name not declared earlier in this manifest; found \"TweenPerformer\" again (first at $.performers[0].class)"
        )
    }

    @Test func invalidJSONGivesLineAndColumn() throws {
        let folder = TemporaryFolder()
        let file = folder.write("broken.json", "{\n  \"id\": \"org.a.b\",\n  \"name\": tru\n}\n")
        let error = try #require(throws: ManifestError.self) { try PluginManifest.load(contentsOf: file) }
        #expect(error.code == .invalidJSON)
        #expect(error.jsonPath == nil)
        #expect(error.description.hasPrefix("\(file.relativePath): invalid JSON at line 3, column 14: "))
    }

    @Test func unterminatedStringGivesLineAndColumn() throws {
        let folder = TemporaryFolder()
        let file = folder.write("open.json", "{\n  \"id\": \"org.a.b\",\n  \"name\": \"Open\n}\n")
        let error = try #require(throws: ManifestError.self) { try PluginManifest.load(contentsOf: file) }
        #expect(error.code == .invalidJSON)
        #expect(error.message.hasPrefix("invalid JSON at line 3, column "))
    }

    @Test func emptyFileIsInvalidJSON() throws {
        let folder = TemporaryFolder()
        let file = folder.write("empty.json", "")
        let error = try #require(throws: ManifestError.self) { try PluginManifest.load(contentsOf: file) }
        #expect(error.description == "\(file.relativePath): invalid JSON: the file is empty")
    }

    @Test func topLevelArrayIsRejected() throws {
        let folder = TemporaryFolder()
        let file = folder.write("array.json", "[1]")
        let error = try #require(throws: ManifestError.self) { try PluginManifest.load(contentsOf: file) }
        #expect(error.description == "\(file.relativePath): $: expected a JSON object; found an array of 1")
    }

    @Test func missingFileIsUnreadable() throws {
        let folder = TemporaryFolder()
        let file = folder.url.appendingPathComponent("nothing.json")
        let error = try #require(throws: ManifestError.self) { try PluginManifest.load(contentsOf: file) }
        #expect(error.code == .unreadable)
        #expect(
            error.description
                == "\(file.relativePath): no such file. To fix, check the path of the manifest"
        )
    }

    @Test func validManifestDecodesEveryField() throws {
        let folder = TemporaryFolder()
        let manifest = try PluginManifest.load(
            contentsOf: folder.write(
                "t.json",
                Fixtures.tweenManifest().setting([.key("sha256")], to: .string(String(repeating: "AB", count: 32)))))
        #expect(manifest.id == "org.example.tween")
        #expect(manifest.abiVersion == ABIVersion(major: 1, minor: 0))
        #expect(manifest.sha256 == String(repeating: "ab", count: 32))
        let performer = manifest.performers[0]
        #expect(performer.className == "TweenPerformer")
        #expect(performer.interface == .entry)
        #expect(performer.capabilities == [.frames, .tokens])
        #expect(performer.functions == nil)
        let plan = performer.plans[0]
        #expect(plan.fields.map(\.name) == ["property", "to", "duration", "timing", "repeats", "transaction"])
        let duration = try #require(plan.field(named: "duration"))
        #expect(duration.type == .number)
        #expect(duration.unit == "s")
        #expect(duration.defaultValue == 0.3)
        #expect(duration.minimum == 0)
        #expect(duration.maximum == 3600)
        #expect(duration.required == false)
        #expect(plan.field(named: "to")?.itemRange == 1...4)
        #expect(plan.field(named: "timing")?.enumValues == ["linear", "easeIn", "easeOut", "easeInOut"])
        #expect(manifest.declaration(ofPlanType: "FadeIn")?.performer.className == "TweenPerformer")
    }

    @Test(arguments: [
        ("1.0", ABIVersion(major: 1, minor: 0) as ABIVersion?), ("12.34", ABIVersion(major: 12, minor: 34)),
        ("1", nil), ("1.0.0", nil), ("v1.0", nil), ("1.", nil), (".1", nil), ("1.-1", nil),
    ])
    func abiVersionParsesMajorDotMinorOnly(_ text: String, _ expected: ABIVersion?) {
        #expect(ABIVersion(text) == expected)
    }

    @Test func abiVersionPacksAsTheHeaderDoes() {
        #expect(ABIVersion(major: 1, minor: 2).packed == 0x0001_0002)
        #expect(ABIVersion(major: 1, minor: 0) < ABIVersion(major: 1, minor: 1))
    }

    @Test(arguments: [
        ("org.motion.tweenkit", true), ("com.example.my-plugin", true), ("a.b", true), ("tweenkit", false),
        ("org..x", false), (".org.x", false), ("org.x.", false), ("1org.x", false), ("org.-x", false),
        ("org.x y", false),
    ])
    func reverseDNSIDs(_ id: String, _ valid: Bool) {
        #expect(ManifestDecoder.isReverseDNS(id) == valid)
    }

    @Test(arguments: [
        ("1.0.0", true), ("2", true), ("2.1", true), ("1.0.0-beta.1", true), ("1.0.0+build.5", true),
        ("1.0.0.0", false), ("v1", false), ("1..0", false), ("1.0-", false), ("", false),
    ])
    func semanticVersions(_ version: String, _ valid: Bool) {
        #expect(ManifestDecoder.isSemanticVersion(version) == valid)
    }
}
