import Foundation
import MotionCore
import MotionHost
import MotionTesting
import Synchronization
import Testing

/// The package root, for fixture manifests (data only; built libraries are found next to the test
/// executable, see ``productsDirectory``).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Where `swift build` put the plugin libraries: the folder of the running test executable.
let productsDirectory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()

/// Routes plugin log lines (`motion_host_v1.log`) to the call log of the scenario running now. Plugin
/// log lines are process-wide, so the suites that use this run serialized.
enum PluginCallLog {
    private static let current = Mutex<CallLog?>(nil)
    private static let installed = Mutex(false)

    static func capture(into log: CallLog) {
        installed.withLock { isInstalled in
            if !isInstalled {
                PluginLog.setSink { _, line in PluginCallLog.current.withLock { $0 }?.append(line) }
                isInstalled = true
            }
        }
        current.withLock { $0 = log }
    }
}

/// Where a scenario's performers come from.
enum PerformerSource: String, CaseIterable, CustomTestStringConvertible {
    case inProcess
    case plugin
    /// The same plugin, run in a sandbox process of its own (`"isolation": "process"`).
    case isolated

    var testDescription: String { rawValue }

    /// A registry of the test performers: MotionTesting's in-process ones, or the C fixture plugin
    /// `libFixtureTestPerformers.so` (same plan types, classes and log lines) loaded with dlopen.
    func makeRegistry(log: CallLog, extraManifests: [String] = []) throws -> any PerformerRegistry {
        switch self {
        case .inProcess:
            return TestPerformers.makeRegistry(log: log)
        case .plugin, .isolated:
            PluginCallLog.capture(into: log)
            let manifests = try (["test-performers.json"] + extraManifests).map { name in
                try PluginManifest.load(contentsOf: packageRoot.appendingPathComponent("Tests/Fixtures/plugins/\(name)"))
            }
            let configuration = self == .isolated ? HostConfiguration(plugins: ["*": .process]) : .empty
            return PluginHost(
                catalog: PluginCatalog(plugins: manifests),
                loader: LibraryLoader(configuration: configuration, extraLibraryDirectories: [productsDirectory]))
        }
    }
}

/// A scheduler over the test performers of one source, with a tracer that writes into the same call
/// log, so one list shows performer calls and trace events in their true order.
final class BoundaryHarness {
    let source: PerformerSource
    let log = CallLog()
    let scene = Scene(targets: ["a", "b"])
    let tracer = RecordingTracer()
    let scheduler: Scheduler

    init(_ source: PerformerSource, extraManifests: [String] = []) throws {
        self.source = source
        scheduler = Scheduler(scene: scene, registry: try source.makeRegistry(log: log, extraManifests: extraManifests))
        scheduler.addTracer(tracer)
    }

    func commit(_ build: (inout Transaction) -> Void) throws(CommitError) {
        var transaction = Transaction()
        build(&transaction)
        try scheduler.commit(transaction)
    }

    /// The performer calls, without the in-process-only hand-over lines (`emitter`, `tokens`), which
    /// have no C counterpart: across the boundary the proxy keeps the emitter and token generator.
    var calls: [String] {
        let kinds = ["create ", "add ", "addNamed ", "removeNamed ", "update ", "destroy "]
        return log.all.filter { line in kinds.contains { line.hasPrefix($0) } }
    }

    func calls(startingWith prefix: String) -> [String] { calls.filter { $0.hasPrefix(prefix) } }
}

func plan(_ type: String, _ fields: [String: JSONValue] = [:]) -> Plan { Plan(type: type, fields: fields) }

/// An `Emit` plan whose transaction adds `inner` to `target`.
func emitPlan(adding inner: Plan, to target: String) -> Plan {
    let innerJSON = try! JSONDecoder().decode(JSONValue.self, from: inner.jsonData())
    return plan("Emit", ["transaction": ["operations": [["op": "add", "target": .string(target), "plan": innerJSON]]]])
}
