import CMotionABI
import FoundationEssentials
import MotionCore

// Manifests straight from simdjson's items (discovery reads one per plugin, so this is most of the cost of
// listing plugins without the discovery cache).
//
// ``ManifestItemReader`` checks every rule ``ManifestDecoder`` checks, reading each object's members by
// key position from the parse (``JSONItems``), with no `JSONValue` tree, no `[String: JSONValue]` per object
// and no JSON path kept. It gives a manifest only when every rule holds; at the first thing it does not
// expect (a problem of any kind, a key written twice, an unknown key, a byte order mark, bytes that are not
// JSON) it gives `nil`, and ``PluginManifest/decode(_:url:)`` reads the file again through the strict path,
// which gives the same manifest or the error. Every message therefore comes from one place, and the two
// cannot disagree on a valid manifest: `ManifestFastDecodingTests` compares them on every fixture manifest
// and on thousands of mutations of them.

extension PluginManifest {
    /// The manifest in `bytes` when it is valid and ``ManifestItemReader`` reads it; `nil` for anything
    /// else, which the caller then reads through ``ManifestDecoder`` for the error.
    /// - Parameters:
    ///   - bytes: The manifest's JSON.
    ///   - url: The file it came from (the result's ``url``).
    /// - Returns: What ``decode(_:url:)`` returns for these bytes, or `nil`.
    static func fastDecoded(_ bytes: UnsafeRawBufferPointer, url: URL) -> PluginManifest? {
        JSONItems.withParsed(bytes) { items in ManifestItemReader(items: items).manifest(url: url) }
    }
}

/// Reads a valid manifest from simdjson's items; `nil` at the first thing that is not (see above).
struct ManifestItemReader {
    let items: JSONItems

    // Each object's allowed keys, in the order of ``ManifestDecoder``'s lists (its messages name them).
    static let manifestKeys: [StaticString] = [
        "manifestVersion", "id", "name", "version", "abiVersion", "library", "sha256", "summary", "performers",
    ]
    static let performerKeys: [StaticString] = ["class", "interface", "capabilities", "functions", "plans"]
    static let functionsKeys: [StaticString] = ["create", "destroy", "update"]
    static let planKeys: [StaticString] = ["type", "summary", "fields", "call"]
    static let fieldKeys: [StaticString] = [
        "name", "type", "unit", "default", "minimum", "maximum", "enum", "required", "summary", "minItems", "maxItems",
    ]
    static let callKeys: [StaticString] = ["symbol", "arguments"]
    static let argumentKeys: [StaticString] = ["field", "type"]

    func manifest(url: URL) -> PluginManifest? {
        guard let m = items.members(ofObject: items.root, keys: Self.manifestKeys),
            let version = item(m[0]).flatMap(items.number), version == Double(PluginManifest.supportedManifestVersion),
            let id = item(m[1]).flatMap(items.string), ManifestDecoder.isReverseDNS(id),
            let name = item(m[2]).flatMap(nonEmptyString),
            let pluginVersion = item(m[3]).flatMap(items.string), ManifestDecoder.isSemanticVersion(pluginVersion),
            let abi = item(m[4]).flatMap(items.string).flatMap({ ABIVersion($0) }), ManifestDecoder.isServable(abi),
            let library = item(m[5]).flatMap(items.string), ManifestDecoder.libraryPathProblem(library) == nil,
            let performerList = item(m[8]), items.elementCount(performerList) > 0
        else { return nil }
        var sha256: String?
        if let i = item(m[6]) {
            guard let hex = items.string(i), hex.utf8.count == 64, hex.utf8.allSatisfy(ManifestDecoder.isHexDigit)
            else { return nil }
            sha256 = hex.lowercased()
        }
        let summary = optionalString(m[7])
        guard summary != .some(nil) else { return nil }
        var performers: [PerformerManifest] = []
        for i in items.elements(performerList) {
            guard let performer = performer(i) else { return nil }
            performers.append(performer)
        }
        guard ManifestDecoder.uniquenessProblem(performers, file: url) == nil else { return nil }
        return PluginManifest(
            manifestVersion: PluginManifest.supportedManifestVersion, id: id, name: name, version: pluginVersion,
            abiVersion: abi, library: library, sha256: sha256, summary: summary ?? nil, performers: performers,
            url: url)
    }

    private func performer(_ i: Int) -> PerformerManifest? {
        guard let m = items.members(ofObject: i, keys: Self.performerKeys),
            let className = item(m[0]).flatMap(nonEmptyString),
            let interface = item(m[1]).flatMap({ choice($0, PerformerManifest.Interface.self) }),
            let planList = item(m[4]), items.elementCount(planList) > 0
        else { return nil }
        var capabilities: [PerformerManifest.Capability] = []
        if let list = item(m[2]) {
            guard items.isArray(list) else { return nil }
            for j in items.elements(list) {
                guard let capability = choice(j, PerformerManifest.Capability.self), !capabilities.contains(capability)
                else { return nil }
                capabilities.append(capability)
            }
        }
        var functions: PerformerManifest.Functions?
        if let j = item(m[3]) {
            guard interface == .functions, let f = items.members(ofObject: j, keys: Self.functionsKeys),
                let create = item(f[0]).flatMap(symbol), let destroy = item(f[1]).flatMap(symbol)
            else { return nil }
            let update = item(f[2]).map(symbol)
            guard update != .some(nil) else { return nil }
            functions = PerformerManifest.Functions(create: create, destroy: destroy, update: update ?? nil)
        }
        guard interface != .functions || functions != nil else { return nil }
        var plans: [PlanManifest] = []
        for j in items.elements(planList) {
            guard let plan = plan(j, interface: interface) else { return nil }
            plans.append(plan)
        }
        return PerformerManifest(
            className: className, interface: interface, capabilities: capabilities, functions: functions, plans: plans)
    }

    private func plan(_ i: Int, interface: PerformerManifest.Interface) -> PlanManifest? {
        guard let m = items.members(ofObject: i, keys: Self.planKeys), let type = item(m[0]).flatMap(nonEmptyString)
        else { return nil }
        let summary = optionalString(m[1])
        guard summary != .some(nil) else { return nil }
        var fields: [FieldManifest] = []
        if let list = item(m[2]) {
            guard items.isArray(list) else { return nil }
            for j in items.elements(list) {
                guard let field = field(j), !fields.contains(where: { $0.name == field.name }) else { return nil }
                fields.append(field)
            }
        }
        var call: CallDeclaration?
        if let j = item(m[3]) {
            guard interface == .functions, let declaration = callDeclaration(j, fields: fields) else { return nil }
            call = declaration
        }
        guard interface != .functions || call != nil else { return nil }
        return PlanManifest(type: type, summary: summary ?? nil, fields: fields, call: call)
    }

    private func field(_ i: Int) -> FieldManifest? {
        guard let m = items.members(ofObject: i, keys: Self.fieldKeys),
            let name = item(m[0]).flatMap(nonEmptyString), name != "type",
            let type = item(m[1]).flatMap({ choice($0, FieldType.self) })
        else { return nil }
        let unit = optionalString(m[2])
        let summary = optionalString(m[8])
        guard unit != .some(nil), summary != .some(nil) else { return nil }
        var required = false
        if let j = item(m[7]) {
            guard let value = items.bool(j) else { return nil }
            required = value
        }
        let numeric = type == .number || type == .integer || type == .vector
        let sized = type == .vector || type == .array
        let minimum = item(m[4]).map { numeric ? finiteNumber($0) : nil }
        let maximum = item(m[5]).map { numeric ? finiteNumber($0) : nil }
        guard minimum != .some(nil), maximum != .some(nil) else { return nil }
        if let low = minimum ?? nil, let high = maximum ?? nil, high < low { return nil }
        let vectorLeast = type == .vector ? 1 : 0
        let minItems = item(m[9]).map { sized ? integer($0, atLeast: vectorLeast) : nil }
        guard minItems != .some(nil) else { return nil }
        let maxItems = item(m[10]).map { sized ? integer($0, atLeast: max((minItems ?? nil) ?? 0, vectorLeast)) : nil }
        guard maxItems != .some(nil) else { return nil }
        var enumValues: [JSONValue]?
        if let list = item(m[6]) {
            guard type == .string || type == .number || type == .integer, items.elementCount(list) > 0 else {
                return nil
            }
            let probe = FieldManifest(name: "", type: type, minimum: minimum ?? nil, maximum: maximum ?? nil)
            var values: [JSONValue] = []
            var seen: Set<JSONValue> = []
            for j in items.elements(list) {
                guard let value = items.value(at: j), probe.problem(with: value) == nil, seen.insert(value).inserted
                else { return nil }
                values.append(value)
            }
            enumValues = values
        }
        var defaultValue: JSONValue?
        if let j = item(m[3]) {
            let partial = FieldManifest(
                name: name, type: type, minimum: minimum ?? nil, maximum: maximum ?? nil, enumValues: enumValues,
                minItems: minItems ?? nil, maxItems: maxItems ?? nil)
            guard !required, let value = items.value(at: j), partial.problem(with: value) == nil else { return nil }
            defaultValue = value
        }
        return FieldManifest(
            name: name, type: type, unit: unit ?? nil, defaultValue: defaultValue, minimum: minimum ?? nil,
            maximum: maximum ?? nil, enumValues: enumValues, required: required, summary: summary ?? nil,
            minItems: minItems ?? nil, maxItems: maxItems ?? nil)
    }

    private func callDeclaration(_ i: Int, fields: [FieldManifest]) -> CallDeclaration? {
        guard let m = items.members(ofObject: i, keys: Self.callKeys), let symbol = item(m[0]).flatMap(symbol),
            let list = item(m[1]), items.isArray(list)
        else { return nil }
        var arguments: [CallDeclaration.Argument] = []
        for j in items.elements(list) {
            guard let a = items.members(ofObject: j, keys: Self.argumentKeys),
                let name = item(a[0]).flatMap(items.string),
                let field = fields.first(where: { $0.name == name }), field.required || field.defaultValue != nil,
                !arguments.contains(where: { $0.field == name }),
                let ctype = item(a[1]).flatMap({ choice($0, CType.self) }), ctype.acceptedFieldTypes.contains(field.type)
            else { return nil }
            arguments.append(CallDeclaration.Argument(field: name, ctype: ctype))
        }
        return CallDeclaration(symbol: symbol, arguments: arguments)
    }

    // MARK: Values

    /// The item index a ``JSONItems/members(ofObject:keys:)`` slot holds, or `nil` for an absent key.
    private func item(_ slot: Int32) -> Int? { slot >= 0 ? Int(slot) : nil }

    /// An optional string member: `nil` when absent, `.some(nil)` when present but not a string.
    private func optionalString(_ slot: Int32) -> String?? { item(slot).map(items.string) }

    /// A non-empty string without control characters (``JSONDocumentReader/nonEmptyString(_:expected:)``:
    /// simdjson has validated the UTF-8, in which a byte below 0x20 is a scalar below U+0020).
    private func nonEmptyString(_ i: Int) -> String? {
        guard items.withUTF8(i, { !$0.isEmpty && !$0.contains(where: { $0 < 0x20 }) }) == true else { return nil }
        return items.string(i)
    }

    /// A finite number (``JSONDocumentReader/number(_:expected:where:)``).
    private func finiteNumber(_ i: Int) -> Double? { items.number(i).flatMap { $0.isFinite ? $0 : nil } }

    /// An integer `>= low` (``JSONDocumentReader/integer(_:atLeast:)``).
    private func integer(_ i: Int, atLeast low: Int) -> Int? {
        guard let n = items.number(i), n.isFinite, n == n.rounded(), abs(n) < 1e15, Int(n) >= low else { return nil }
        return Int(n)
    }

    /// One of an enumeration's raw values.
    private func choice<E: RawRepresentable>(_ i: Int, _: E.Type) -> E? where E.RawValue == String {
        items.string(i).flatMap(E.init(rawValue:))
    }

    /// A C symbol other than the entry (``ManifestDecoder``'s `symbol`).
    private func symbol(_ i: Int) -> String? {
        guard let s = items.string(i), ManifestDecoder.isCIdentifier(s), s != "motion_plugin_entry" else { return nil }
        return s
    }
}
