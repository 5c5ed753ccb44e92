import Foundation
import MotionCore
import Testing

@testable import MotionHost

@Suite struct ConfigurationTests {
    private let hash = String(repeating: "0123456789abcdef", count: 4)

    @Test func fullConfigurationLoadsWithRelativePathsResolvedAgainstItsFolder() throws {
        let folder = TemporaryFolder()
        let file = folder.write(
            "motion/host.json",
            """
            {
              "configurationVersion": 1,
              "searchPaths": ["/opt/motion/plugins", "more"],
              "libraryPaths": ["lib"],
              "disabledPlugins": ["org.example.broken"],
              "planTypeOwners": { "Tween": "org.motion.tweenkit" },
              "pins": { "libTweenKit.so": "\(hash.uppercased())", "org.example.blink": "\(hash)" }
            }
            """)
        let configuration = try HostConfiguration.load(contentsOf: file)
        let base = folder.url.appendingPathComponent("motion")
        #expect(
            configuration.searchPaths.map(\.path) == ["/opt/motion/plugins", base.appendingPathComponent("more").path])
        #expect(configuration.libraryPaths.map(\.path) == [base.appendingPathComponent("lib").path])
        #expect(configuration.disabledPlugins == ["org.example.broken"])
        #expect(configuration.planTypeOwners == ["Tween": "org.motion.tweenkit"])
        #expect(configuration.pins == ["libTweenKit.so": hash, "org.example.blink": hash])
        #expect(configuration.url == file)
    }

    @Test func pinIsFoundByPluginIDThenLibraryFileName() throws {
        let other = String(repeating: "f", count: 64)
        let manifest = try PluginManifest.decode(
            Data(Fixtures.text(Fixtures.tweenManifest(library: "lib/libtween.so")).utf8),
            url: URL(fileURLWithPath: "/x/t.json"))
        let byName = HostConfiguration(pins: ["libtween.so": hash])
        #expect(byName.pin(for: manifest)?.key == "libtween.so")
        #expect(byName.pin(for: manifest)?.sha256 == hash)
        let both = HostConfiguration(pins: ["libtween.so": hash, "org.example.tween": other])
        #expect(both.pin(for: manifest)?.sha256 == other)
        #expect(HostConfiguration(pins: ["libother.so": hash]).pin(for: manifest) == nil)
    }

    @Test func defaultFileFollowsXDGConfigHome() {
        #expect(
            HostConfiguration.defaultURL(environment: ["XDG_CONFIG_HOME": "/cfg", "HOME": "/home/u"]).path
                == "/cfg/motion/host.json")
        #expect(
            HostConfiguration.defaultURL(environment: ["HOME": "/home/u"]).path == "/home/u/.config/motion/host.json")
        #expect(
            HostConfiguration.defaultURL(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/home/u"]).path
                == "/home/u/.config/motion/host.json")
    }

    @Test func missingDefaultFileIsAnEmptyConfiguration() throws {
        let folder = TemporaryFolder()
        let configuration = try HostConfiguration.loadDefault(environment: ["XDG_CONFIG_HOME": folder.path])
        #expect(configuration == .empty)
    }

    @Test func presentDefaultFileIsRead() throws {
        let folder = TemporaryFolder()
        folder.write("motion/host.json", "{\"disabledPlugins\": [\"org.a.b\"]}")
        let configuration = try HostConfiguration.loadDefault(environment: ["XDG_CONFIG_HOME": folder.path])
        #expect(configuration.disabledPlugins == ["org.a.b"])
    }

    static let badConfigurations: [(String, String)] = [
        (
            "{\"configurationVersion\": 3}",
            "$.configurationVersion: expected 1 (the configuration version this host reads); found 3"
        ),
        (
            "{\"searchPath\": []}",
            "$.searchPath: expected one of the fields of a host configuration (configurationVersion, searchPaths, libraryPaths, disabledPlugins, planTypeOwners, pins, pluginManifests, requirePins, plugins); found unknown field \"searchPath\" (did you mean \"searchPaths\"?)"
        ),
        ("{\"searchPaths\": \"/opt\"}", "$.searchPaths: expected an array of folder paths; found \"/opt\""),
        ("{\"searchPaths\": [\"/opt\", 3]}", "$.searchPaths[1]: expected a folder path; found 3"),
        (
            "{\"libraryPaths\": [\"~/lib\"]}",
            "$.libraryPaths[0]: expected an absolute path or one relative to the configuration's folder (\"~\" is not expanded); found \"~/lib\""
        ),
        (
            "{\"disabledPlugins\": [\"broken\"]}",
            "$.disabledPlugins[0]: expected a reverse-DNS plugin id such as \"org.example.myplugin\"; found \"broken\""
        ),
        (
            "{\"planTypeOwners\": [\"Tween\"]}",
            "$.planTypeOwners: expected an object mapping plan types to plugin ids; found an array of 1"
        ),
        ("{\"planTypeOwners\": {\"Tween\": 1}}", "$.planTypeOwners.Tween: expected a plugin id; found 1"),
        (
            "{\"pins\": {\"libx.so\": \"abc\"}}",
            "$.pins[\"libx.so\"]: expected a SHA-256 of 64 hexadecimal digits; found \"abc\""
        ),
        (
            "{\"pins\": {\"lib/x.so\": \"abc\"}}",
            "$.pins[\"lib/x.so\"]: expected a library file name (no \"/\") or a plugin id as the key; found \"lib/x.so\""
        ),
    ]

    @Test(arguments: badConfigurations)
    func badConfigurationGivesOneLineNamingFileAndField(_ text: String, _ expected: String) throws {
        let folder = TemporaryFolder()
        let file = folder.write("host.json", text)
        let error = try #require(throws: ManifestError.self) { try HostConfiguration.load(contentsOf: file) }
        #expect(error.description == "\(file.relativePath): \(expected)")
    }

    @Test func invalidConfigurationJSONGivesLineAndColumn() throws {
        let folder = TemporaryFolder()
        let file = folder.write("host.json", "{\n  \"pins\": {,\n}")
        let error = try #require(throws: ManifestError.self) { try HostConfiguration.load(contentsOf: file) }
        #expect(error.code == .invalidJSON)
        #expect(error.message.hasPrefix("invalid JSON at line 2, column "))
    }

    @Test func pluginIsolationIsReadPerPluginWithAStarForTheRest() throws {
        let configuration = try HostConfiguration.decode(
            Data(
                #"{"plugins": {"org.example.untrusted": {"isolation": "process", "memoryLimit": 268435456, "onCrash": "restart", "maxRestarts": 2}, "*": {"isolation": "process"}}}"#
                    .utf8), url: URL(fileURLWithPath: "/etc/host.json"))
        #expect(
            configuration.isolation(of: "org.example.untrusted")
                == PluginIsolation(mode: .process, memoryLimit: 268_435_456, onCrash: .restart, maxRestarts: 2))
        #expect(configuration.isolation(of: "org.example.other") == .process)
        #expect(HostConfiguration.empty.isolation(of: "org.example.other") == .inProcess)
        // --isolate: every plugin, or one, keeping what the configuration says of its limit and crash policy.
        #expect(HostConfiguration.empty.isolating(["*"]).isolation(of: "org.example.other").isIsolated)
        let one = HostConfiguration(plugins: ["org.a.b": PluginIsolation(memoryLimit: 1 << 30)]).isolating(["org.a.b"])
        #expect(one.isolation(of: "org.a.b") == PluginIsolation(mode: .process, memoryLimit: 1 << 30))
        #expect(!one.isolation(of: "org.a.c").isIsolated)
    }

    @Test(arguments: [
        (
            #"{"plugins": {"org.a.b": {"isolation": "sandbox"}}}"#,
            #"$.plugins["org.a.b"].isolation: expected one of inProcess, process; found "sandbox""#
        ),
        (#"{"plugins": {"org.a.b": {"memoryLimit": 1000}}}"#, #"$.plugins["org.a.b"].memoryLimit: expected a number of bytes ≥ 67108864"#),
        (#"{"plugins": {"org.a.b": {"onCrash": "retry"}}}"#, #"$.plugins["org.a.b"].onCrash: expected one of fail, restart; found "retry""#),
        (#"{"plugins": {"not an id": {}}}"#, #"$.plugins["not an id"]: expected a reverse-DNS plugin id"#),
        (#"{"plugins": {"org.a.b": {"isolate": "process"}}}"#, #"$.plugins["org.a.b"].isolate: "#),
    ])
    func badPluginSettingsNameTheFileAndTheField(json: String, expected: String) throws {
        var failure: ManifestError?
        do { _ = try HostConfiguration.decode(Data(json.utf8), url: URL(fileURLWithPath: "/etc/motion/host.json")) } catch { failure = error }
        let error = try #require(failure)
        #expect(error.description.hasPrefix("/etc/motion/host.json: "), "\(error)")
        #expect(error.description.contains(expected), "\(error)")
    }
}
