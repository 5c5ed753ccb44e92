import CMotionABI
import Foundation
import MotionCore
import MotionHost
import MotionTesting
import Synchronization
import Testing

/// The fixtures of Tests/Fixtures/plugins/emissions, loaded by a fresh host.
enum EmissionFixtures {
    static func manifest(_ name: String) throws -> PluginManifest {
        try PluginManifest.load(contentsOf: packageRoot.appendingPathComponent("Tests/Fixtures/plugins/emissions/\(name)"))
    }

    static func host(_ names: [String] = ["late-calls.json"]) throws -> PluginHost {
        PluginHost(
            catalog: PluginCatalog(plugins: try names.map(manifest)), loader: LibraryLoader(extraLibraryDirectories: [productsDirectory]))
    }

    /// A C function the late-calls fixture exports for its tests.
    static func symbol<F>(_ name: String, in host: PluginHost, as type: F.Type) throws -> F {
        let (library, _) = try host.load(try manifest("late-calls.json"))
        let address = try #require(library.symbol(name))
        return unsafeBitCast(address, to: type)
    }
}

@Suite("A plugin's calls after its performer was destroyed", .serialized)
struct LateCallTests {
    @Test("a plugin thread calling the host after destroy_performer gets MOTION_ERR_SCHEDULER_GONE from every call")
    func callsAfterDestroyFailCleanly() throws {
        let host = try EmissionFixtures.host()
        let report = try EmissionFixtures.symbol(
            "fixture_late_calls_report", in: host, as: (@convention(c) (UnsafeMutablePointer<CChar>?, Int) -> Int).self)
        _ = report(nil, 0)  // forget an earlier test's line
        do {
            let scheduler = Scheduler(scene: Scene(targets: ["t"]), registry: host)
            try scheduler.commit(Transaction([.add(Plan(type: "CallAfterDestroy"), target: "t")]))
            #expect(scheduler.isActive)
        }
        // The scheduler and its performer are gone; the plugin's thread calls 20 ms after (at most 10 s).
        var line = [CChar](repeating: 0, count: 512)
        var waited = 0
        while report(&line, line.count) == 0, waited < 10_000 {
            usleep(1_000)
            waited += 1
        }
        #expect(
            String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                == #"org.motion.fixtures.late-calls: after destroy: token_terminate=-7 token_generate=-7 emit_transaction=-7 property_id=-7 get_property=-7 set_property=-7 target_name="""#
        )
    }
}

@Suite("The caps on an emitted transaction", .serialized)
struct EmissionLimitTests {
    /// Commits one `Flood` and returns the status the plugin got from emit_transaction.
    func flood(operations: Int, bytes: Int = 0) throws -> Double? {
        let scene = Scene(targets: ["t"])
        let scheduler = Scheduler(scene: scene, registry: try EmissionFixtures.host())
        // The plugin handles the status (returns MOTION_OK): the commit succeeds whatever it was.
        try scheduler.commit(
            Transaction([
                .add(Plan(type: "Flood", fields: ["operations": .number(Double(operations)), "bytes": .number(Double(bytes))]), target: "t")
            ]))
        return scene.target("t")?["floodStatus"]?[0]
    }

    @Test("MOTION_EMIT_MAX_OPERATIONS operations are accepted; one more is MOTION_ERR_TOO_LARGE")
    func operationCap() throws {
        #expect(MOTION_EMIT_MAX_OPERATIONS == 10_000)
        #expect(try flood(operations: Int(MOTION_EMIT_MAX_OPERATIONS)) == Double(MOTION_OK))
        #expect(try flood(operations: Int(MOTION_EMIT_MAX_OPERATIONS) + 1) == Double(MOTION_ERR_TOO_LARGE))
    }

    @Test("a transaction over MOTION_EMIT_MAX_BYTES is MOTION_ERR_TOO_LARGE, refused before it is parsed")
    func byteCap() throws {
        #expect(MOTION_EMIT_MAX_BYTES == 1 << 20)
        #expect(try flood(operations: 1, bytes: Int(MOTION_EMIT_MAX_BYTES) - 1000) == Double(MOTION_OK))
        #expect(try flood(operations: 1, bytes: Int(MOTION_EMIT_MAX_BYTES) + 1) == Double(MOTION_ERR_TOO_LARGE))
    }

    @Test("the header's emission depth bound is the scheduler's")
    func depthBound() {
        #expect(Int(MOTION_EMIT_MAX_DEPTH) == Scheduler.maximumEmissionDepth)
    }
}

/// Log lines a host's sink received.
final class SinkLines: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    var sink: PluginLog.Sink { { [self] _, line in lines.withLock { $0.append(line) } } }
}

@Suite("Process-wide state: the entry once per library, log lines per host call", .serialized)
struct ProcessWideStateTests {
    @Test("a second PluginHost does not call motion_plugin_entry again; both get the one result")
    func entryIsCalledOncePerProcess() throws {
        let manifest = try EmissionFixtures.manifest("late-calls.json")
        let first = try EmissionFixtures.host()
        let entryCount = try EmissionFixtures.symbol("fixture_late_calls_entry_count", in: first, as: (@convention(c) () -> Int32).self)
        let before = entryCount()
        #expect(before == 1)  // whichever test loaded it first
        let lines = SinkLines()
        let second = PluginHost(
            catalog: PluginCatalog(plugins: [manifest]), loader: LibraryLoader(extraLibraryDirectories: [productsDirectory]), logSink: lines.sink)
        let (_, entry) = try second.load(manifest)
        #expect(entryCount() == before)
        #expect(try #require(entry).pluginID == "org.motion.fixtures.late-calls")
        #expect(!lines.all.contains { $0.contains("entry call") })
        // And the second host's performers work.
        let scene = Scene(targets: ["t"])
        let scheduler = Scheduler(scene: scene, registry: second)
        try scheduler.commit(Transaction([.add(Plan(type: "Flood", fields: ["operations": 1]), target: "t")]))
        #expect(scene.target("t")?["floodStatus"] == 0)
    }

    @Test("a refusal quotes the line the entry logged on its own thread, not a later line from another thread")
    func refusalQuotesTheEntrysOwnLine() throws {
        let lines = SinkLines()
        let manifest = try EmissionFixtures.manifest("noisy-refusal.json")
        let host = PluginHost(
            catalog: PluginCatalog(plugins: [manifest]), loader: LibraryLoader(extraLibraryDirectories: [productsDirectory]), logSink: lines.sink)
        var failure: PluginError?
        do { try host.load(manifest) } catch { failure = error }
        let error = try #require(failure)
        #expect(error.code == .entryRefused)
        #expect(error.message.hasSuffix("it logged: org.motion.fixtures.noisy-refusal: refusing to load: the entry's own reason."))
        #expect(!error.message.contains("worker thread"))
        // The entry's line reached this host's sink; the worker's, logged on a thread the host was not
        // calling in on, did not (it went to the process's default sink).
        #expect(lines.all == ["org.motion.fixtures.noisy-refusal: refusing to load: the entry's own reason."])
    }

    @Test("lines a plugin logs while a host calls it go to that host's sink")
    func linesGoToTheCallingHostsSink() throws {
        let lines = SinkLines()
        let manifest = try PluginManifest.load(contentsOf: packageRoot.appendingPathComponent("Tests/Fixtures/plugins/token-misuse.json"))
        let host = PluginHost(
            catalog: PluginCatalog(plugins: [manifest]), loader: LibraryLoader(extraLibraryDirectories: [productsDirectory]), logSink: lines.sink)
        let scheduler = Scheduler(scene: Scene(targets: ["t"]), registry: host)
        try scheduler.commit(Transaction([.add(Plan(type: "MisuseTokens"), target: "t")]))
        #expect(lines.all.contains { $0.contains("second terminate of") && $0.contains("MOTION_ERR_TOKEN_ALREADY_TERMINATED") })
    }
}
