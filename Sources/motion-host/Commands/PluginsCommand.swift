import FoundationEssentials
import MotionCore
import MotionHost

/// `motion-host plugins list`: lists the plugins found on the search path, from their manifests
/// (no library is loaded): id, version, library (where it resolves, or why not), plan types, status.
/// The status says what a run would do: `valid` only when every check a run makes before `dlopen` passes
/// (``LibraryLoader/verify(_:)``: owners, permissions and folders of manifest and library, a regular file,
/// the pins); otherwise the reason it would be refused. Manifests shadowed by another of the same plugin id
/// are listed as such.
/// - Parameter values: `--plugin-path` (repeating), `--config`, `--format text|json`.
/// - Returns: 0 when at least one plugin is valid; 1 when none is (nothing found, or every one refused,
///   shadowed, disabled or invalid).
/// - Throws: ``MotionHostError`` for a missing folder or a bad configuration file.
func runPluginsList(_ values: ParsedValues) throws -> Int32 {
    let environment = try PluginEnvironment(pluginPaths: values.values("plugin-path"), configPath: values.value("config"))
    let catalog = environment.catalog
    struct Row {
        var id: String
        var version: String
        var library: String
        var planTypes: [String]
        var status: String
        var manifest: String
    }
    var rows: [Row] = []
    for plugin in catalog.plugins {
        let library: String
        var status = "valid"
        do {
            library = try environment.loader.verify(plugin).path
        } catch {
            // A library that was not found is not found again: no second search of the library folders.
            library =
                error.code == .libraryNotFound
                ? plugin.library : (try? environment.loader.resolve(plugin).path) ?? plugin.library
            status =
                error.code == .libraryNotFound || error.code == .pathEscape
                ? "library unavailable: \(error.message)" : "refused: \(error.message)"
        }
        let contested = plugin.planTypes.filter { catalog.entry(forPlanType: $0)?.plugin.id != plugin.id }
        if !contested.isEmpty, status == "valid" { status = "contested plan types: \(contested.joined(separator: ", "))" }
        rows.append(
            Row(
                id: plugin.id, version: plugin.version, library: library, planTypes: plugin.planTypes, status: status,
                manifest: plugin.url.relativePath))
    }
    for shadow in catalog.shadowed {
        let picked = shadow.isConfigured ? " (the host configuration's pluginManifests picks it)" : ""
        rows.append(
            Row(
                id: shadow.pluginID, version: "", library: "", planTypes: [],
                status: "shadowed by \(shadow.used.relativePath)\(picked)", manifest: shadow.ignored.relativePath))
    }
    for plugin in catalog.disabled {
        rows.append(
            Row(
                id: plugin.id, version: plugin.version, library: plugin.library, planTypes: plugin.planTypes,
                status: "disabled by the host configuration", manifest: plugin.url.relativePath))
    }
    let hasValid = rows.contains { $0.status == "valid" }
    if values.value("format") == "json" {
        var lines: [String] = []
        for row in rows {
            var object: [String: JSONValue] = [
                "id": .string(row.id), "version": .string(row.version), "library": .string(row.library),
                "planTypes": .array(row.planTypes.map { .string($0) }), "status": .string(row.status), "manifest": .string(row.manifest),
            ]
            object["valid"] = .bool(row.status == "valid")
            var bytes: [UInt8] = []
            JSONValue.object(object).writeJSON(into: &bytes)
            lines.append(String(decoding: bytes, as: UTF8.self))
        }
        for problem in catalog.problems {
            var bytes: [UInt8] = []
            JSONValue.object(["invalid": .string(problem.description), "valid": false]).writeJSON(into: &bytes)
            lines.append(String(decoding: bytes, as: UTF8.self))
        }
        for file in catalog.notManifests {
            var bytes: [UInt8] = []
            JSONValue.object(["notAManifest": .string(file.relativePath), "valid": false]).writeJSON(into: &bytes)
            lines.append(String(decoding: bytes, as: UTF8.self))
        }
        print(lines.joined(separator: "\n"))
        return hasValid ? 0 : 1
    }
    if rows.isEmpty && catalog.problems.isEmpty {
        print("No plugins found. Searched: \(catalog.searchPath.directories.map(\.path).joined(separator: ", ")).")
        return 1
    }
    let table =
        [["ID", "VERSION", "LIBRARY", "PLAN TYPES", "STATUS"]]
        + rows.map { [$0.id, $0.version, $0.library, $0.planTypes.joined(separator: ", "), $0.status] }
    let widths = (0..<5).map { column in table.map { $0[column].count }.max() ?? 0 }
    for row in table where !rows.isEmpty {
        print(row.enumerated().map { $0 == 4 ? $1 : padded($1, to: widths[$0]) }.joined(separator: "  "))
    }
    for problem in catalog.problems { print("invalid: \(problem)") }
    for file in catalog.notManifests {
        print("not a manifest (no manifestVersion key): \(file.relativePath)")
    }
    if !hasValid {
        CommandLineTool.writeStandardError(
            "error: no valid plugin on the search path (\(catalog.searchPath.directories.map(\.path).joined(separator: ", "))); the lines above say why\n"
        )
    }
    return hasValid ? 0 : 1
}

/// `motion-host plugins describe PLANTYPE`: the plan type's summary and fields with types, units,
/// defaults and ranges, from its manifest (no library is loaded).
/// - Parameter values: The `plan-type` argument, `--plugin-path`, `--config`.
/// - Returns: 0.
/// - Throws: ``MotionHostError`` naming the plan type when no manifest declares it (with the nearest
///   known plan type), or the reason it is unavailable (contested, invalid manifest).
func runPluginsDescribe(_ values: ParsedValues) throws -> Int32 {
    let environment = try PluginEnvironment(pluginPaths: values.values("plugin-path"), configPath: values.value("config"))
    let planType = values.argument("plan-type") ?? ""
    guard let entry = environment.catalog.entry(forPlanType: planType) else {
        if let problem = environment.catalog.unavailability(ofPlanType: planType) {
            throw MotionHostError(
                .registryUnavailable,
                problem.code == .unknownPlanType ? problem.message : "plan type \"\(planType)\" is unavailable: \(problem)")
        }
        let known = environment.catalog.planTypes
        throw MotionHostError(
            .registryUnavailable,
            "no manifest declares plan type \"\(planType)\"\(suggestion(for: planType, among: known)). Known plan types: \(known.isEmpty ? "none" : known.joined(separator: ", "))."
        )
    }
    var out = "\(entry.plan.type)"
    if let summary = entry.plan.summary { out += " — \(summary)" }
    out += "\n  plugin \(entry.plugin.id) \(entry.plugin.version) (\(entry.plugin.url.relativePath)), library \(entry.plugin.library)"
    out += "\n  performer class \(entry.performer.className) (\(entry.performer.interface.rawValue))"
    if !entry.performer.capabilities.isEmpty {
        out += "; capabilities: \(entry.performer.capabilities.map(\.rawValue).joined(separator: ", "))"
    }
    out += "\n\nFIELDS:\n"
    if entry.plan.fields.isEmpty { out += "  (none)\n" }
    // One column for every field's facts, as wide as the longest name (at least 14).
    let nameWidth = max(14, entry.plan.fields.map(\.name.count).max() ?? 0)
    for field in entry.plan.fields {
        var facts = [field.expectation]
        if field.required { facts.append("required") }
        if let defaultValue = field.defaultValue {
            var bytes: [UInt8] = []
            defaultValue.writeJSON(into: &bytes)
            facts.append("default \(String(decoding: bytes, as: UTF8.self))")
        }
        out += "  \(padded(field.name, to: nameWidth))  \(facts.joined(separator: "; "))\n"
        if let summary = field.summary { out += "  \(String(repeating: " ", count: nameWidth))  \(summary)\n" }
    }
    print(out, terminator: "")
    return 0
}

/// `text` followed by spaces up to `width` Characters (what a terminal shows as one column each, for the
/// scripts a manifest's names use), never cut: Foundation's `padding(toLength:)` counts UTF-16 units, and cut
/// a combining mark off a cell as wide as its column.
private func padded(_ text: String, to width: Int) -> String {
    let count = text.count
    return count >= width ? text : text + String(repeating: " ", count: width - count)
}
