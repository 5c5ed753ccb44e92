import Foundation
import MotionCore
import MotionFiles
import Testing

@testable import MotionHost

/// The products directory (where the built plugin libraries are), found from the test bundle.
private let productsDirectory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    .deletingLastPathComponent()

/// Issue 11's hostile manifest: the trusted libCDeclarative.so (pinned), with libc's functions as its
/// performer's `create` and `destroy` and libc's `system` as a plan's call, so that the performer (a copy of
/// the target's name) would be run as a shell command.
private struct HostileManifest {
    let root = TemporaryFolder()
    let manifestURL: URL
    let configuration: HostConfiguration
    /// The file the target's shell command would create.
    let witness: URL

    init(create: String = "strdup", destroy: String = "free") throws {
        let folder = root.folder("plugins")
        let library = try Data(contentsOf: productsDirectory.appendingPathComponent("libCDeclarative.so"))
        try library.write(to: folder.appendingPathComponent("libCDeclarative.so"))
        chmod(folder.appendingPathComponent("libCDeclarative.so").path, 0o755)
        let manifest: JSONValue = [
            "manifestVersion": 1, "id": "org.example.hostile", "name": "Hostile", "version": "1.0.0",
            "abiVersion": "1.0", "library": "libCDeclarative.so",
            "performers": [
                [
                    "class": "Shell", "interface": "functions",
                    "functions": ["create": .string(create), "destroy": .string(destroy)],
                    "plans": [["type": "Run", "fields": [], "call": ["symbol": "system", "arguments": []]]],
                ]
            ],
        ]
        manifestURL = root.write("plugins/hostile.json", manifest)
        configuration = HostConfiguration(pins: ["libCDeclarative.so": SHA256.hexDigest(of: Array(library))])
        witness = root.url.appendingPathComponent("pwned")
    }

    /// The target whose name is the shell command.
    var targetName: String { "touch \(witness.path)" }
}

@Suite struct CodeTrustTests {
    @Test func aDeclaredFunctionFromALibraryDependencyIsRefusedAndNothingRuns() throws {
        let hostile = try HostileManifest()
        let manifest = try PluginManifest.load(contentsOf: hostile.manifestURL)
        let host = PluginHost(catalog: PluginCatalog(plugins: [manifest]), loader: LibraryLoader(configuration: hostile.configuration))
        let scene = Scene()
        scene.addTarget(TargetID(hostile.targetName))
        let scheduler = Scheduler(scene: scene, registry: host)
        var transaction = Transaction()
        transaction.add(Plan(type: "Run"), to: TargetID(hostile.targetName))
        var failure: (any Error)?
        do { try scheduler.commit(transaction) } catch { failure = error }
        #expect(!FileManager.default.fileExists(atPath: hostile.witness.path), "the target's name ran as a shell command")
        let error = try #require(failure as? CommitError)
        #expect("\(error)".contains("does not define strdup itself; it comes from "))
        #expect("\(error)".contains("libc.so"))
    }

    @Test func theValidatorRefusesTheSameManifestAndRunsNothing() throws {
        let hostile = try HostileManifest()
        var lines: [String] = []
        let validator = PluginValidator(
            manifestURL: hostile.manifestURL, loader: LibraryLoader(configuration: hostile.configuration),
            willStart: { _ in }, report: { lines.append($0.description) })
        #expect(validator.run() == false)
        #expect(lines.contains { $0.hasPrefix("FAIL") && $0.contains("does not define strdup itself") })
        #expect(!FileManager.default.fileExists(atPath: hostile.witness.path))
    }

    @Test func aManifestAloneInAWorldWritableFolderIsRefused() throws {
        let root = TemporaryFolder()
        let libraries = root.folder("lib")
        Fixtures.installLibrary(in: libraries)
        let open = root.folder("open")
        let manifestURL = root.write("open/fixture.json", Fixtures.tweenManifest(library: "libfixture.so"))
        chmod(open.path, 0o777)
        let manifest = try PluginManifest.load(contentsOf: manifestURL)
        let loader = LibraryLoader(configuration: HostConfiguration(libraryPaths: [libraries]))
        let error = try #require(throws: PluginError.self) { try loader.load(manifest) }
        #expect(error.code == .insecurePermissions)
        #expect(
            error.message
                == "the folder \(open.path) is writable by group or others (mode 0777); it was not loaded. To fix, run chmod go-w \(open.path)"
        )
        // Discovery does not read it either: it is reported, and declares nothing.
        let catalog = PluginCatalog.discover(searchPath: PluginSearchPath(directories: [open]))
        #expect(catalog.plugins.isEmpty)
        #expect(catalog.problems.map(\.code) == [.untrusted])
        #expect(catalog.problems.first?.message.hasSuffix("it was not read. To fix, run chmod go-w \(open.path)") == true)
    }

    @Test func aManifestLinkedFromATrustedFolderIsJudgedWhereItLeads() throws {
        let root = TemporaryFolder()
        let open = root.folder("open")
        let real = root.write("open/fixture.json", Fixtures.tweenManifest(library: "libfixture.so"))
        chmod(open.path, 0o777)
        let plugins = root.folder("plugins")
        #expect(symlink(real.path, plugins.appendingPathComponent("fixture.json").path) == 0)
        let catalog = PluginCatalog.discover(searchPath: PluginSearchPath(directories: [plugins]))
        #expect(catalog.plugins.isEmpty)
        #expect(catalog.problems.map(\.code) == [.untrusted])
        #expect(catalog.problems.first?.message.hasPrefix("the folder \(open.path) is writable by group or others") == true)
    }

    @Test func aWorldWritableFolderFurtherUpIsRefused() throws {
        let root = TemporaryFolder()
        let parent = root.folder("shared")
        let plugins = root.folder("shared/plugins")
        Fixtures.installLibrary(in: plugins)
        let manifestURL = root.write("shared/plugins/fixture.json", Fixtures.tweenManifest(library: "libfixture.so"))
        chmod(parent.path, 0o757)
        let error = try #require(throws: PluginError.self) {
            try LibraryLoader().load(try PluginManifest.load(contentsOf: manifestURL))
        }
        #expect(error.code == .insecurePermissions)
        #expect(
            error.message
                == "the folder \(parent.path), on the way to the manifest, is writable by group or others (mode 0757); it was not loaded. To fix, run chmod go-w \(parent.path)"
        )
        #expect(plugins.path.hasPrefix(parent.path))
    }

    @Test(.enabled(if: geteuid() == 0, "a sticky folder is accepted only when root owns it"))
    func aStickyFolderOwnedByRootIsAccepted() throws {
        let root = TemporaryFolder()
        let parent = root.folder("sticky")
        let plugins = root.folder("sticky/plugins")
        Fixtures.installLibrary(in: plugins)
        let manifestURL = root.write("sticky/plugins/fixture.json", Fixtures.tweenManifest(library: "libfixture.so"))
        chmod(parent.path, 0o1777)
        let library = try LibraryLoader().load(try PluginManifest.load(contentsOf: manifestURL))
        #expect(library.symbol("fixture_answer") != nil)
        // Without the sticky bit, the same folder is refused.
        let other = TemporaryFolder()
        let open = other.folder("open")
        let inside = other.folder("open/plugins")
        Fixtures.installLibrary(in: inside)
        let url = other.write("open/plugins/fixture.json", Fixtures.tweenManifest(library: "libfixture.so"))
        chmod(open.path, 0o777)
        #expect(throws: PluginError.self) { try LibraryLoader().load(try PluginManifest.load(contentsOf: url)) }
    }

    @Test(.enabled(if: geteuid() == 0, "changing a file's owner needs root"))
    func aManifestOwnedBySomeoneElseIsRefused() throws {
        let root = TemporaryFolder()
        let plugins = root.folder("plugins")
        Fixtures.installLibrary(in: plugins)
        let manifestURL = root.write("plugins/fixture.json", Fixtures.tweenManifest(library: "libfixture.so"))
        let manifest = try PluginManifest.load(contentsOf: manifestURL)
        chown(manifestURL.path, 4242, 4242)
        let error = try #require(throws: PluginError.self) { try LibraryLoader().load(manifest) }
        #expect(error.code == .wrongOwner)
        #expect(error.message.hasPrefix("the manifest \(manifestURL.path) is owned by user id 4242"))
    }

    @Test func theCheckedCodeRunsAfterTheFileIsPatchedOrOverwritten() throws {
        let root = TemporaryFolder()
        let plugins = root.folder("plugins")
        let file = Fixtures.installLibrary(in: plugins)
        let manifestURL = root.write("plugins/fixture.json", Fixtures.tweenManifest(library: "libfixture.so"))
        let library = try LibraryLoader().load(try PluginManifest.load(contentsOf: manifestURL))
        #expect(library.isSealed)
        typealias Answer = @convention(c) () -> Int32
        let answer = unsafeBitCast(try #require(library.symbol("fixture_answer")), to: Answer.self)
        #expect(answer() == 42)

        // Patch `mov eax, 42` (b8 2a 00 00 00) to 43 in place, as an attacker with write access would.
        var bytes = Fixtures.sharedLibrary
        let pattern: [UInt8] = [0xB8, 0x2A, 0x00, 0x00, 0x00]
        let offset = try #require(
            (0...(bytes.count - pattern.count)).first { Array(bytes[$0..<($0 + pattern.count)]) == pattern })
        bytes[offset + 1] = 0x2B
        let fd = open(file.path, O_WRONLY)
        #expect(pwrite(fd, &bytes[offset + 1], 1, off_t(offset + 1)) == 1)
        close(fd)
        try #require(answer() == 42, "the patched bytes run: the library was not loaded from a sealed copy")

        // Overwrite the whole file in place with something shorter; the loaded code keeps running.
        let truncating = open(file.path, O_WRONLY | O_TRUNC)
        #expect(write(truncating, "gone", 4) == 4)
        close(truncating)
        #expect(answer() == 42)
    }

    @Test(.timeLimit(.minutes(1)))
    func aFIFONamedAsTheLibraryIsRefusedWithoutWaiting() throws {
        let root = TemporaryFolder()
        let plugins = root.folder("plugins")
        #expect(mkfifo(plugins.appendingPathComponent("libfixture.so").path, 0o644) == 0)
        let manifestURL = root.write("plugins/fixture.json", Fixtures.tweenManifest(library: "libfixture.so"))
        let error = try #require(throws: PluginError.self) {
            try LibraryLoader().load(try PluginManifest.load(contentsOf: manifestURL))
        }
        #expect(error.code == .notARegularFile)
        #expect(error.message.hasPrefix("the library is a FIFO (named pipe), not a regular file"))
    }

    @Test func aLibraryLargerThanTheLimitIsRefusedUnread() throws {
        let root = TemporaryFolder()
        let plugins = root.folder("plugins")
        let file = plugins.appendingPathComponent("libfixture.so")
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        #expect(truncate(file.path, off_t(FileSizeLimit.library) + 1) == 0)  // sparse: no disk used
        chmod(file.path, 0o755)
        let manifestURL = root.write("plugins/fixture.json", Fixtures.tweenManifest(library: "libfixture.so"))
        let error = try #require(throws: PluginError.self) {
            try LibraryLoader().load(try PluginManifest.load(contentsOf: manifestURL))
        }
        #expect(error.code == .tooLarge)
        #expect(error.message.hasPrefix("the library is larger than the 512 MiB the host reads for it"))
    }

    @Test func verifyReportsWhatLoadWouldRefuseWithoutLoading() throws {
        let root = TemporaryFolder()
        let plugins = root.folder("plugins")
        let file = Fixtures.installLibrary(in: plugins)
        let manifestURL = root.write("plugins/fixture.json", Fixtures.tweenManifest(library: "libfixture.so"))
        let manifest = try PluginManifest.load(contentsOf: manifestURL)
        #expect(try LibraryLoader().verify(manifest).path == file.path)
        let pinned = LibraryLoader(configuration: HostConfiguration(pins: ["libfixture.so": String(repeating: "a", count: 64)]))
        #expect(throws: PluginError.self) { try pinned.verify(manifest) }
        chmod(file.path, 0o666)
        let error = try #require(throws: PluginError.self) { try LibraryLoader().verify(manifest) }
        #expect(error.code == .insecurePermissions)
        // Nothing was loaded: the registry holds no library from this folder.
        #expect(!LoadedLibrary.registry.withLock { $0.keys.contains { $0.path == file.path } })
    }
}

@Suite struct RegularFileTests {
    @Test func aFIFOAFolderAndADeviceBehindALinkAreRefusedAtOnce() throws {
        let root = TemporaryFolder()
        let fifo = root.url.appendingPathComponent("pipe.json").path
        #expect(mkfifo(fifo, 0o644) == 0)
        let link = root.url.appendingPathComponent("zero.json").path
        #expect(symlink("/dev/zero", link) == 0)
        let folder = root.folder("folder.json").path
        for (path, kind) in [(fifo, "a FIFO (named pipe)"), (link, "a character device"), (folder, "a folder")] {
            let error = try #require(throws: FileReadError.self) {
                try RegularFile.read(atPath: path, limit: FileSizeLimit.manifest, what: "the manifest")
            }
            #expect(error.code == .notARegularFile)
            #expect(error.description.hasPrefix("\(path): the manifest is \(kind), not a regular file"))
        }
    }

    @Test func aFileIsReadUpToItsLimitAndRefusedPastIt() throws {
        let root = TemporaryFolder()
        let file = root.write("ten.json", "0123456789").path
        #expect(try RegularFile.read(atPath: file, limit: 10, what: "the scene") == Array("0123456789".utf8))
        let error = try #require(throws: FileReadError.self) { try RegularFile.read(atPath: file, limit: 9, what: "the scene") }
        #expect(error.code == .tooLarge)
        #expect(error.message.hasPrefix("the scene is larger than the 9 bytes the host reads for it"))
        #expect(try RegularFile.read(atPath: root.write("empty.json", "").path, limit: 0, what: "x").isEmpty)
    }

    @Test func aMissingFileIsNamed() throws {
        let error = try #require(throws: FileReadError.self) {
            try RegularFile.read(atPath: "/nonexistent/x.json", limit: 1, what: "the scene")
        }
        #expect(error.code == .notFound)
        #expect(error.description == "/nonexistent/x.json: no such file. To fix, check the path of the scene")
    }
}

@Suite struct ShadowedManifestTests {
    @Test func theConfigurationPicksOneOfTwoManifestsOfAPluginIDByPath() throws {
        let root = TemporaryFolder()
        let early = root.write("early/tween.json", Fixtures.tweenManifest())
        let late = root.write("late/tween.json", Fixtures.tweenManifest())
        let path = PluginSearchPath(directories: [early.deletingLastPathComponent(), late.deletingLastPathComponent()])
        // Without a choice, the earlier folder's is used and the other is shadowed by it.
        let plain = PluginCatalog.discover(searchPath: path)
        #expect(plain.plugins.map(\.url) == [early])
        #expect(plain.shadowed == [.init(pluginID: "org.example.tween", used: early, ignored: late, isConfigured: false)])
        // The configuration picks the later one.
        let configuration = HostConfiguration(pluginManifests: ["org.example.tween": late])
        let picked = PluginCatalog.discover(searchPath: path, configuration: configuration)
        #expect(picked.plugins.map(\.url) == [late])
        #expect(picked.shadowed == [.init(pluginID: "org.example.tween", used: late, ignored: early, isConfigured: true)])
        #expect(picked.problems.isEmpty)
        // A choice that names no manifest found is a problem of the configuration.
        let wrong = HostConfiguration(pluginManifests: ["org.example.tween": root.url.appendingPathComponent("nowhere.json")])
        let missing = PluginCatalog.discover(searchPath: path, configuration: wrong)
        #expect(missing.plugins.isEmpty)
        #expect(missing.problems.map(\.jsonPath) == ["$.pluginManifests[\"org.example.tween\"]"])
    }

    @Test func theConfigurationReadsPluginManifestsRelativeToItsFolder() throws {
        let root = TemporaryFolder()
        let file = root.write("host.json", #"{"pluginManifests": {"org.example.tween": "plugins/tween.json"}}"#)
        let configuration = try HostConfiguration.load(contentsOf: file)
        #expect(configuration.pluginManifests["org.example.tween"]?.path == root.url.appendingPathComponent("plugins/tween.json").path)
        let bad = root.write("bad.json", #"{"pluginManifests": {"tween": "x.json"}}"#)
        let error = try #require(throws: ManifestError.self) { try HostConfiguration.load(contentsOf: bad) }
        #expect(error.jsonPath == "$.pluginManifests.tween")
    }
}

@Suite struct ExportsCheckTests {
    @Test func validateWarnsWhenALibraryExportsMoreThanItsDeclaredFunctions() throws {
        let root = TemporaryFolder()
        let plugins = root.folder("plugins")
        let source = root.write(
            "leaky.c",
            """
            #include <stdint.h>
            #include <stdlib.h>
            void *leaky_create(const char *c, const char *t, void *h) { (void)c; (void)t; (void)h; return malloc(1); }
            void leaky_destroy(void *p) { free(p); }
            int32_t leaky_set(void *p) { (void)p; return 0; }
            int leaky_internal_helper(void) { return 1; }
            int leaky_table[4];
            """)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["cc", "-shared", "-fPIC", "-o", plugins.appendingPathComponent("libleaky.so").path, source.path]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        let manifest: JSONValue = [
            "manifestVersion": 1, "id": "org.example.leaky", "name": "Leaky", "version": "1.0.0", "abiVersion": "1.0",
            "library": "libleaky.so",
            "performers": [
                [
                    "class": "Leaky", "interface": "functions",
                    "functions": ["create": "leaky_create", "destroy": "leaky_destroy"],
                    "plans": [["type": "Leak", "fields": [], "call": ["symbol": "leaky_set", "arguments": []]]],
                ]
            ],
        ]
        let url = root.write("plugins/leaky.json", manifest)
        var lines: [String] = []
        let validator = PluginValidator(manifestURL: url, loader: LibraryLoader(), willStart: { _ in }, report: { lines.append($0.description) })
        #expect(validator.run())  // a warning is not a failure
        let exports = try #require(lines.first { $0.contains(" exports") })
        #expect(exports.hasPrefix("WARN exports: exports 2 symbols beyond what the ABI and the manifest need (leaky_"))
        #expect(exports.contains("leaky_internal_helper") && exports.contains("leaky_table"))
        #expect(
            exports.hasSuffix(
                "To fix, link with a version script that lists only leaky_create, leaky_destroy, leaky_set (Plugins/entry-only.map with -use-ld=lld; the README's plugin sections show the settings)"
            ))
    }

    @Test func theDynamicSymbolTableOfABuiltPluginHoldsOnlyItsEntry() throws {
        let library = try Data(contentsOf: productsDirectory.appendingPathComponent("libTweenKit.so"))
        #expect(ELFExports.names(in: Array(library)) == ["motion_plugin_entry"])
        #expect(ELFExports.names(in: Array("not an ELF file".utf8)) == nil)
    }
}

/// From a security review of the trust checks: what a rewritten plugin folder could still do, refused.
@Suite struct ReviewedTrustTests {
    /// Builds a shared library from C source into `folder` with extra compiler arguments.
    private func build(_ source: String, named name: String, in folder: URL, extra: [String] = []) throws -> URL {
        let file = folder.appendingPathComponent("\(name).c")
        try Data(source.utf8).write(to: file)
        let output = folder.appendingPathComponent("lib\(name).so")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["cc", "-shared", "-fPIC", "-o", output.path, file.path] + extra
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        chmod(output.path, 0o755)
        return output
    }

    @Test func aLibraryWhoseRunPathIsNotRootOwnedIsRefusedBeforeItLoads() throws {
        let root = TemporaryFolder()
        let plugins = root.folder("plugins")
        let deps = root.folder("deps")  // owned by this user (a test runs as root here, so chown it away)
        _ = try build("int fixture_answer(void) { return 42; }\n", named: "fixture", in: plugins, extra: ["-Wl,-rpath,\(deps.path)"])
        let manifestURL = root.write("plugins/fixture.json", Fixtures.tweenManifest(library: "libfixture.so"))
        let manifest = try PluginManifest.load(contentsOf: manifestURL)
        if geteuid() == 0 { chown(deps.path, 4242, 4242) }
        let error = try #require(throws: PluginError.self) { try LibraryLoader().load(manifest) }
        #expect(error.code == .insecurePermissions)
        #expect(error.message.contains("asks the dynamic linker to load libraries from \(deps.path), which is not a folder owned by root"))
    }

    @Test func requirePinsRefusesALibraryNoPinNamesWithItsHash() throws {
        let root = TemporaryFolder()
        let plugins = root.folder("plugins")
        Fixtures.installLibrary(in: plugins)
        let manifestURL = root.write("plugins/fixture.json", Fixtures.tweenManifest(library: "libfixture.so"))
        let manifest = try PluginManifest.load(contentsOf: manifestURL)
        let strict = LibraryLoader(configuration: HostConfiguration(pins: ["libother.so": String(repeating: "0", count: 64)], requiresPins: true))
        let error = try #require(throws: PluginError.self) { try strict.load(manifest) }
        #expect(error.code == .notPinned)
        #expect(error.message.hasSuffix("add to its pins: \"libfixture.so\": \"\(SHA256.hexDigest(of: Fixtures.sharedLibrary))\""))
        // With the pin it loads.
        let pinned = LibraryLoader(
            configuration: HostConfiguration(pins: ["libfixture.so": SHA256.hexDigest(of: Fixtures.sharedLibrary)], requiresPins: true))
        #expect(try pinned.load(manifest).symbol("fixture_answer") != nil)
        let file = root.write("host.json", #"{"requirePins": true}"#)
        #expect(try HostConfiguration.load(contentsOf: file).requiresPins)
    }

    @Test func verifyRefusesALibraryOverTheLimitAsLoadDoes() throws {
        let root = TemporaryFolder()
        let plugins = root.folder("plugins")
        let file = plugins.appendingPathComponent("libfixture.so")
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        #expect(truncate(file.path, off_t(FileSizeLimit.library) + 1) == 0)
        chmod(file.path, 0o755)
        let manifest = try PluginManifest.load(contentsOf: root.write("plugins/fixture.json", Fixtures.tweenManifest(library: "libfixture.so")))
        let error = try #require(throws: PluginError.self) { try LibraryLoader().verify(manifest) }
        #expect(error.code == .tooLarge)
    }

    @Test func theEntrySymbolCannotBeDeclaredAsAFunction() throws {
        let root = TemporaryFolder()
        let manifest: JSONValue = [
            "manifestVersion": 1, "id": "org.example.entry", "name": "Entry", "version": "1.0.0", "abiVersion": "1.0",
            "library": "libx.so",
            "performers": [
                [
                    "class": "X", "interface": "functions",
                    "functions": ["create": "motion_plugin_entry", "destroy": "x_destroy"], "plans": [],
                ]
            ],
        ]
        let error = try #require(throws: ManifestError.self) { try PluginManifest.load(contentsOf: root.write("x.json", manifest)) }
        #expect(error.jsonPath == "$.performers[0].functions.create")
        #expect(error.message.hasPrefix("expected a function of the library's own other than motion_plugin_entry"))
    }

    @Test func aLinkToATrustedManifestInAWorldWritableFolderIsRefused() throws {
        let root = TemporaryFolder()
        let real = root.write("trusted/fixture.json", Fixtures.tweenManifest(library: "libfixture.so"))
        let open = root.folder("open")
        #expect(symlink(real.path, open.appendingPathComponent("fixture.json").path) == 0)
        chmod(open.path, 0o777)
        let catalog = PluginCatalog.discover(searchPath: PluginSearchPath(directories: [open]))
        #expect(catalog.plugins.isEmpty)
        #expect(catalog.problems.map(\.code) == [.untrusted])
    }

    @Test func aDeclaredCallFromADependencyIsRefusedWhenCreateAndDestroyAreTheLibrarysOwn() throws {
        // libCDeclarative's own level_create and level_destroy, and libc's system as a plan's call.
        let hostile = try HostileManifest(create: "level_create", destroy: "level_destroy")
        let manifest = try PluginManifest.load(contentsOf: hostile.manifestURL)
        let host = PluginHost(catalog: PluginCatalog(plugins: [manifest]), loader: LibraryLoader(configuration: hostile.configuration))
        let scene = Scene()
        scene.addTarget(TargetID(hostile.targetName))
        let scheduler = Scheduler(scene: scene, registry: host)
        var failure: (any Error)?
        do { try scheduler.commit(Transaction([.add(Plan(type: "Run"), target: TargetID(hostile.targetName))])) } catch { failure = error }
        #expect(!FileManager.default.fileExists(atPath: hostile.witness.path))
        #expect("\(try #require(failure))".contains("does not define system itself"))
    }
}
