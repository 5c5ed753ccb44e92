import Foundation
import MotionCore
import MotionHost
import MotionTesting
import Testing

/// Plugins isolated in sandboxes: a misbehaving one ends its own performers, never the host, and the sandbox
/// confines what its code can do.
enum Isolation {
    /// A host over fixture manifests (paths under Tests/Fixtures/plugins), with `isolated` plugin ids (or `"*"`) in
    /// sandboxes.
    static func host(
        _ manifests: [String], isolated: [String] = ["*"], memoryLimit: Int? = nil, timeout: Double? = 10
    ) throws -> PluginHost {
        let plugins = Dictionary(uniqueKeysWithValues: isolated.map { ($0, PluginIsolation(mode: .process, memoryLimit: memoryLimit)) })
        let host = PluginHost(
            catalog: PluginCatalog(
                plugins: try manifests.map { try PluginManifest.load(contentsOf: packageRoot.appendingPathComponent("Tests/Fixtures/plugins/\($0)")) }
            ),
            loader: LibraryLoader(configuration: HostConfiguration(plugins: plugins), extraLibraryDirectories: [productsDirectory]),
            // Their own sink: the test performers' lines must not reach the boundary suites' call logs.
            logSink: { _, _ in })
        host.pluginTimeout = timeout
        return host
    }

    /// Every change of `frames` frames at 60 fps, one line each: frame, target, property and the values' bits.
    static func changeLines(of scene: Scene, advancing scheduler: Scheduler, frames: Int) -> [String] {
        var lines: [String] = []
        for i in 0..<frames {
            scheduler.advanceFrame(to: Double(i) / 60)
            for change in scene.drainChanges() {
                lines.append(
                    "\(i) \(change.target.name) \(scene.propertyName(change.property) ?? "?") \((0..<change.value.count).map { change.value[$0].bitPattern })"
                )
            }
        }
        return lines
    }

    static let faults = "org.motion.fixtures.faults"
    static let testPerformers = "org.motion.fixtures.test-performers"
}

@Suite("A failing isolated plugin ends its own performers, not the host", .serialized)
struct IsolatedFailureTests {
    /// A faulty performer on "f" and a healthy one (the test performers, in process or isolated) on "a", run for
    /// `frames` frames.
    func runFault(_ fault: String, atFrame: Int, healthyIsolated: Bool, timeout: Double? = 10, frames: Int = 6) throws -> (
        PluginHost, Scheduler, Scene, [PluginFailure]
    ) {
        let host = try Isolation.host(
            ["faults.json", "test-performers.json"], isolated: healthyIsolated ? ["*"] : [Isolation.faults], timeout: timeout)
        let scene = Scene(targets: ["f", "a"])
        let scheduler = Scheduler(scene: scene, registry: host)
        try scheduler.commit(
            Transaction([
                .add(Plan(type: "Fault", fields: ["atFrame": .number(Double(atFrame)), "fault": .string(fault)]), target: "f"),
                .add(Plan(type: "HoldTokens", fields: ["count": 1]), target: "a"),
            ]))
        var failures: [PluginFailure] = []
        for i in 0..<frames {
            scheduler.advanceFrame(to: Double(i) / 60)
            failures += host.takeFailures()
        }
        return (host, scheduler, scene, failures)
    }

    @Test(
        "a sandbox that crashes or aborts in a frame: one failure naming the cause, the frame and the performer; its token ended; the rest goes on",
        arguments: [("segv", "signal 11 (SIGSEGV)"), ("abort", "signal 6 (SIGABRT)"), ("threadSegv", "signal 11 (SIGSEGV)")],
        [false, true])
    func crashInAFrame(fault: (String, String), healthyIsolated: Bool) throws {
        let (_, scheduler, scene, failures) = try runFault(fault.0, atFrame: 2, healthyIsolated: healthyIsolated)
        let failure = try #require(failures.first)
        #expect(failures.count == 1)
        #expect(failure.pluginID == Isolation.faults)
        #expect(failure.cause == "was killed by \(fault.1)")
        #expect(failure.frame == 2)
        #expect(failure.call == "update")
        #expect(failure.performers == ["Faulty@f"])
        #expect(failure.targets == ["f"])
        #expect(
            failure.description.contains("): in update at frame 2, its sandbox was killed by \(fault.1); its performers Faulty@f (targets f) stopped")
        )
        // The faulty performer wrote n for frames 0 and 1 only; the healthy one holds its token and is updated on.
        #expect(scene.target("f")?["n"] == 1)
        #expect(scheduler.outstandingTokenCount == 1)
        #expect(scheduler.frameUpdatedPerformerCount == 1)
        // Later plans of the plugin's types fail with a clear error; others still work.
        var refusal: CommitError?
        do { try scheduler.commit(Transaction([.add(Plan(type: "Quiet"), target: "f")])) } catch { refusal = error }
        #expect(
            refusal?.message.contains(
                "in update at frame 2, the plugin's sandbox was killed by \(fault.1); its plan types are not performed any more")
                == true)
        try scheduler.commit(Transaction([.add(Plan(type: "SetValue", fields: ["property": "opacity", "value": 0.5]), target: "a")]))
        #expect(scene.target("a")?["opacity"] == 0.5)
    }

    @Test("a sandbox that hangs in a frame is killed after the plugin timeout and reported; the run goes on")
    func hangInAFrame() throws {
        let started = Date()
        let (_, scheduler, _, failures) = try runFault("hang", atFrame: 1, healthyIsolated: false, timeout: 0.3, frames: 4)
        let failure = try #require(failures.first)
        #expect(failure.cause == "did not answer within 0.3 s (--plugin-timeout) and was killed")
        #expect(failure.frame == 1)
        #expect(failure.performers == ["Faulty@f"])
        #expect(scheduler.outstandingTokenCount == 1)
        #expect(Date().timeIntervalSince(started) < 9)
    }

    @Test("a crash in create_performer fails that commit with the cause; later commits of its plan types fail; others work")
    func crashOnCreate() throws {
        let host = try Isolation.host(["crash-on-create.json", "test-performers.json"], isolated: ["org.motion.fixtures.crash-on-create"])
        let scene = Scene(targets: ["a"])
        let scheduler = Scheduler(scene: scene, registry: host)
        var first: CommitError?
        do {
            try scheduler.commit(Transaction([.add(Plan(type: "Record"), target: "a"), .add(Plan(type: "CrashOnCreate"), target: "a")]))
        } catch { first = error }
        let error = try #require(first)
        #expect(error.appliedOperationCount == 1)
        #expect(error.message.contains("in create_performer, the plugin's sandbox was killed by signal 11 (SIGSEGV)"))
        let failures = host.takeFailures()
        #expect(failures.map(\.call) == ["create_performer"])
        #expect(failures.first?.performers == [])
        var second: CommitError?
        do { try scheduler.commit(Transaction([.add(Plan(type: "CrashOnCreate"), target: "a")])) } catch { second = error }
        #expect(second?.message.contains("its plan types are not performed any more in this run") == true)
        #expect(host.takeFailures().isEmpty)
        try scheduler.commit(Transaction([.add(Plan(type: "SetValue", fields: ["property": "x", "value": 2]), target: "a")]))
        #expect(scene.target("a")?["x"] == 2)
    }

    @Test("a sandbox that crashes on a thread of its own between frames is found at the next frame boundary")
    func crashBetweenCalls() throws {
        let host = try Isolation.host(["isolation/confinement.json"])
        let scheduler = Scheduler(scene: Scene(targets: ["p"]), registry: host)
        try scheduler.commit(Transaction([.add(Plan(type: "CrashLater", fields: ["milliseconds": 5]), target: "p")]))
        #expect(scheduler.isActive)
        var failures: [PluginFailure] = []
        var waited = 0
        while failures.isEmpty, waited < 1000 {
            usleep(2_000)
            waited += 1
            scheduler.advanceFrame(to: Double(waited) / 60)
            failures = host.takeFailures()
        }
        let failure = try #require(failures.first)
        #expect(failure.call == nil)
        #expect(failure.cause == "was killed by signal 11 (SIGSEGV)")
        #expect(failure.performers == ["Prober@p"])
        #expect(failure.description.contains("outside any call from the host"))
        scheduler.processPendingWork()
        #expect(!scheduler.isActive)
    }

    @Test("an isolated plugin's huge emission is MOTION_ERR_TOO_LARGE, refused in its sandbox before it crosses", arguments: [2 << 20, 0])
    func hugeEmission(bytes: Int) throws {
        let host = try Isolation.host(["emissions/late-calls.json"])
        let scene = Scene(targets: ["t"])
        let scheduler = Scheduler(scene: scene, registry: host)
        let operations = bytes == 0 ? 10_001 : 1
        try scheduler.commit(
            Transaction([
                .add(Plan(type: "Flood", fields: ["operations": .number(Double(operations)), "bytes": .number(Double(bytes))]), target: "t")
            ]))
        #expect(scene.target("t")?["floodStatus"] == -13)  // MOTION_ERR_TOO_LARGE
        #expect(host.takeFailures().isEmpty)
    }

    @Test("an isolated plugin flooding tokens: every one generated and terminated, the scheduler idle after")
    func tokenFlood() throws {
        let host = try Isolation.host(["isolation/confinement.json"])
        let scene = Scene(targets: ["p"])
        let scheduler = Scheduler(scene: scene, registry: host)
        let observer = RecordingActivityObserver()
        scheduler.addActivityObserver(observer)
        try scheduler.commit(Transaction([.add(Plan(type: "FloodTokens", fields: ["count": 20_000]), target: "p")]))
        #expect(scene.target("p")?["tokensFlooded"] == 20_000)
        #expect(!scheduler.isActive)
        #expect(observer.transitions.count == 40_000)
        #expect(host.takeFailures().isEmpty)
    }
}

@Suite("onCrash restart: a new sandbox re-creates the performers with their plans", .serialized)
struct IsolatedRestartTests {
    func host(_ manifests: [String], maxRestarts: Int = 3) throws -> PluginHost {
        let host = PluginHost(
            catalog: PluginCatalog(
                plugins: try manifests.map { try PluginManifest.load(contentsOf: packageRoot.appendingPathComponent("Tests/Fixtures/plugins/\($0)")) }
            ),
            loader: LibraryLoader(
                configuration: HostConfiguration(plugins: ["*": PluginIsolation(mode: .process, onCrash: .restart, maxRestarts: maxRestarts)]),
                extraLibraryDirectories: [productsDirectory]),
            logSink: { _, _ in })
        return host
    }

    @Test("a performer that crashed in frame 2 is re-created with its plans and goes on from frame 3")
    func crashInAFrameRestarts() throws {
        let host = try host(["faults.json"])
        let scene = Scene(targets: ["f", "g"])
        let scheduler = Scheduler(scene: scene, registry: host)
        #expect(host.keepsPlansForRestarts)
        scheduler.recordsPlansForRecreation = true
        try scheduler.commit(
            Transaction([
                .add(Plan(type: "Fault", fields: ["atFrame": 2, "fault": "segv"]), target: "f"),
                .add(Plan(type: "Fault", fields: ["atFrame": -1]), target: "g"),
            ]))
        var failures: [PluginFailure] = []
        for i in 0..<6 {
            scheduler.advanceFrame(to: Double(i) / 60)
            failures += host.takeFailures(restartingIn: scheduler)
        }
        let failure = try #require(failures.first)
        #expect(failures.count == 1)
        #expect(failure.isRestarted)
        #expect(failure.readdedPlanCount == 2)
        #expect(failure.performers == ["Faulty@f", "Faulty@g"])
        #expect(failure.description.contains("a new sandbox re-created them and re-added their 2 plans (onCrash: restart)"))
        // Re-created with its plan (atFrame 2, in the past now): both write n every frame again, holding a token each.
        #expect(scene.target("f")?["n"] == 5)
        #expect(scene.target("g")?["n"] == 5)
        #expect(scheduler.outstandingTokenCount == 2)
    }

    @Test("restarts stop at maxRestarts: then the plugin's plan types fail")
    func restartsAreCounted() throws {
        let host = try host(["crash-on-create.json"], maxRestarts: 2)
        let scheduler = Scheduler(scene: Scene(targets: ["a"]), registry: host)
        scheduler.recordsPlansForRecreation = true
        var messages: [String] = []
        var failures: [PluginFailure] = []
        for _ in 0..<4 {
            do { try scheduler.commit(Transaction([.add(Plan(type: "CrashOnCreate"), target: "a")])) } catch { messages.append(error.message) }
            failures += host.takeFailures(restartingIn: scheduler)
        }
        #expect(messages.count == 4)
        #expect(messages[0].contains("a new one takes over after this commit or frame (restart 1 of 2, onCrash: restart)"), "\(messages[0])")
        #expect(messages[1].contains("a new one takes over after this commit or frame (restart 2 of 2, onCrash: restart)"), "\(messages[1])")
        #expect(messages[2].contains("its plan types are not performed any more in this run"), "\(messages[2])")
        #expect(messages[3].contains("its plan types are not performed any more in this run"))
        #expect(failures.map(\.isRestarted) == [true, true, false])
    }
}

@Suite("An isolated plugin's log lines and refusals, as in process")
struct IsolatedLogTests {
    func host(_ manifest: PluginManifest, lines: SinkLines) -> PluginHost {
        PluginHost(
            catalog: PluginCatalog(plugins: [manifest]),
            loader: LibraryLoader(configuration: HostConfiguration(plugins: ["*": .process]), extraLibraryDirectories: [productsDirectory]),
            logSink: lines.sink)
    }

    @Test("a refusal quotes the line the entry logged in the sandbox, and that line reaches the host's sink")
    func refusalQuotesTheEntrysOwnLine() throws {
        let lines = SinkLines()
        let manifest = try EmissionFixtures.manifest("noisy-refusal.json")
        var failure: PluginError?
        do { try host(manifest, lines: lines).prepare(manifest) } catch { failure = error }
        let error = try #require(failure)
        #expect(error.code == .entryRefused)
        #expect(error.message.hasSuffix("it logged: org.motion.fixtures.noisy-refusal: refusing to load: the entry's own reason."))
        #expect(lines.all == ["org.motion.fixtures.noisy-refusal: refusing to load: the entry's own reason."])
    }

    @Test("lines an isolated plugin logs while the host calls it go to that host's sink")
    func linesGoToTheCallingHostsSink() throws {
        let lines = SinkLines()
        let manifest = try PluginManifest.load(contentsOf: packageRoot.appendingPathComponent("Tests/Fixtures/plugins/token-misuse.json"))
        let scheduler = Scheduler(scene: Scene(targets: ["t"]), registry: host(manifest, lines: lines))
        try scheduler.commit(Transaction([.add(Plan(type: "MisuseTokens"), target: "t")]))
        #expect(lines.all.contains { $0.contains("second terminate of") && $0.contains("MOTION_ERR_TOKEN_ALREADY_TERMINATED") })
    }
}

@Suite("An isolated TweenKit reads the properties its plans name from the values sent with them")
struct IsolatedPropertyReadTests {
    func host() throws -> PluginHost {
        let manifest = try PluginManifest.load(contentsOf: packageRoot.appendingPathComponent("manifests/tweenkit.json"))
        let host = PluginHost(
            catalog: PluginCatalog(plugins: [manifest]),
            loader: LibraryLoader(configuration: HostConfiguration(plugins: ["*": .process]), extraLibraryDirectories: [productsDirectory]))
        return host
    }

    /// Every change of 30 frames of three Tweens and a SpringTo through TweenKit, in process or isolated.
    func changes(isolated: Bool) throws -> [String] {
        let manifest = try PluginManifest.load(contentsOf: packageRoot.appendingPathComponent("manifests/tweenkit.json"))
        let host = PluginHost(
            catalog: PluginCatalog(plugins: [manifest]),
            loader: LibraryLoader(
                configuration: HostConfiguration(plugins: isolated ? ["*": .process] : [:]), extraLibraryDirectories: [productsDirectory]))
        let scene = Scene()
        for name in ["a", "b", "c"] { scene.addTarget(TargetID(name), properties: ["position": [0, 0], "opacity": 0]) }
        let scheduler = Scheduler(scene: scene, registry: host)
        try scheduler.commit(
            Transaction([
                .add(Plan(type: "Tween", fields: ["property": "opacity", "to": [1], "duration": 0.3, "timing": "easeInOut"]), target: "a"),
                .add(Plan(type: "Tween", fields: ["property": "position", "to": [10, -4], "duration": 0.2, "delay": 0.1]), target: "b"),
                .add(Plan(type: "SpringTo", fields: ["property": "position", "destination": [3, 7]]), target: "c"),
                .add(Plan(type: "Tween", fields: ["property": "opacity", "from": [0.5], "to": [0], "duration": 0.25]), target: "c"),
            ]))
        return Isolation.changeLines(of: scene, advancing: scheduler, frames: 30)
    }

    @Test("an isolated TweenKit's frames (written by property slot through the sandbox) change the same values, bit for bit")
    func isolatedFramesEqualInProcessFrames() throws {
        let inProcess = try changes(isolated: false)
        #expect(inProcess.count > 60)
        #expect(try changes(isolated: true) == inProcess)
    }

    @Test("a Tween whose vector does not fit its property is refused as in process: the length read in add_plan is the target's")
    func tweenChecksTheLengthOfTheValueItRead() throws {
        let scene = Scene()
        scene.addTarget("card", properties: ["position": [0, 0], "opacity": 0])
        let scheduler = Scheduler(scene: scene, registry: try host())
        var failure: CommitError?
        do {
            try scheduler.commit(Transaction([.add(Plan(type: "Tween", fields: ["property": "opacity", "to": [1, 2]]), target: "card")]))
        } catch { failure = error }
        #expect(failure?.message.contains("has 2 components but opacity has 1") == true, "\(String(describing: failure))")
        // The prefetched value is the current one: after frames moved position, a new Tween starts from there.
        try scheduler.commit(
            Transaction([.add(Plan(type: "Tween", fields: ["property": "position", "to": [10, 20], "duration": 0.1]), target: "card")]))
        for i in 0..<10 { scheduler.advanceFrame(to: Double(i) / 60) }
        #expect(scene.target("card")?["position"] == [10, 20])
        var second: CommitError?
        do {
            try scheduler.commit(Transaction([.add(Plan(type: "Tween", fields: ["property": "position", "to": [10, 20, 30]]), target: "card")]))
        } catch { second = error }
        #expect(second?.message.contains("has 3 components but position has 2") == true, "\(String(describing: second))")
    }
}

@Suite("An isolated plugin's sandbox confines its code", .serialized)
struct SandboxConfinementTests {
    /// Commits one plan of the confinement fixture; returns the properties it set on its target and the failures.
    func probe(_ type: String, _ fields: [String: JSONValue] = [:], isolated: Bool = true, memoryLimit: Int? = nil) throws -> (
        [String: PropertyValue], [PluginFailure]
    ) {
        let host = try Isolation.host(["isolation/confinement.json"], isolated: isolated ? ["*"] : [], memoryLimit: memoryLimit)
        let scene = Scene(targets: ["p"])
        let scheduler = Scheduler(scene: scene, registry: host)
        try scheduler.commit(Transaction([.add(Plan(type: type, fields: fields), target: "p")]))
        let target = try #require(scene.target("p"))
        return (Dictionary(target.properties.map { ($0.name, $0.value) }) { $1 }, host.takeFailures())
    }

    @Test("execve fails with EPERM in the sandbox (seccomp)")
    func noExec() throws {
        let (target, failures) = try probe("TryExec")
        #expect(target["execErrno"] == PropertyValue(Double(EPERM)))
        #expect(failures.isEmpty)
    }

    @Test("socket(AF_INET) fails with EPERM in the sandbox, and works in process", arguments: [true, false])
    func noNetworkSockets(isolated: Bool) throws {
        let (target, _) = try probe("TrySocket", isolated: isolated)
        #expect(target["socketErrno"] == (isolated ? PropertyValue(Double(EPERM)) : 0))
    }

    @Test(
        "an allocation past the memoryLimit fails in the sandbox; under it, it succeeds",
        // A sanitizer's shadow memory needs far more address space than any limit this test can set (.ci/tsan).
        .disabled(if: ProcessInfo.processInfo.environment["TSAN_OPTIONS"] != nil, "the sandbox runs under Thread Sanitizer"))
    func memoryLimit() throws {
        let (over, _) = try probe("TryAllocate", ["megabytes": 512], memoryLimit: 256 << 20)
        #expect(over["allocated"] == 0)
        let (under, _) = try probe("TryAllocate", ["megabytes": 16], memoryLimit: 256 << 20)
        #expect(under["allocated"] == 1)
    }

    /// 300,000 writes of 16 bytes each are more than the 3 MiB of writes a sandbox hands the host at once: the batch
    /// goes in parts, every write in order.
    @Test(
        "a set_slots batch, small or larger than the sandbox's write queue, is applied whole, as in process",
        arguments: [(3, true), (3, false), (300_000, true), (300_000, false)])
    func largeSlotBatch(count: Int, isolated: Bool) throws {
        let (target, failures) = try probe("WriteSlots", ["count": .number(Double(count))], isolated: isolated)
        #expect(target["slotsStatus"] == 0)
        #expect(target["x"] == PropertyValue(Double(count)))
        #expect(failures.isEmpty)
    }

    @Test("a set_slots batch with a NaN at its end is refused whole, none of it applied, as in process", arguments: [true, false])
    func poisonedSlotBatch(isolated: Bool) throws {
        let (target, _) = try probe("WriteSlots", ["count": 300_000, "poisoned": 1], isolated: isolated)
        #expect(target["slotsStatus"] == -1)  // MOTION_ERR_INVALID_ARGUMENT
        #expect(target["x"] == nil)
    }

    @Test("a descriptor the host opened without close-on-exec is not open in the sandbox")
    func descriptorsAreClosed() throws {
        // A high number, so that no descriptor the sandbox opens itself (the library's sealed copy) can have it.
        let opened = open("/dev/null", O_RDONLY)
        let fd = fcntl(opened, F_DUPFD, 300)
        close(opened)
        defer { close(fd) }
        #expect(fd >= 300)
        let (inProcess, _) = try probe("ProbeDescriptor", ["fd": .number(Double(fd))], isolated: false)
        #expect(inProcess["descriptorOpen"] == 1)
        let (isolated, _) = try probe("ProbeDescriptor", ["fd": .number(Double(fd))])
        #expect(isolated["descriptorOpen"] == 0)
    }
}
