import CMotionABI
import Dispatch
import FoundationEssentials
import Glibc
import MotionCore
import MotionFiles
import Synchronization

/// One check of a plugin, as ``PluginValidator`` reports it.
public struct PluginCheck: Sendable, Hashable, CustomStringConvertible {
    /// How a check ended.
    public enum Outcome: String, Sendable, Hashable {
        case pass = "PASS"
        case fail = "FAIL"
        case skip = "SKIP"
        /// Passed, with something the author should change (not a failure).
        case warn = "WARN"
    }

    /// The check's name, e.g. `default plan Tween`.
    public let name: String
    /// How it ended.
    public let outcome: Outcome
    /// What was found, e.g. `12.3 ms` or the error.
    public let detail: String

    /// A check result.
    public init(name: String, outcome: Outcome, detail: String) {
        self.name = name
        self.outcome = outcome
        self.detail = detail
    }

    /// One line: `PASS name: detail`.
    public var description: String { "\(outcome.rawValue) \(name)\(detail.isEmpty ? "" : ": \(detail)")" }
}

/// Runs the checks of one plugin, in this process (as clap-validator does inside its child process):
/// the manifest decodes; the library passes the trust checks and loads with `RTLD_NOW`; the entry and
/// ABI checks pass; scanning (load + entry) takes under 100 ms; each performer class creates a
/// performer; each plan type accepts its schema's default plan and an entry performer rejects a
/// malformed one; every is-active token taken is terminated (within 10 s of simulated frames); no
/// emission names an unknown plan type, and no token is terminated twice; performers are destroyed.
///
/// A plugin that crashes or hangs takes this process with it: run the validator in a child process
/// (the CLI's `plugins validate` does) and read the `willStart` names to tell where it stopped.
///
/// Thread rule: one thread.
public final class PluginValidator {
    /// The longest acceptable scan (library load + entry + ABI checks) by default, seconds.
    public static let scanTimeLimit = 0.1
    /// The longest acceptable scan for this validator, seconds (wall time, so a busy machine may need more).
    private let scanTimeLimit: Double
    /// How long performers may run (simulated) before held tokens count as never terminated, seconds.
    public static let activityLimit = 10.0

    private let manifestURL: URL
    private let loader: LibraryLoader
    private let willStart: (String) -> Void
    private let report: (PluginCheck) -> Void
    private var failures = 0

    /// A validator for one manifest.
    /// - Parameters:
    ///   - manifestURL: The plugin's manifest.
    ///   - loader: How its library is found, checked and opened.
    ///   - scanTimeLimit: The scan time check's limit, seconds (``scanTimeLimit`` by default).
    ///   - willStart: Called with each check's name before it runs (so a crash can be placed).
    ///   - report: Called with each check's result.
    public init(
        manifestURL: URL, loader: LibraryLoader, scanTimeLimit: Double = PluginValidator.scanTimeLimit,
        willStart: @escaping (String) -> Void, report: @escaping (PluginCheck) -> Void
    ) {
        self.scanTimeLimit = scanTimeLimit
        self.manifestURL = manifestURL
        self.loader = loader
        self.willStart = willStart
        self.report = report
    }

    private func check(_ name: String, _ body: () throws -> String) -> Bool {
        willStart(name)
        do {
            report(PluginCheck(name: name, outcome: .pass, detail: try body()))
            return true
        } catch let skip as Skip {
            report(PluginCheck(name: name, outcome: .skip, detail: skip.reason))
            return true
        } catch let warning as Warning {
            report(PluginCheck(name: name, outcome: .warn, detail: warning.reason))
            return true
        } catch {
            failures += 1
            report(PluginCheck(name: name, outcome: .fail, detail: "\(error)"))
            return false
        }
    }

    private struct Skip: Error { let reason: String }
    private struct Warning: Error { let reason: String }
    private struct Failure: Error, CustomStringConvertible { let description: String }

    /// Runs every check, in order, stopping early when a later check could not run.
    /// - Returns: Whether every check passed.
    @discardableResult
    public func run() -> Bool {
        var manifest: PluginManifest?
        guard
            check(
                "manifest",
                {
                    manifest = try PluginManifest.load(contentsOf: manifestURL)
                    return "\(manifest!.id) \(manifest!.version), for hosts of ABI \(manifest!.abiVersion) and later minors"
                }), let manifest
        else { return false }

        let catalog = PluginCatalog(plugins: [manifest])
        let host = PluginHost(catalog: catalog, loader: loader)
        host.refusesCapabilityMismatches = false  // reported by the "extensions" check below instead
        var scanSeconds = 0.0
        guard
            check(
                "load (trust checks, RTLD_NOW, entry, ABI)",
                {
                    let start = DispatchTime.now().uptimeNanoseconds
                    let (library, entry) = try host.load(manifest)
                    scanSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                    var detail = library.resolvedPath
                    if let entry { detail += ", plugin \(entry.pluginID), ABI \(entry.abiVersion >> 16).\(entry.abiVersion & 0xFFFF)" }
                    return detail
                })
        else { return false }
        _ = check("extensions") {
            guard let entry = try? host.load(manifest).1 else { throw Skip(reason: "no entry performers") }
            let problems = entry.extensionProblems + entry.capabilityMismatches(with: manifest)
            guard problems.isEmpty else { throw Failure(description: problems.joined(separator: "; ")) }
            let frames = entry.updateMany != nil ? "motion.frames/1 (with update_many)" : "motion.frames/1"
            let offered = [entry.hasFrames ? frames : nil, entry.hasDeviceMotion ? "motion.device-motion/1" : nil].compactMap { $0 }
            return offered.isEmpty ? "none offered" : offered.joined(separator: ", ")
        }
        _ = check("exports") {
            guard let library = try? host.load(manifest).0, let exported = library.exportedSymbols else {
                throw Skip(reason: "the library's dynamic symbol table could not be read")
            }
            var needed: Set<String> = []
            for performer in manifest.performers {
                switch performer.interface {
                case .entry: needed.insert(MOTION_PLUGIN_ENTRY_SYMBOL)
                case .functions:
                    if let functions = performer.functions {
                        needed.formUnion([functions.create, functions.destroy] + (functions.update.map { [$0] } ?? []))
                    }
                    needed.formUnion(performer.plans.compactMap { $0.call?.symbol })
                }
            }
            let extra = exported.filter { !needed.contains($0) }
            guard extra.isEmpty else {
                let shown = extra.prefix(3).joined(separator: ", ") + (extra.count > 3 ? ", …" : "")
                throw Warning(
                    reason:
                        "exports \(extra.count) symbol\(extra.count == 1 ? "" : "s") beyond what the ABI and the manifest need (\(shown)). To fix, link with a version script that lists only \(needed.sorted().joined(separator: ", ")) (Plugins/entry-only.map with -use-ld=lld; the README's plugin sections show the settings)"
                )
            }
            return "only \(needed.sorted().joined(separator: ", "))"
        }
        if host.isolation(of: manifest.id).isIsolated, let first = manifest.performers.first {
            _ = check("sandbox (isolation: process)") {
                let start = DispatchTime.now().uptimeNanoseconds
                let plugin = try host.loadIsolated(manifest, performer: first)
                let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
                return String(
                    cFormat: "motion-sandbox started, confined, loaded and entered the library in %.1f ms; the plan checks below run in it",
                    milliseconds)
                    + (plugin.hasUpdateMany ? " (update_many in one request per frame)" : "")
            }
        }
        _ = check("scan time") {
            let text = String(cFormat: "%.1f ms", scanSeconds * 1000)
            guard scanSeconds < scanTimeLimit else {
                throw Failure(
                    description: "\(text), over the \(String(cFormat: "%g", scanTimeLimit * 1000)) ms limit (plugins validate --scan-time-limit MS)")
            }
            return text
        }

        let doubleTerminationsBefore = HostDiagnostics.doubleTerminations
        do {
            let scene = Scene()
            let target = scene.addTarget("validator", properties: Self.propertiesNamed(by: manifest))
            let tracer = EmissionRecorder()
            let scheduler = Scheduler(scene: scene, registry: host)
            scheduler.addTracer(tracer)
            for performer in manifest.performers {
                for plan in performer.plans {
                    _ = check("default plan \(plan.type)") {
                        try scheduler.commit(Transaction([.add(Self.defaultPlan(for: plan), target: target.id)]))
                        return "accepted"
                    }
                    _ = check("malformed plan \(plan.type)") {
                        guard performer.interface == .entry else {
                            throw Skip(reason: "a declarative performer receives typed C arguments, never raw JSON")
                        }
                        guard !plan.fields.isEmpty else { throw Skip(reason: "the plan type has no fields to mistype") }
                        let made = scheduler.performer(forTarget: target.id, className: performer.className)
                        guard let proxy: any Performer = (made as? EntryPerformer) ?? (made as? IsolatedPerformer) else {
                            throw Failure(description: "performer class \(performer.className) was not created")
                        }
                        do {
                            try proxy.addPlan(Self.malformedPlan(for: plan))
                        } catch {
                            return "rejected (\(error))"
                        }
                        throw Failure(description: "add_plan accepted a plan whose fields have the wrong JSON types")
                    }
                }
            }
            _ = check("tokens terminated") {
                var time = 0.0
                while scheduler.isActive, time < Self.activityLimit {
                    time += 1.0 / 60
                    scheduler.advanceFrame(to: time)
                }
                // Tokens a plugin ends from threads of its own take real time: wait up to two seconds.
                var waited = 0
                while scheduler.isActive, waited < 200 {
                    usleep(10_000)
                    waited += 1
                    scheduler.processPendingWork()
                }
                guard !scheduler.isActive else {
                    if manifest.performers.contains(where: { $0.capabilities.contains(.deviceMotion) }) {
                        throw Skip(
                            reason: "\(scheduler.outstandingTokenCount) token(s) held: a device-motion performer holds its token while samples stream"
                        )
                    }
                    throw Failure(
                        description: "\(scheduler.outstandingTokenCount) is-active token(s) still held after \(Int(Self.activityLimit)) s of frames")
                }
                let twice = HostDiagnostics.doubleTerminations - doubleTerminationsBefore
                guard twice == 0 else {
                    throw Failure(description: "a token was terminated twice (\(twice) time(s)); each token terminates exactly once")
                }
                return String(cFormat: "idle after %.2f s", time)
            }
            _ = check("emissions name known plan types") {
                let known = Set(catalog.planTypes)
                let unknown = Set(tracer.emittedPlanTypes).subtracting(known).sorted()
                guard unknown.isEmpty else {
                    let described = unknown.map { "\"\($0)\"" }.joined(separator: ", ")
                    throw Failure(description: "emitted plan types no manifest of this plugin declares: \(described)")
                }
                return tracer.emittedPlanTypes.isEmpty ? "no emissions" : "emitted \(Set(tracer.emittedPlanTypes).sorted().joined(separator: ", "))"
            }
            _ = check("capabilities declare what performers did") {
                // The undeclared direction only: a default plan need not exercise every declared capability.
                var problems: [String] = []
                for performer in manifest.performers {
                    if tracer.tokenTakingClasses.contains(performer.className), !performer.capabilities.contains(.tokens) {
                        problems.append("\(performer.className) took an is-active token but does not declare the capability tokens")
                    }
                    if tracer.emittingClasses.contains(performer.className), !performer.capabilities.contains(.composition) {
                        problems.append("\(performer.className) emitted a transaction but does not declare the capability composition")
                    }
                }
                guard problems.isEmpty else {
                    throw Failure(description: problems.joined(separator: "; ") + ". To fix, add them to the manifest's \"capabilities\"")
                }
                let seen = [tracer.tokenTakingClasses.isEmpty ? nil : "tokens", tracer.emittingClasses.isEmpty ? nil : "composition"]
                let summary =
                    seen.compactMap { $0 }.isEmpty
                    ? "no tokens or emissions seen" : "seen and declared: " + seen.compactMap { $0 }.joined(separator: ", ")
                // The other direction is said, not failed: a performer may use a capability only for some plans.
                var unseen: [String] = []
                for performer in manifest.performers {
                    if performer.capabilities.contains(.tokens), !tracer.tokenTakingClasses.contains(performer.className) {
                        unseen.append("\(performer.className) tokens")
                    }
                    if performer.capabilities.contains(.composition), !tracer.emittingClasses.contains(performer.className) {
                        unseen.append("\(performer.className) composition")
                    }
                }
                return unseen.isEmpty ? summary : summary + "; declared, not seen with the default plans: " + unseen.joined(separator: ", ")
            }
            _ = check("update_many matches update") {
                guard let entry = try? host.load(manifest).1, entry.updateMany != nil else {
                    throw Skip(reason: "the library has no update_many")
                }
                return try Self.compareUpdateMany(of: manifest, host: host)
            }
            willStart("destroy performers")
        }
        report(PluginCheck(name: "destroy performers", outcome: .pass, detail: ""))
        return failures == 0
    }

    /// Frames over which ``compareUpdateMany(of:host:)`` compares the two paths (4 s at 60 fps).
    static let comparedFrames = 240

    /// Performs every entry plan type's default plan on two targets, one updated through `update_many`
    /// and one through `update` alone (motion_plugin.h: "It must have the same effect as calling update
    /// for each performer"), and compares their properties after every frame.
    /// - Returns: what was compared.
    /// - Throws: ``Failure`` naming the first frame, property and both values that differ.
    private static func compareUpdateMany(of manifest: PluginManifest, host: PluginHost) throws -> String {
        let scene = Scene()
        let batched = scene.addTarget("update-many", properties: Self.propertiesNamed(by: manifest))
        let single = scene.addTarget("update", properties: Self.propertiesNamed(by: manifest))
        host.unbatchedTargets.insert(single.id)
        defer { host.unbatchedTargets.remove(single.id) }
        let scheduler = Scheduler(scene: scene, registry: host)
        for performer in manifest.performers where performer.interface == .entry {
            for plan in performer.plans {
                // A plan the performer refuses is reported by "default plan"; here it is left out.
                let defaults = defaultPlan(for: plan)
                guard (try? scheduler.commit(Transaction([.add(defaults, target: batched.id)]))) != nil else { continue }
                try? scheduler.commit(Transaction([.add(defaults, target: single.id)]))
            }
        }
        var time = 0.0
        var frames = 0
        while frames < comparedFrames, scheduler.isActive {
            time += 1.0 / 60
            frames += 1
            scheduler.advanceFrame(to: time)
            let viaUpdateMany = Dictionary(uniqueKeysWithValues: batched.properties.map { ($0.name, $0.value) })
            let viaUpdate = Dictionary(uniqueKeysWithValues: single.properties.map { ($0.name, $0.value) })
            guard viaUpdateMany != viaUpdate else { continue }
            let names = Set(viaUpdateMany.keys).union(viaUpdate.keys).sorted()
            let name = names.first { viaUpdateMany[$0] != viaUpdate[$0] }!
            let (a, b) = (viaUpdateMany[name], viaUpdate[name])
            throw Failure(
                description:
                    "after frame \(frames), property \(name) is \(a.map { "\($0)" } ?? "unset") through update_many but \(b.map { "\($0)" } ?? "unset") through update; they must have the same effect"
            )
        }
        guard frames > 0 else { throw Skip(reason: "no default plan made a performer active, so no frame ran") }
        return "the same properties after each of \(frames) frame\(frames == 1 ? "" : "s")"
    }

    /// The plan a manifest's schema describes with every default, and a value in range for each required
    /// field without one.
    /// The properties the default plans' `property` fields name (their defaults, or the sample "opacity"),
    /// each 0, for the validator's targets: the host refuses a plan naming a property its target lacks.
    static func propertiesNamed(by manifest: PluginManifest) -> [String: PropertyValue] {
        var properties: [String: PropertyValue] = ["opacity": 0]
        for plan in manifest.performers.flatMap(\.plans) {
            for field in plan.fields where field.type == .property {
                if case .string(let name)? = defaultPlan(for: plan).fields[field.name] { properties[name] = 0 }
            }
        }
        return properties
    }

    static func defaultPlan(for plan: PlanManifest) -> Plan {
        var fields: [String: JSONValue] = [:]
        for field in plan.fields {
            if let value = field.defaultValue {
                fields[field.name] = value
            } else if field.required {
                fields[field.name] = sampleValue(for: field)
            }
        }
        return Plan(type: plan.type, fields: fields)
    }

    private static func sampleValue(for field: FieldManifest) -> JSONValue {
        if let first = field.enumValues?.first { return first }
        let number = min(max(0, field.minimum ?? 0), field.maximum ?? .infinity)
        switch field.type {
        case .number: return .number(number)
        case .integer: return .number(number.rounded(.up))
        case .boolean: return .bool(false)
        case .string, .property: return .string("opacity")
        case .vector: return .array(Array(repeating: .number(number), count: field.itemRange.lowerBound))
        case .object: return .object([:])
        case .array: return .array([])
        }
    }

    /// A plan whose every field has the wrong JSON type (a string where a number is due, and so on).
    static func malformedPlan(for plan: PlanManifest) -> Plan {
        var fields: [String: JSONValue] = [:]
        for field in plan.fields {
            fields[field.name] = field.type == .string ? .number(42) : .string("not a \(field.type.rawValue)")
        }
        if fields.isEmpty { fields["unexpected"] = .string("field") }
        return Plan(type: plan.type, fields: fields)
    }
}

/// Records the plan types of emitted transactions.
private final class EmissionRecorder: Tracer {
    var emittedPlanTypes: [String] = []
    /// The performer classes that emitted a transaction, and those that took an is-active token.
    var emittingClasses: Set<String> = []
    var tokenTakingClasses: Set<String> = []
    func trace(_ event: TraceEvent) {
        switch event {
        case .emitted(let transaction, let performer, _):
            emittedPlanTypes += transaction.operations.compactMap { $0.plan?.type }
            emittingClasses.insert(performer.className)
        case .tokenGenerated(_, let performer):
            tokenTakingClasses.insert(performer.className)
        default:
            break
        }
    }
}

/// Counts of plugin misbehaviour the host absorbed, for the validator.
enum HostDiagnostics {
    private static let counts = ProcessLock(0)
    /// How many times a plugin terminated an already terminated token (`MOTION_ERR_TOKEN_ALREADY_TERMINATED`).
    static var doubleTerminations: Int { counts.withLock { $0 } }
    static func recordDoubleTermination() { counts.withLock { $0 += 1 } }
}
