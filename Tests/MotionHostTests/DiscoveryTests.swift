import Foundation
import MotionCore
import Testing

@testable import MotionHost

@Suite struct DiscoveryTests {
    // MARK: Search path

    @Test func searchPathOrderIsExplicitEnvironmentConfigurationDataSystem() {
        let configuration = HostConfiguration(searchPaths: [URL(fileURLWithPath: "/cfg/plugins")])
        let path = PluginSearchPath(
            explicit: [URL(fileURLWithPath: "/a"), URL(fileURLWithPath: "/b")], configuration: configuration,
            environment: ["MOTION_PLUGIN_PATH": "/e1::/e2", "XDG_DATA_HOME": "/data", "HOME": "/home/u"])
        #expect(
            path.directories.map(\.path) == [
                "/a", "/b", "/e1", "/e2", "/cfg/plugins", "/data/motion/plugins", "/usr/local/lib/motion/plugins",
                "/usr/lib/motion/plugins",
            ])
        #expect(
            path.entries.map(\.origin) == [
                .explicit, .explicit, .environment, .environment, .configuration, .userData, .system, .system,
            ])
    }

    @Test func dataFolderDefaultsToHomeLocalShare() {
        let path = PluginSearchPath(environment: ["HOME": "/home/u"])
        #expect(path.directories.map(\.path).first == "/home/u/.local/share/motion/plugins")
    }

    @Test func folderListedTwiceIsSearchedOnceAtItsFirstPlace() {
        let path = PluginSearchPath(
            explicit: [URL(fileURLWithPath: "/p")], environment: ["MOTION_PLUGIN_PATH": "/q:/p/:/q"],
            includeStandardFolders: false)
        #expect(path.directories.map(\.path) == ["/p", "/q"])
        #expect(path.entries.map(\.origin) == [.explicit, .environment])
    }

    // MARK: Catalog

    @Test func oneInvalidManifestDoesNotStopTheOthers() throws {
        let folder = TemporaryFolder()
        folder.write("a-tween.json", Fixtures.tweenManifest())
        let bad = folder.write("b-bad.json", Fixtures.blinkManifest().setting([.key("abiVersion")], to: "1"))
        folder.write("c-broken.json", "{ nope")
        let catalog = PluginCatalog.discover(searchPath: PluginSearchPath(directories: [folder.url]))
        #expect(catalog.plugins.map(\.id) == ["org.example.tween"])
        #expect(catalog.planTypes == ["FadeIn", "Tween"])
        #expect(catalog.problems.count == 2)
        #expect(
            catalog.problems.first?.description
                == "\(bad.relativePath): $.abiVersion: expected \"MAJOR.MINOR\" of motion_plugin.h, such as \"1.0\"; found \"1\""
        )
        #expect(catalog.problems.last?.code == .invalidJSON)
    }

    @Test func onlyJSONFilesDirectlyInTheFolderAreRead() {
        let folder = TemporaryFolder()
        folder.write("tween.json", Fixtures.tweenManifest())
        folder.write(".hidden.json", Fixtures.blinkManifest())
        folder.write("notes.txt", "not a manifest")
        folder.write("schema/manifest.schema.json", "{}")
        let catalog = PluginCatalog.discover(searchPath: PluginSearchPath(directories: [folder.url]))
        #expect(catalog.plugins.map(\.id) == ["org.example.tween"])
        #expect(catalog.problems.isEmpty)
    }

    @Test func problemsShowPathsAsTheFolderWasGiven() throws {
        let folder = TemporaryFolder()
        folder.write("plugins/bad.json", Fixtures.tweenManifest().setting([.key("id")], to: "x"))
        // A folder URL relative to a base (as "--plugin-path plugins" is to the current directory).
        let relative = URL(fileURLWithPath: "plugins", relativeTo: folder.url)
        let catalog = PluginCatalog.discover(searchPath: PluginSearchPath(directories: [relative]))
        #expect(
            catalog.problems.first?.description
                == "plugins/bad.json: $.id: expected a reverse-DNS id such as \"org.example.myplugin\"; found \"x\"")
    }

    @Test func entryGivesPluginPerformerAndPlan() throws {
        let folder = TemporaryFolder()
        folder.write("tween.json", Fixtures.tweenManifest())
        folder.write("blink.json", Fixtures.blinkManifest())
        let catalog = PluginCatalog.discover(searchPath: PluginSearchPath(directories: [folder.url]))
        let entry = try #require(catalog.entry(forPlanType: "Blink"))
        #expect(entry.plugin.id == "org.example.blink")
        #expect(entry.performer.className == "Blinker")
        #expect(entry.plan.call?.symbol == "blink_add")
        #expect(catalog.unavailability(ofPlanType: "Blink") == nil)
        #expect(catalog.planTypes == ["Blink", "FadeIn", "Tween"])
        #expect(catalog.plugin(id: "org.example.tween")?.name == "Tween")
    }

    @Test func twoManifestsClaimingOnePlanTypeMakeItUnavailableAndNameBothFiles() throws {
        let folder = TemporaryFolder()
        let first = folder.write("a.json", Fixtures.tweenManifest(id: "org.a.tween", planTypes: ["Tween", "FadeIn"]))
        let second = folder.write("b.json", Fixtures.tweenManifest(id: "org.b.tween", planTypes: ["Spin", "Tween"]))
        let catalog = PluginCatalog.discover(searchPath: PluginSearchPath(directories: [folder.url]))
        #expect(catalog.plugins.count == 2)
        #expect(catalog.entry(forPlanType: "Tween") == nil)
        #expect(catalog.planTypes == ["FadeIn", "Spin"])
        let expected =
            "\(first.relativePath): $.performers[0].plans[0].type: plan type \"Tween\" is declared by this manifest (org.a.tween) and by \(second.relativePath) (org.b.tween, $.performers[0].plans[1].type); it is unavailable until one is removed or disabled, or the host configuration's planTypeOwners names its owner"
        #expect(catalog.problems.map(\.description) == [expected])
        #expect(catalog.problems.first?.code == .conflict)
        #expect(catalog.unavailability(ofPlanType: "Tween")?.description == expected)
    }

    @Test func planTypeOwnerSettlesAContest() throws {
        let folder = TemporaryFolder()
        folder.write("a.json", Fixtures.tweenManifest(id: "org.a.tween"))
        folder.write("b.json", Fixtures.tweenManifest(id: "org.b.tween"))
        let configuration = HostConfiguration(planTypeOwners: ["Tween": "org.b.tween", "FadeIn": "org.a.tween"])
        let catalog = PluginCatalog.discover(
            searchPath: PluginSearchPath(directories: [folder.url]), configuration: configuration)
        #expect(catalog.problems.isEmpty)
        #expect(catalog.entry(forPlanType: "Tween")?.plugin.id == "org.b.tween")
        #expect(catalog.entry(forPlanType: "FadeIn")?.plugin.id == "org.a.tween")
    }

    @Test func ownerThatDoesNotDeclareThePlanTypeIsAProblem() throws {
        let root = TemporaryFolder()
        let folder = root.folder("plugins")
        root.write("plugins/a.json", Fixtures.tweenManifest(id: "org.a.tween"))
        let configFile = root.write("config/host.json", "{\"planTypeOwners\": {\"Tween\": \"org.gone.tween\"}}")
        let configuration = try HostConfiguration.load(contentsOf: configFile)
        let catalog = PluginCatalog.discover(
            searchPath: PluginSearchPath(directories: [folder]), configuration: configuration)
        #expect(catalog.entry(forPlanType: "Tween") == nil)
        #expect(catalog.entry(forPlanType: "FadeIn") != nil)
        #expect(
            catalog.problems.map(\.description) == [
                "\(configFile.relativePath): $.planTypeOwners.Tween: expected the id of an enabled plugin that declares plan type \"Tween\" (org.a.tween); found \"org.gone.tween\". The plan type is unavailable until the owner is fixed"
            ])
    }

    @Test func disabledPluginIsNotUsedAndItsPlanTypesSayWhy() throws {
        let folder = TemporaryFolder()
        folder.write("a.json", Fixtures.tweenManifest(id: "org.a.tween"))
        let disabledFile = folder.write("b.json", Fixtures.blinkManifest(id: "org.b.blink"))
        let configuration = HostConfiguration(disabledPlugins: ["org.b.blink"])
        let catalog = PluginCatalog.discover(
            searchPath: PluginSearchPath(directories: [folder.url]), configuration: configuration)
        #expect(catalog.plugins.map(\.id) == ["org.a.tween"])
        #expect(catalog.disabled.map(\.id) == ["org.b.blink"])
        #expect(catalog.entry(forPlanType: "Blink") == nil)
        let reason = try #require(catalog.unavailability(ofPlanType: "Blink"))
        #expect(reason.code == .disabled)
        #expect(
            reason.description
                == "\(disabledFile.relativePath): plan type \"Blink\" is declared by plugin org.b.blink, which the host configuration disables. To use it, remove the id from disabledPlugins"
        )
    }

    @Test func disablingOneOfTwoClaimantsSettlesTheContest() {
        let folder = TemporaryFolder()
        folder.write("a.json", Fixtures.tweenManifest(id: "org.a.tween"))
        folder.write("b.json", Fixtures.tweenManifest(id: "org.b.tween"))
        let catalog = PluginCatalog.discover(
            searchPath: PluginSearchPath(directories: [folder.url]),
            configuration: HostConfiguration(disabledPlugins: ["org.a.tween"]))
        #expect(catalog.problems.isEmpty)
        #expect(catalog.entry(forPlanType: "Tween")?.plugin.id == "org.b.tween")
    }

    @Test func invalidManifestOfADisabledPluginIsNotReported() {
        let folder = TemporaryFolder()
        folder.write("bad.json", Fixtures.blinkManifest(id: "org.b.blink").setting([.key("version")], to: "x"))
        let catalog = PluginCatalog.discover(
            searchPath: PluginSearchPath(directories: [folder.url]),
            configuration: HostConfiguration(disabledPlugins: ["org.b.blink"]))
        #expect(catalog.problems.isEmpty)
        #expect(catalog.plugins.isEmpty)
    }

    @Test func earlierFolderWinsForOnePluginID() throws {
        let root = TemporaryFolder()
        let explicit = root.folder("explicit")
        let fromEnvironment = root.folder("env")
        let used = root.write("explicit/tween.json", Fixtures.tweenManifest(planTypes: ["Tween"]))
        let ignored = root.write("env/tween.json", Fixtures.tweenManifest(planTypes: ["Tween", "FadeIn"]))
        let path = PluginSearchPath(
            explicit: [explicit], environment: ["MOTION_PLUGIN_PATH": fromEnvironment.path],
            includeStandardFolders: false)
        let catalog = PluginCatalog.discover(searchPath: path)
        #expect(catalog.plugins.map(\.url) == [used])
        #expect(catalog.planTypes == ["Tween"])
        #expect(catalog.shadowed == [.init(pluginID: "org.example.tween", used: used, ignored: ignored, isConfigured: false)])
        #expect(catalog.problems.isEmpty)
    }

    @Test func environmentFolderComesBeforeConfigurationFolder() throws {
        let root = TemporaryFolder()
        let fromEnvironment = root.folder("env")
        let fromConfiguration = root.folder("cfg")
        root.write("cfg/t.json", Fixtures.tweenManifest(planTypes: ["Tween"]))
        let used = root.write("env/t.json", Fixtures.tweenManifest(planTypes: ["FadeIn"]))
        let path = PluginSearchPath(
            configuration: HostConfiguration(searchPaths: [fromConfiguration]),
            environment: ["MOTION_PLUGIN_PATH": fromEnvironment.path], includeStandardFolders: false)
        let catalog = PluginCatalog.discover(searchPath: path)
        #expect(catalog.plugins.map(\.url) == [used])
        #expect(catalog.planTypes == ["FadeIn"])
    }

    @Test func missingExplicitFolderIsReportedButMissingStandardFoldersAreNot() {
        let root = TemporaryFolder()
        let missing = root.url.appendingPathComponent("nope")
        let catalog = PluginCatalog.discover(
            searchPath: PluginSearchPath(
                explicit: [missing], environment: ["HOME": root.path, "MOTION_PLUGIN_PATH": root.path + "/also-nope"]))
        #expect(
            catalog.problems.map(\.description) == [
                "\(missing.relativePath): cannot search this plugin folder: No such file or directory. To fix, check the path given"
            ])
    }

    @Test func unknownPlanTypeSuggestsTheNearestKnownOne() throws {
        let folder = TemporaryFolder()
        folder.write("t.json", Fixtures.tweenManifest())
        let catalog = PluginCatalog.discover(searchPath: PluginSearchPath(directories: [folder.url]))
        let reason = try #require(catalog.unavailability(ofPlanType: "Twen"))
        #expect(reason.code == .unknownPlanType)
        #expect(
            reason.description
                == "no manifest on the plugin search path declares plan type \"Twen\" (did you mean \"Tween\"?); known plan types: FadeIn, Tween. To fix, install the plugin or add its folder with --plugin-path or MOTION_PLUGIN_PATH"
        )
    }

    @Test func manyManifestsAreReadInParallelButReportedInSearchOrder() throws {
        let root = TemporaryFolder()
        let first = root.folder("first")
        let second = root.folder("second")
        var expectedIDs: [String] = []
        var expectedProblems: [String] = []
        for n in 0..<80 {
            let folderName = n < 40 ? "first" : "second"
            let name = String(format: "%@/m%03d.json", folderName, n)
            let id = "org.many.p\(n)"
            if n % 7 == 3 {
                let url = root.write(
                    name, Fixtures.tweenManifest(id: id, planTypes: ["T\(n)"]).setting([.key("name")], to: 1))
                expectedProblems.append(url.relativePath)
            } else {
                root.write(name, Fixtures.tweenManifest(id: id, planTypes: ["T\(n)"]))
                expectedIDs.append(id)
            }
        }
        let catalog = PluginCatalog.discover(searchPath: PluginSearchPath(directories: [first, second]))
        #expect(catalog.plugins.map(\.id) == expectedIDs)
        #expect(catalog.problems.compactMap { $0.file?.relativePath } == expectedProblems)
        #expect(catalog.problems.allSatisfy { $0.jsonPath == "$.name" })
        #expect(catalog.planTypes.count == expectedIDs.count)
    }

    // MARK: Cache

    @Test func cachedDiscoveryEqualsAFreshOne() throws {
        let folder = TemporaryFolder()
        folder.write("tween.json", Fixtures.tweenManifest())
        folder.write("blink.json", Fixtures.blinkManifest())
        folder.write("bad.json", #"{"manifestVersion": 1}"#)
        let cache = DiscoveryCache(url: folder.url.appendingPathComponent("cache/discovery.cache"))
        let path = PluginSearchPath(directories: [folder.url])
        let fresh = PluginCatalog.discover(searchPath: path)
        let writing = PluginCatalog.discover(searchPath: path, cache: cache)
        #expect(FileManager.default.fileExists(atPath: cache.url.path))
        let reading = PluginCatalog.discover(searchPath: path, cache: cache)
        #expect(writing.plugins == fresh.plugins)
        #expect(reading.plugins == fresh.plugins)
        #expect(reading.problems == fresh.problems)
        #expect(reading.problems.count == 1)
        // Every field survives the cache, defaults, enums and calls included.
        let blink = try #require(reading.plugin(id: "org.example.blink"))
        #expect(blink.performers[0].functions?.update == "blink_update")
        #expect(reading.entry(forPlanType: "Tween")?.plan.field(named: "timing")?.enumValues?.count == 4)
    }

    @Test func cacheNoticesAnEditedManifest() throws {
        let folder = TemporaryFolder()
        let file = folder.write("tween.json", Fixtures.tweenManifest())
        let cache = DiscoveryCache(url: folder.url.appendingPathComponent("c/d.cache"))
        let path = PluginSearchPath(directories: [folder.url])
        _ = PluginCatalog.discover(searchPath: path, cache: cache)
        folder.write("tween.json", Fixtures.tweenManifest().setting([.key("summary")], to: "Edited."))
        let after = PluginCatalog.discover(searchPath: path, cache: cache)
        #expect(after.plugins.first?.summary == "Edited.")
        #expect(after.plugins.first?.url == file)
        try FileManager.default.removeItem(at: file)
        #expect(PluginCatalog.discover(searchPath: path, cache: cache).plugins.isEmpty)
    }

    @Test func corruptCacheIsIgnoredAndRewritten() throws {
        let folder = TemporaryFolder()
        folder.write("tween.json", Fixtures.tweenManifest())
        let cacheFile = folder.write("d.cache", "MOTIONDC garbage")
        chmod(cacheFile.path, 0o600)
        let cache = DiscoveryCache(url: cacheFile)
        let catalog = PluginCatalog.discover(searchPath: PluginSearchPath(directories: [folder.url]), cache: cache)
        #expect(catalog.plugins.map(\.id) == ["org.example.tween"])
        let rewritten = try Data(contentsOf: cacheFile)
        #expect(rewritten.count > 100)
        #expect(Array(rewritten.prefix(8)) == Array("MOTIONDC".utf8))
    }

    @Test func truncatedOrFlippedCacheNeverBreaksDiscovery() throws {
        let folder = TemporaryFolder()
        folder.write("blink.json", Fixtures.blinkManifest())
        let path = PluginSearchPath(directories: [folder.url])
        let good = folder.url.appendingPathComponent("good.cache")
        _ = PluginCatalog.discover(searchPath: path, cache: DiscoveryCache(url: good))
        let bytes = try Data(contentsOf: good)
        let expected = PluginCatalog.discover(searchPath: path).plugins
        let damaged = folder.url.appendingPathComponent("damaged.cache")
        for cut in stride(from: 0, to: bytes.count, by: 5) {
            var copy = bytes
            if cut % 2 == 0 { copy = copy.prefix(cut) } else { copy[cut] ^= 0xFF }
            try copy.write(to: damaged)
            chmod(damaged.path, 0o600)
            let catalog = PluginCatalog.discover(searchPath: path, cache: DiscoveryCache(url: damaged))
            #expect(catalog.plugins.map(\.id) == expected.map(\.id), "damage at byte \(cut)")
        }
    }

    @Test func aLinkPlacedAtTheCachesTemporaryNameIsNotFollowed() throws {
        // Saving writes `CACHE.PID.tmp` and renames it into place; a symbolic link left at that name (by
        // whoever can write the cache's folder) must not make the save truncate and overwrite what it points to.
        let folder = TemporaryFolder()
        folder.write("tween.json", Fixtures.tweenManifest())
        let victim = folder.write("victim.txt", "keep me")
        let cacheURL = folder.url.appendingPathComponent("d.cache")
        let temporary = cacheURL.path + ".\(ProcessInfo.processInfo.processIdentifier).tmp"
        try FileManager.default.createSymbolicLink(atPath: temporary, withDestinationPath: victim.path)
        let catalog = PluginCatalog.discover(
            searchPath: PluginSearchPath(directories: [folder.url]), cache: DiscoveryCache(url: cacheURL))
        #expect(catalog.plugins.map(\.id) == ["org.example.tween"])
        #expect(try String(contentsOf: victim, encoding: .utf8) == "keep me")
        #expect(Array(try Data(contentsOf: cacheURL).prefix(8)) == Array("MOTIONDC".utf8))
        #expect(!FileManager.default.fileExists(atPath: temporary))
    }

    @Test func standardCacheFileFollowsXDGCacheHome() {
        #expect(
            DiscoveryCache.standard(environment: ["XDG_CACHE_HOME": "/c"]).url.path == "/c/motion/discovery-v3.cache")
        #expect(
            DiscoveryCache.standard(environment: ["HOME": "/home/u"]).url.path
                == "/home/u/.cache/motion/discovery-v3.cache")
    }

    // MARK: The project's own manifests

    @Test func everyManifestInTheRepositoryLoads() throws {
        let folder = Fixtures.packageRoot.appendingPathComponent("manifests")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names.sorted() where name.hasSuffix(".json") {
            let url = folder.appendingPathComponent(name)
            #expect(throws: Never.self, "\(name)") { try PluginManifest.load(contentsOf: url) }
        }
        let catalog = PluginCatalog.discover(searchPath: PluginSearchPath(directories: [folder]))
        #expect(catalog.problems.map(\.description) == [])
    }
}
