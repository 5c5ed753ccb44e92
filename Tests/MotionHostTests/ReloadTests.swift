import Foundation
import MotionCore
import MotionFiles
import Testing

@testable import MotionHost

/// Builds of the hot-reload fixture, `Tests/Fixtures/reload/reloadable.c`, into a plugin folder with its
/// manifest: each build a different library of the same plugin id and soname.
struct ReloadableBuilds {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let root = TemporaryFolder()
    let plugins: URL
    let manifestURL: URL
    var library: URL { plugins.appendingPathComponent("libreloadable.so") }

    /// A plugin folder with the manifest and a first build (offset 0) in place.
    init() throws {
        plugins = root.folder("plugins")
        let manifest = try String(
            contentsOf: Self.packageRoot.appendingPathComponent("Tests/Fixtures/reload/reloadable.json"), encoding: .utf8)
        manifestURL = root.write("plugins/reloadable.json", manifest)
        try install(offset: 0)
    }

    /// Builds a variant beside the library and renames it over the library, as a linker does.
    /// - Parameters:
    ///   - offset: What the build adds to each plan's value.
    ///   - refuses: Whether its entry refuses to load.
    ///   - refusedTarget: A target the build makes no performer for (its `create_performer` fails).
    ///   - crashTarget: A target the build aborts making a performer for.
    ///   - hangTarget: A target the build never returns from making a performer for.
    func install(offset: Int, refuses: Bool = false, refusedTarget: String? = nil, crashTarget: String? = nil, hangTarget: String? = nil)
        throws
    {
        let staged = plugins.appendingPathComponent(".libreloadable.so.tmp")
        try Self.build(
            to: staged,
            flags: ["-DSTEP_OFFSET=\(offset)"] + (refuses ? ["-DREFUSE"] : []) + (refusedTarget.map { ["-DREFUSE_TARGET=\"\($0)\""] } ?? [])
                + (crashTarget.map { ["-DCRASH_TARGET=\"\($0)\""] } ?? []) + (hangTarget.map { ["-DHANG_TARGET=\"\($0)\""] } ?? []))
        #expect(rename(staged.path, library.path) == 0)
    }

    /// `cc -shared` of the fixture with its soname, and `flags`.
    static func build(to output: URL, flags: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            [
                "cc", "-shared", "-fPIC", "-fvisibility=hidden", "-Wl,--no-undefined", "-Wl,-soname,libreloadable.so",
                "-I", packageRoot.appendingPathComponent("Sources/CMotionABI/include").path,
                packageRoot.appendingPathComponent("Tests/Fixtures/reload/reloadable.c").path, "-o", output.path,
            ] + flags
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "cc failed for the reload fixture")
        chmod(output.path, 0o755)
    }
}

/// Hot reload in the plugin host (issue 14): a rebuilt library is loaded from a new sealed copy, checked,
/// and its performers replace the old ones (R43); one that fails its checks leaves the old code running.
@Suite struct ReloadTests {
    /// A scheduler over a host of the fixture, with `level` and `other` on target `t`.
    final class Run {
        let builds: ReloadableBuilds
        let host: PluginHost
        let scene = Scene()
        let scheduler: Scheduler
        private var frame = 0

        init(loader: LibraryLoader = LibraryLoader()) throws {
            builds = try ReloadableBuilds()
            let manifest = try PluginManifest.load(contentsOf: builds.manifestURL)
            host = PluginHost(catalog: PluginCatalog(plugins: [manifest]), loader: loader, logSink: { _, _ in })
            scene.addTarget("t", properties: ["level": PropertyValue(0), "other": PropertyValue(0)])
            scheduler = Scheduler(scene: scene, registry: host)
            scheduler.recordsPlansForRecreation = true
        }

        func advance() {
            scheduler.advanceFrame(to: Double(frame) / 60)
            frame += 1
        }

        func value(_ property: String) -> Double? { scene.target("t")?[property]?.scalar }

        /// Commits a `Step` plan to `t` (named, when `name` is given).
        func step(_ property: String, _ value: Double? = nil, named name: String? = nil) throws {
            var fields: [String: JSONValue] = ["property": .string(property)]
            if let value { fields["value"] = .number(value) }
            var transaction = Transaction()
            if let name {
                transaction.add(Plan(type: "Step", fields: fields), named: name, to: "t")
            } else {
                transaction.add(Plan(type: "Step", fields: fields), to: "t")
            }
            try scheduler.commit(transaction)
        }

        /// Reloads the fixture, returning the error it failed with, if any.
        func failedReload() -> PluginError? {
            do {
                _ = try host.reload(pluginID: "org.example.reloadable", in: scheduler)
                return nil
            } catch {
                return error
            }
        }
    }

    @Test func aSecondSealedCopyWithTheSameSonameLoadsApartFromTheFirst() throws {
        let builds = try ReloadableBuilds()
        let manifest = try PluginManifest.load(contentsOf: builds.manifestURL)
        let loader = LibraryLoader()
        let first = try loader.load(manifest)
        try builds.install(offset: 100)
        let second = try loader.loadNewCopy(of: manifest, replacing: first)
        #expect(second.isNew)
        // glibc did not hand back the loaded library for the same soname: a new handle and new code.
        #expect(second.library.handle != first.handle)
        let firstEntry = try #require(first.symbol("motion_plugin_entry"))
        let secondEntry = try #require(second.library.symbol("motion_plugin_entry"))
        #expect(firstEntry != secondEntry)
        #expect(second.sha256 == SHA256.hexDigest(of: Array(try Data(contentsOf: builds.library))))
        #expect(second.library.isSealed)
        // A first load of that file now gives the new copy; the same bytes again load nothing.
        #expect(try loader.load(manifest) === second.library)
        let again = try loader.loadNewCopy(of: manifest, replacing: second.library)
        #expect(!again.isNew && again.library === second.library && again.sha256 == second.sha256)
    }

    @Test func aRebuiltLibraryReplacesThePerformersAndGetsTheirPlansAgain() throws {
        let run = try Run()
        try run.step("level", 5)
        try run.step("other", 7, named: "n")
        run.advance()
        #expect(run.value("level") == 5 && run.value("other") == 7)

        #expect(!run.host.isLibraryReplacedOnDisk(ofPlugin: "org.example.reloadable"))
        try run.builds.install(offset: 100)
        // What a watcher that starts after the load asks, so as not to miss this rebuild.
        #expect(run.host.isLibraryReplacedOnDisk(ofPlugin: "org.example.reloadable"))
        let reload = try #require(try run.host.reload(pluginID: "org.example.reloadable", in: run.scheduler))
        #expect(!run.host.isLibraryReplacedOnDisk(ofPlugin: "org.example.reloadable"))
        #expect(reload.isNewLibrary)
        #expect(reload.libraryPath == (try system_realpath(run.builds.library.path)))
        #expect(reload.sha256 == SHA256.hexDigest(of: Array(try Data(contentsOf: run.builds.library))))
        #expect(reload.recreation.recreated.map(\.description) == ["Stepper@t"])
        #expect(reload.recreation.readdedPlanCount == 2)
        #expect(reload.recreation.failures.isEmpty)
        // Values are kept until the new code's first frame, which sets them from the re-added plans.
        #expect(run.value("level") == 5)
        run.advance()
        #expect(run.value("level") == 105 && run.value("other") == 107)
        #expect(run.scheduler.outstandingTokenCount == 1)  // the old token ended, the new performer took one

        // The named plan is held under its name by the new performer: removing it reaches the new code.
        var removal = Transaction()
        removal.removePlan(named: "n", from: "t")
        try run.scheduler.commit(removal)
        run.scene.target("t")!.setValue(PropertyValue(0), forName: "other")
        run.advance()
        #expect(run.value("other") == 0 && run.value("level") == 105)
        // New commits use the new library too.
        try run.step("other", 1)
        run.advance()
        #expect(run.value("other") == 101)
    }

    @Test func aReloadThatFailsItsEntryKeepsTheOldCodeRunningAndSaysWhy() throws {
        let run = try Run()
        try run.step("level", 5)
        run.advance()

        try run.builds.install(offset: 100, refuses: true)
        let failure = run.failedReload()
        #expect(failure?.code == .entryRefused)
        #expect(failure?.description.contains("reloadable.json: library \"libreloadable.so\": motion_plugin_entry returned NULL") == true)
        #expect(failure?.description.contains("this build refuses to load") == true)
        run.scene.target("t")!.setValue(PropertyValue(0), forName: "level")
        run.advance()
        #expect(run.value("level") == 5)  // the old code still runs

        // The next good build is taken.
        try run.builds.install(offset: 200)
        let reload = try run.host.reload(pluginID: "org.example.reloadable", in: run.scheduler)
        #expect(reload?.recreation.recreated.count == 1)
        run.advance()
        #expect(run.value("level") == 205)
    }

    @Test func aRefusedBuildAskedForAgainIsNotLoadedAgain() throws {
        // Each load of a copy keeps its sealed descriptor and mapping for the life of the process: a build
        // whose entry was refused must not be copied and opened again at every later change event.
        let run = try Run()
        try run.step("level", 5)
        run.advance()
        try run.builds.install(offset: 100, refuses: true)
        #expect(run.failedReload()?.code == .entryRefused)
        let path = try system_realpath(run.builds.library.path)
        let status = try system_stat(path)
        let key = LoadedLibrary.Key(path: path, device: status.device, inode: status.inode)
        let refused = try #require(LoadedLibrary.registry.withLock { $0[key] })
        #expect(run.failedReload()?.code == .entryRefused)
        #expect(LoadedLibrary.registry.withLock { $0[key] } === refused)
        run.advance()
        #expect(run.value("level") == 5)  // the old code still runs
    }

    @Test func aLibraryThatFailsItsTrustChecksIsNotLoadedAndTheOldCodeRuns() throws {
        let run = try Run()
        try run.step("level", 5)
        try run.builds.install(offset: 100)
        chmod(run.builds.library.path, 0o777)
        let failure = run.failedReload()
        #expect(failure?.code == .insecurePermissions)
        run.advance()
        #expect(run.value("level") == 5)
    }

    @Test func unchangedBytesReloadNothingAndAManifestThatChangesThePlanTypesIsRefused() throws {
        let run = try Run()
        try run.step("level", 5)
        #expect(try run.host.reload(pluginID: "org.example.reloadable", in: run.scheduler) == nil)
        #expect(try run.host.reload(pluginID: "org.example.unknown", in: run.scheduler) == nil)

        let manifest = try String(contentsOf: run.builds.manifestURL, encoding: .utf8)
        _ = run.builds.root.write("plugins/reloadable.json", manifest.replacingOccurrences(of: "\"Step\"", with: "\"Stride\""))
        var failure = run.failedReload()
        #expect(failure?.code == .reloadRefused)
        #expect(failure?.description.contains("Stepper (entry): Step → Stepper (entry): Stride") == true)

        _ = run.builds.root.write("plugins/reloadable.json", "{\"manifestVersion\": 1,")
        failure = run.failedReload()
        #expect(failure?.code == .reloadRefused)
        #expect(failure?.description.contains("the changed manifest was not taken") == true)
        run.advance()
        #expect(run.value("level") == 5)
    }

    @Test func aChangedManifestAloneReloadsWithItsNewDefaults() throws {
        let run = try Run()
        try run.step("level")  // value: the default, 0
        run.advance()
        #expect(run.value("level") == 0)
        let manifest = try String(contentsOf: run.builds.manifestURL, encoding: .utf8)
        _ = run.builds.root.write("plugins/reloadable.json", manifest.replacingOccurrences(of: "\"default\": 0", with: "\"default\": 3"))
        let reload = try #require(try run.host.reload(pluginID: "org.example.reloadable", in: run.scheduler))
        #expect(!reload.isNewLibrary)
        #expect(reload.recreation.recreated.count == 1)
        run.advance()
        #expect(run.value("level") == 3)  // the plan was prepared again, with the new default
    }

    @Test func aDeclarativePluginsFunctionsAreLookedUpAgainInTheNewLibrary() throws {
        let root = TemporaryFolder()
        let folder = root.folder("plugins")
        let products = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let built = try Data(contentsOf: products.appendingPathComponent("libCDeclarative.so"))
        let library = folder.appendingPathComponent("libCDeclarative.so")
        try built.write(to: library)
        chmod(library.path, 0o755)
        let manifestURL = folder.appendingPathComponent("cdeclarative.json")
        try Data(contentsOf: ReloadableBuilds.packageRoot.appendingPathComponent("manifests/cdeclarative.json")).write(to: manifestURL)
        let manifest = try PluginManifest.load(contentsOf: manifestURL)
        let host = PluginHost(catalog: PluginCatalog(plugins: [manifest]), loader: LibraryLoader(), logSink: { _, _ in })
        let scene = Scene()
        scene.addTarget("t", properties: ["level": PropertyValue(0)])
        let scheduler = Scheduler(scene: scene, registry: host)
        scheduler.recordsPlansForRecreation = true
        var transaction = Transaction()
        transaction.add(Plan(type: "SetLevel", fields: ["property": "level", "level": 0.25]), to: "t")
        try scheduler.commit(transaction)
        #expect(scene.target("t")?["level"] == PropertyValue(0.25))
        let running = try #require(host.codeFiles(ofPlugin: manifest.id))

        // The same code with bytes appended: another library, whose functions the new performer calls.
        let staged = folder.appendingPathComponent(".next")
        try (built + Data("next build".utf8)).write(to: staged)
        chmod(staged.path, 0o755)
        #expect(rename(staged.path, library.path) == 0)
        scene.target("t")!.setValue(PropertyValue(0), forName: "level")
        let reload = try #require(try host.reload(pluginID: manifest.id, in: scheduler))
        #expect(reload.isNewLibrary && reload.recreation.recreated.map(\.description) == ["Level@t"])
        #expect(host.performerClasses(ofPlugin: manifest.id).map(\.name) == ["Level"])
        #expect(host.codeFiles(ofPlugin: manifest.id)?.library == running.library)
        #expect(scene.target("t")?["level"] == PropertyValue(0.25))  // the re-added plan, called in the new copy
    }

    @Test func anEmissionQueuedByAReplacedPerformerIsPerformedBeforeTheReload() throws {
        // LateCalls' EmitFromThread emits from a thread of its own, so the host queues it for the next turn; the
        // performer that emitted it is then replaced by a reload before that turn.
        let root = TemporaryFolder()
        let folder = root.folder("plugins")
        chmod(folder.path, 0o755)
        let products = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let built = try Data(contentsOf: products.appendingPathComponent("libFixtureLateCalls.so"))
        let library = folder.appendingPathComponent("libFixtureLateCalls.so")
        try built.write(to: library)
        chmod(library.path, 0o755)
        let manifestURL = folder.appendingPathComponent("late-calls.json")
        try Data(contentsOf: ReloadableBuilds.packageRoot.appendingPathComponent("Tests/Fixtures/plugins/emissions/late-calls.json"))
            .write(to: manifestURL)
        let testPerformers = try PluginManifest.load(
            contentsOf: ReloadableBuilds.packageRoot.appendingPathComponent("Tests/Fixtures/plugins/test-performers.json"))
        let manifest = try PluginManifest.load(contentsOf: manifestURL)
        let host = PluginHost(
            catalog: PluginCatalog(plugins: [manifest, testPerformers]), loader: LibraryLoader(extraLibraryDirectories: [products]),
            logSink: { _, _ in })
        let scene = Scene()
        scene.addTarget("t", properties: ["x": PropertyValue(0)])
        let scheduler = Scheduler(scene: scene, registry: host)
        scheduler.recordsPlansForRecreation = true
        let emitted: JSONValue = ["operations": [["op": "add", "target": "t", "plan": ["type": "SetValue", "property": "x", "value": 3]]]]
        var transaction = Transaction()
        transaction.add(Plan(type: "EmitFromThread", fields: ["transaction": emitted]), to: "t")
        try scheduler.commit(transaction)
        #expect(scene.target("t")?["queuedStatus"] == PropertyValue(0))  // MOTION_OK: queued
        #expect(scene.target("t")?["x"] == PropertyValue(0))

        let staged = folder.appendingPathComponent(".next")
        try (built + Data("next build".utf8)).write(to: staged)
        chmod(staged.path, 0o755)
        #expect(rename(staged.path, library.path) == 0)
        let reload = try #require(try host.reload(pluginID: manifest.id, in: scheduler))
        #expect(reload.recreation.recreated.map(\.description) == ["LateCaller@t"])
        // The queued transaction was performed by the old performer before it was replaced (after, R43 drops a
        // replaced performer's emissions: work such as a timer thread's would be lost). Here the new performer, given
        // the plan again, emits once more, so only the order tells.
        #expect(scene.target("t")?["x"] == PropertyValue(3))
        #expect(host.takePendingWorkFailures().isEmpty)
    }

    /// A run whose first build set `level` to 5 in one frame.
    private static func runSettingLevel5(loader: LibraryLoader = LibraryLoader()) throws -> Run {
        let run = try Run(loader: loader)
        try run.step("level", 5)
        run.advance()
        return run
    }

    /// Waits (at most 10 s) until the preparer has something for the frame boundary.
    private static func waitForPreparation(_ preparer: ReloadPreparer) {
        for _ in 0..<1000 where !preparer.hasPendingWork { usleep(10_000) }
    }

    @Test func aRebuildIsLoadedOnTheWatchersThreadAndTheFrameBoundaryOnlySwitches() throws {
        let run = try Self.runSettingLevel5()
        let id = "org.example.reloadable"
        let watcher = try PluginWatcher()
        try watcher.watch(pluginID: id, files: run.host.filesToWatch(ofPlugin: id))
        let preparer = try ReloadPreparer(watcher: watcher)
        defer { preparer.stop() }
        preparer.setBasis(try #require(run.host.reloadBasis(ofPlugin: id)), forPlugin: id)

        try run.builds.install(offset: 100)
        Self.waitForPreparation(preparer)
        let (ready, changed) = preparer.take()
        #expect(changed.isEmpty)
        let prepared = try #require(ready.first)
        #expect(ready.count == 1 && prepared.basis.pluginID == id)
        // The new copy is loaded already (by the watcher's thread), before the boundary takes it.
        let bytes = Array(try Data(contentsOf: run.builds.library))
        guard case .library(_, let copy)? = try? prepared.peekStage() else {
            Issue.record("the preparation holds no library copy")
            return
        }
        #expect(copy.isNew && copy.sha256 == SHA256.hexDigest(of: bytes))
        #expect(run.value("level") == 5)  // nothing switched yet

        let reload = try #require(try run.host.reload(prepared, in: run.scheduler))
        #expect(reload.isNewLibrary && reload.sha256 == SHA256.hexDigest(of: bytes))
        #expect(reload.recreation.recreated.map(\.description) == ["Stepper@t"] && reload.recreation.readdedPlanCount == 1)
        run.advance()
        #expect(run.value("level") == 105)
    }

    @Test func aReloadPreparedFromCodeThatWasReplacedMeanwhileIsDoneAgainFromTheStart() throws {
        let run = try Self.runSettingLevel5()
        let id = "org.example.reloadable"
        let stale = try #require(run.host.reloadBasis(ofPlugin: id))
        try run.builds.install(offset: 100)
        let prepared = stale.prepare()
        // Another reload takes that build first (a frame's synchronous reload, or a restart would too).
        _ = try #require(try run.host.reload(pluginID: id, in: run.scheduler))
        let runningCode = run.host.runningCode(ofPlugin: id)
        try run.builds.install(offset: 200)
        // The preparation is of the first build over the code before it: it is dropped, and the build on disk now is
        // loaded from the start, over the code that runs.
        let reload = try #require(try run.host.reload(prepared, in: run.scheduler))
        #expect(run.host.runningCode(ofPlugin: id) != runningCode)
        #expect(reload.sha256 == SHA256.hexDigest(of: Array(try Data(contentsOf: run.builds.library))))
        run.advance()
        #expect(run.value("level") == 205)
    }

    @Test func aPreparedReloadThatFailsItsChecksIsThrownAtTheBoundaryAndTheOldCodeKeepsRunning() throws {
        let run = try Self.runSettingLevel5()
        let id = "org.example.reloadable"
        let basis = try #require(run.host.reloadBasis(ofPlugin: id))
        let broken = run.builds.plugins.appendingPathComponent(".broken")
        try Data("not an ELF file".utf8).write(to: broken)
        chmod(broken.path, 0o755)
        #expect(rename(broken.path, run.builds.library.path) == 0)
        let prepared = basis.prepare()
        #expect(throws: PluginError.self) { _ = try run.host.reload(prepared, in: run.scheduler) }
        run.advance()
        #expect(run.value("level") == 5)
        #expect(run.host.reloadBasis(ofPlugin: id)?.isSame(as: basis) == true)
    }

    /// Whether process `pid` is gone, reaped (a zombie would still answer `kill(pid, 0)`), within 5 s.
    private static func isReaped(_ pid: pid_t) -> Bool {
        for _ in 0..<500 {
            if kill(pid, 0) == -1 && errno == ESRCH { return true }
            usleep(10_000)
        }
        return false
    }

    @Test func anIsolatedReloadPreparedTwiceEndsTheSandboxNobodyTakesAndTheReplacedOne() throws {
        let run = try Self.runSettingLevel5(
            loader: LibraryLoader(configuration: HostConfiguration(plugins: ["*": PluginIsolation(mode: .process)])))
        let id = "org.example.reloadable"
        let running = try #require(run.host.currentSandbox(ofPlugin: id)?.sandboxProcess)
        let basis = try #require(run.host.reloadBasis(ofPlugin: id))
        try run.builds.install(offset: 100)
        // Two changes in a row, as a watcher sees them: the first preparation's new sandbox is not used.
        let first = basis.prepare()
        let second = basis.prepare()
        guard case .sandbox(_, _, let unused)? = try? first.peekStage(), let unusedProcess = unused.sandboxProcess else {
            Issue.record("the preparation started no sandbox")
            return
        }
        #expect(unusedProcess.pid != running.pid)
        first.discard()
        #expect(Self.isReaped(unusedProcess.pid))
        #expect(kill(running.pid, 0) == 0)  // the running sandbox goes on meanwhile

        let reload = try #require(try run.host.reload(second, in: run.scheduler))
        #expect(reload.isNewLibrary && reload.recreation.readdedPlanCount == 1)
        run.advance()
        #expect(run.value("level") == 105)
        // The replaced sandbox is ended on a thread of its own after the switch.
        #expect(Self.isReaped(running.pid))
        #expect(run.host.currentSandbox(ofPlugin: id)?.sandboxProcess.map { kill($0.pid, 0) } == 0)
    }
}
