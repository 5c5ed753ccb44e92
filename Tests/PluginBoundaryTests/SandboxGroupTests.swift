import Foundation
import MotionCore
import Testing

@testable import MotionHost

/// Sandbox groups (`"group"` in the host configuration's `"plugins"`): the isolated plugins of one group run in one
/// sandbox process, and a failure of that process is each of theirs.
@Suite("Plugins of one sandbox group share one sandbox process", .serialized)
struct SandboxGroupTests {
    /// A host over faults.json and test-performers.json, both isolated, in the group `group` (or each alone, `nil`).
    func host(group: String?, onCrash: PluginIsolation.CrashPolicy = .fail) throws -> PluginHost {
        let settings = PluginIsolation(mode: .process, onCrash: onCrash, maxRestarts: 2, group: group)
        return PluginHost(
            catalog: PluginCatalog(
                plugins: try ["faults.json", "test-performers.json"].map {
                    try PluginManifest.load(contentsOf: packageRoot.appendingPathComponent("Tests/Fixtures/plugins/\($0)"))
                }),
            loader: LibraryLoader(
                configuration: HostConfiguration(plugins: [Isolation.faults: settings, Isolation.testPerformers: settings]),
                extraLibraryDirectories: [productsDirectory]),
            logSink: { _, _ in })
    }

    /// The process ids of this process's children that run `motion-sandbox` (`/proc/PID/stat`: comm and parent) for
    /// the sandbox group `group` (its argument, `group NAME ID,ID…`; other suites start sandboxes meanwhile).
    static func sandboxChildren(ofGroup group: String) -> Set<pid_t> {
        let me = getpid()
        var children: Set<pid_t> = []
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry),
                let data = FileManager.default.contents(atPath: "/proc/\(entry)/stat"),
                case let stat = String(decoding: data, as: UTF8.self),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
            else { continue }
            let comm = stat[stat.index(after: open)..<close]
            let rest = stat[stat.index(after: close)...].split(separator: " ")
            // After the name: the state, then the parent's pid. (The kernel cuts names at 15 bytes.)
            guard rest.count > 1, pid_t(rest[1]) == me, "motion-sandbox".hasPrefix(comm),
                let arguments = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"),
                String(decoding: arguments, as: UTF8.self).split(separator: "\0").contains(where: { $0.hasPrefix("group \(group) ") })
            else { continue }
            children.insert(pid)
        }
        return children
    }

    /// A Fault on "f" (failing at `atFrame`) and a held token of the test performers on "a", committed together.
    func start(_ host: PluginHost, atFrame: Int) throws -> (Scheduler, Scene) {
        let scene = Scene(targets: ["f", "a"])
        let scheduler = Scheduler(scene: scene, registry: host)
        scheduler.recordsPlansForRecreation = true
        try scheduler.commit(
            Transaction([
                .add(Plan(type: "Fault", fields: ["atFrame": .number(Double(atFrame)), "fault": "segv"]), target: "f"),
                .add(Plan(type: "HoldTokens", fields: ["count": 1]), target: "a"),
            ]))
        return (scheduler, scene)
    }

    @Test("two plugins of one group run in one sandbox process (one child), and both work; without a group, two")
    func oneProcessForTheGroup() throws {
        let grouped = try host(group: "together")
        let (scheduler, scene) = try start(grouped, atFrame: -1)
        for i in 0..<3 { scheduler.advanceFrame(to: Double(i) / 60) }
        let faults = try #require(grouped.currentSandbox(ofPlugin: Isolation.faults))
        #expect(grouped.currentSandbox(ofPlugin: Isolation.testPerformers) === faults)
        #expect(faults.members.map(\.manifest.id) == [Isolation.faults, Isolation.testPerformers])
        #expect(Self.sandboxChildren(ofGroup: "together") == [try #require(faults.sandboxProcess?.pid)])
        // Both plugins' performers work in it: Faulty writes n each frame; TokenPerformer holds its token.
        #expect(scene.target("f")?["n"] == 2)
        #expect(scheduler.outstandingTokenCount == 2)
        try scheduler.commit(Transaction([.add(Plan(type: "SetValue", fields: ["property": "opacity", "value": 0.25]), target: "a")]))
        #expect(scene.target("a")?["opacity"] == 0.25)

        let alone = try host(group: nil)
        let (otherScheduler, _) = try start(alone, atFrame: -1)
        otherScheduler.advanceFrame(to: 0)
        let pids = [Isolation.faults, Isolation.testPerformers].compactMap { alone.currentSandbox(ofPlugin: $0)?.sandboxProcess?.pid }
        #expect(Set(pids).count == 2)
        #expect(!pids.contains(try #require(faults.sandboxProcess?.pid)))
    }

    @Test("a plugin of the group that its sandbox refuses is refused alone: the other one runs in the group's process")
    func aRefusedMemberIsRefusedAlone() throws {
        let settings = PluginIsolation(mode: .process, group: "mixed")
        let host = PluginHost(
            catalog: PluginCatalog(
                plugins: try ["refuses.json", "test-performers.json"].map {
                    try PluginManifest.load(contentsOf: packageRoot.appendingPathComponent("Tests/Fixtures/plugins/\($0)"))
                }),
            loader: LibraryLoader(configuration: HostConfiguration(plugins: ["*": settings]), extraLibraryDirectories: [productsDirectory]),
            logSink: { _, _ in })
        let scene = Scene(targets: ["a"])
        let scheduler = Scheduler(scene: scene, registry: host)
        var refusal: CommitError?
        do { try scheduler.commit(Transaction([.add(Plan(type: "Refused"), target: "a")])) } catch { refusal = error }
        #expect(refusal?.message.contains("refuses.json") == true, "\(String(describing: refusal))")
        #expect(host.currentSandbox(ofPlugin: "org.motion.fixtures.refuses") == nil)
        try scheduler.commit(Transaction([.add(Plan(type: "SetValue", fields: ["property": "opacity", "value": 0.5]), target: "a")]))
        #expect(scene.target("a")?["opacity"] == 0.5)
        let sandbox = try #require(host.currentSandbox(ofPlugin: Isolation.testPerformers))
        #expect(sandbox.members.map(\.manifest.id) == [Isolation.testPerformers])
        #expect(sandbox.refusals.keys.sorted() == ["org.motion.fixtures.refuses"])
        // One process was started for the group, at the first commit.
        #expect(host.isolatedPlugins.count == 1)
    }

    @Test("a plugin whose entry kills the group's sandbox is refused alone: the plugins before and after it load in a new process")
    func aMemberThatCrashesInItsEntryIsRefusedAlone() throws {
        let settings = PluginIsolation(mode: .process, group: "crashy")
        let host = PluginHost(
            catalog: PluginCatalog(
                plugins: try ["test-performers.json", "isolation/crash-in-entry.json", "faults.json"].map {
                    try PluginManifest.load(contentsOf: packageRoot.appendingPathComponent("Tests/Fixtures/plugins/\($0)"))
                }),
            loader: LibraryLoader(configuration: HostConfiguration(plugins: ["*": settings]), extraLibraryDirectories: [productsDirectory]),
            logSink: { _, _ in })
        let scene = Scene(targets: ["a", "f"])
        let scheduler = Scheduler(scene: scene, registry: host)
        // test-performers loads first, then crash-in-entry's entry kills the process (and test-performers with it).
        try scheduler.commit(Transaction([.add(Plan(type: "SetValue", fields: ["property": "opacity", "value": 0.5]), target: "a")]))
        #expect(scene.target("a")?["opacity"] == 0.5)
        let sandbox = try #require(host.currentSandbox(ofPlugin: Isolation.testPerformers))
        #expect(sandbox.members.map(\.manifest.id) == [Isolation.testPerformers, Isolation.faults])
        #expect(sandbox.refusals.keys.sorted() == ["org.motion.fixtures.crash-in-entry"])
        #expect(Self.sandboxChildren(ofGroup: "crashy") == [try #require(sandbox.sandboxProcess?.pid)])
        // The plugin after it runs in the new process too.
        try scheduler.commit(
            Transaction([.add(Plan(type: "Fault", fields: ["atFrame": -1, "fault": "segv"]), target: "f")]))
        scheduler.advanceFrame(to: 0)
        scheduler.advanceFrame(to: 1.0 / 60)
        #expect(scene.target("f")?["n"] == 1)
        #expect(host.currentSandbox(ofPlugin: Isolation.faults) === sandbox)
        // The crashing plugin's plans fail with the cause, naming its manifest.
        var refusal: CommitError?
        do { try scheduler.commit(Transaction([.add(Plan(type: "CrashInEntry"), target: "a")])) } catch { refusal = error }
        let message = try #require(refusal?.message)
        #expect(message.contains("crash-in-entry.json"), "\(message)")
        #expect(message.contains("signal 11 (SIGSEGV)"), "\(message)")
        #expect(message.contains("motion_plugin_entry"), "\(message)")
        #expect(host.isolatedPlugins.count == 1)
    }

    @Test("a crash of one plugin ends the performers of both, with a failure line for each; later plans of both fail")
    func aCrashEndsTheWholeGroup() throws {
        let host = try host(group: "shared")
        let (scheduler, scene) = try start(host, atFrame: 2)
        let pid = try #require(host.currentSandbox(ofPlugin: Isolation.faults)?.sandboxProcess?.pid)
        var failures: [PluginFailure] = []
        for i in 0..<5 {
            scheduler.advanceFrame(to: Double(i) / 60)
            failures += host.takeFailures()
        }
        #expect(failures.map(\.pluginID) == [Isolation.faults, Isolation.testPerformers])
        #expect(failures.map(\.performers) == [["Faulty@f"], ["TokenPerformer@a"]])
        #expect(failures.map(\.targets) == [["f"], ["a"]])
        #expect(failures.map(\.call) == ["update", nil])
        #expect(failures.map(\.frame) == [2, 2])
        #expect(failures[0].cause == "was killed by signal 11 (SIGSEGV)")
        #expect(
            failures[1].cause
                == "was killed by signal 11 (SIGSEGV) (in update of org.motion.fixtures.faults, which runs in the same sandbox, group \"shared\")")
        #expect(failures[1].description.contains("plugin org.motion.fixtures.test-performers ("), "\(failures[1])")
        #expect(host.allFailures.count == 2)
        // Both plugins' tokens were ended; nothing is updated any more; the process is reaped.
        #expect(scheduler.outstandingTokenCount == 0)
        #expect(scene.target("f")?["n"] == 1)
        #expect(!Self.sandboxChildren(ofGroup: "shared").contains(pid))
        for (type, target): (String, TargetID) in [("Quiet", "f"), ("HoldTokens", "a")] {
            var refusal: CommitError?
            do { try scheduler.commit(Transaction([.add(Plan(type: type), target: target)])) } catch { refusal = error }
            #expect(
                refusal?.message.contains("the plugin's sandbox was killed by signal 11 (SIGSEGV)") == true, "\(type): \(String(describing: refusal))"
            )
        }
    }

    @Test("onCrash restart restarts the group: one new process, each plugin's performers re-created there with their plans")
    func aRestartIsOneNewProcessForTheGroup() throws {
        let host = try host(group: "restarting", onCrash: .restart)
        let (scheduler, scene) = try start(host, atFrame: 2)
        let old = try #require(host.currentSandbox(ofPlugin: Isolation.faults)?.sandboxProcess?.pid)
        var failures: [PluginFailure] = []
        for i in 0..<6 {
            scheduler.advanceFrame(to: Double(i) / 60)
            failures += host.takeFailures(restartingIn: scheduler)
        }
        #expect(failures.map(\.pluginID) == [Isolation.faults, Isolation.testPerformers])
        #expect(failures.map(\.isRestarted) == [true, true])
        #expect(failures.map(\.readdedPlanCount) == [1, 1])
        let fresh = try #require(host.currentSandbox(ofPlugin: Isolation.faults))
        #expect(host.currentSandbox(ofPlugin: Isolation.testPerformers) === fresh)
        let pid = try #require(fresh.sandboxProcess?.pid)
        #expect(pid != old)
        #expect(Self.sandboxChildren(ofGroup: "restarting") == [pid])
        // The Fault (atFrame 2, past) writes n again from frame 3; the token holder holds a token again.
        #expect(scene.target("f")?["n"] == 5)
        #expect(scheduler.outstandingTokenCount == 2)
    }

    @Test("a reload of one plugin of a group starts the group's process again; both plugins' performers go on there")
    func aReloadRestartsTheGroup() throws {
        let host = try host(group: "shared")
        let (scheduler, scene) = try start(host, atFrame: 1)
        for i in 0..<3 { scheduler.advanceFrame(to: Double(i) / 60) }
        #expect(host.takeFailures().count == 2)
        let old = try #require(host.currentSandbox(ofPlugin: Isolation.faults))
        // The group's sandbox failed: a reload of one of its plugins brings a new process for the whole group.
        let reload = try #require(try host.reload(pluginID: Isolation.testPerformers, in: scheduler))
        #expect(reload.pluginID == Isolation.testPerformers)
        #expect(reload.recreation.readdedPlanCount == 1)
        let fresh = try #require(host.currentSandbox(ofPlugin: Isolation.faults))
        #expect(fresh !== old)
        #expect(host.currentSandbox(ofPlugin: Isolation.testPerformers) === fresh)
        #expect(fresh.members.map(\.manifest.id) == [Isolation.faults, Isolation.testPerformers])
        scheduler.advanceFrame(to: 3 / 60)
        #expect(scene.target("f")?["n"] == 3)
        #expect(scheduler.outstandingTokenCount == 2)
    }
}

@Suite("A sandbox group's frame is one update_many request, split by plugin in the sandbox")
struct SandboxGroupFrameTests {
    /// Every change of 20 frames of Tweens (TweenKit) and Nudges (CPerformers) on alternating targets, both plugins in
    /// process, each in a sandbox of its own, or both in one group; and the number of update_many requests per sandbox.
    func changes(_ mode: String) throws -> (lines: [String], requests: [Int]) {
        let manifests = try ["manifests/tweenkit.json", "manifests/cperformers.json"].map {
            try PluginManifest.load(contentsOf: packageRoot.appendingPathComponent($0))
        }
        let settings: [String: PluginIsolation] =
            switch mode {
            case "group": ["*": PluginIsolation(mode: .process, group: "animation")]
            case "alone": ["*": .process]
            default: [:]
            }
        let host = PluginHost(
            catalog: PluginCatalog(plugins: manifests),
            loader: LibraryLoader(configuration: HostConfiguration(plugins: settings), extraLibraryDirectories: [productsDirectory]))
        let scene = Scene()
        for name in ["a", "b", "c", "d"] { scene.addTarget(TargetID(name), properties: ["position": [0, 0], "opacity": 0]) }
        let scheduler = Scheduler(scene: scene, registry: host)
        try scheduler.commit(
            Transaction([
                .add(Plan(type: "Tween", fields: ["property": "opacity", "to": [1], "duration": 0.3]), target: "a"),
                .add(Plan(type: "Nudge", fields: ["property": "position", "by": [2, 1], "duration": 0.2]), target: "b"),
                .add(Plan(type: "Tween", fields: ["property": "position", "to": [10, -4], "duration": 0.2]), target: "c"),
                .add(Plan(type: "Nudge", fields: ["property": "opacity", "by": [0.5]]), target: "d"),
            ]))
        let lines = Isolation.changeLines(of: scene, advancing: scheduler, frames: 20)
        let sandboxes = manifests.compactMap { host.currentSandbox(ofPlugin: $0.id) }
        var requests: [Int] = []
        for (index, sandbox) in sandboxes.enumerated() where !sandboxes[..<index].contains(where: { $0 === sandbox }) {
            requests.append(sandbox.updateManyRequestCount)
        }
        return (lines, requests)
    }

    @Test("two update_many plugins in one group: the same changes, bit for bit, as in process; one request per frame")
    func groupFramesEqualInProcessFrames() throws {
        let inProcess = try changes("inProcess")
        #expect(inProcess.lines.count > 40)
        #expect(inProcess.requests.isEmpty)
        let alone = try changes("alone")
        #expect(alone.lines == inProcess.lines)
        let group = try changes("group")
        #expect(group.lines == inProcess.lines)
        // A sandbox alone gets one request per run of its performers (TweenKit's a and c are two runs, b between
        // them); the group's gets one per frame for all four.
        #expect(alone.requests.count == 2)
        #expect(alone.requests[0] > 20)
        #expect(group.requests.count == 1)
        #expect((15...20).contains(group.requests[0]), "\(group.requests)")
    }
}

@Suite("A sandbox group in the host configuration")
struct SandboxGroupConfigurationTests {
    func load(_ plugins: String) throws -> HostConfiguration {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("groups-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("host.json")
        try Data(#"{"configurationVersion": 1, "plugins": \#(plugins)}"#.utf8).write(to: file)
        return try HostConfiguration.load(contentsOf: file)
    }

    func error(_ plugins: String) -> String {
        do {
            _ = try load(plugins)
            return "no error"
        } catch { return "\(error)" }
    }

    @Test("members and the \"*\" entry of a group: the group's plugins, the asking one first")
    func groupMembers() throws {
        let configuration = try load(
            #"{"org.a.one": {"isolation": "process", "group": "g"}, "org.a.two": {"isolation": "process"}, "*": {"isolation": "process", "group": "g"}}"#
        )
        #expect(configuration.isolation(of: "org.a.one").group == "g")
        #expect(configuration.sandboxGroup(of: "org.a.three", among: ["org.a.one", "org.a.two", "org.a.three"]) == ["org.a.three", "org.a.one"])
        #expect(configuration.sandboxGroup(of: "org.a.two", among: ["org.a.one", "org.a.two", "org.a.three"]) == ["org.a.two"])
    }

    @Test("members that differ in the process's settings: one line naming both plugins and the field")
    func membersMustAgree() {
        let message = error(
            #"{"org.a.one": {"isolation": "process", "group": "g", "memoryLimit": 268435456}, "org.a.two": {"isolation": "process", "group": "g", "onCrash": "restart"}}"#
        )
        #expect(message.contains(#"host.json: $.plugins["org.a.two"].group: "#), "\(message)")
        #expect(
            message.contains(
                #"plugins "org.a.one" and "org.a.two" share the sandbox group "g", one process, but not its settings: memoryLimit 268435456, onCrash fail, maxRestarts 3 against memoryLimit none, onCrash restart, maxRestarts 3"#
            ), "\(message)")
    }

    @Test("a group in process, or a bad name, is one line naming the file and the field")
    func badGroups() {
        let inProcess = error(#"{"org.a.one": {"group": "g"}}"#)
        #expect(inProcess.contains(#"host.json: $.plugins["org.a.one"].group: a group is plugins that share one sandbox process"#), "\(inProcess)")
        let empty = error(#"{"org.a.one": {"isolation": "process", "group": ""}}"#)
        #expect(empty.contains(#"$.plugins["org.a.one"].group: expected a sandbox group's name of 1 to 64 characters"#), "\(empty)")
    }
}
