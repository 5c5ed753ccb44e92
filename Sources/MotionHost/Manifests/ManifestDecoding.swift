import CMotionABI
import FoundationEssentials
import MotionCore
import MotionFiles

extension PluginManifest {
    /// Reads and validates a manifest file.
    ///
    /// Checks every rule of `manifests/schema/manifest.schema.json` plus those a schema cannot state:
    /// unique plan types and class names, defaults of the field's type and within its range and enum,
    /// and for a `"functions"` performer a `call` per plan whose arguments name declared fields with
    /// C types that fit them.
    /// - Parameter url: The manifest file.
    /// - Returns: The manifest, with ``url`` set to `url`.
    /// - Throws: ``ManifestError`` naming the file and the JSON path of the first bad field, what was
    ///   expected and what was found; invalid JSON gives line and column.
    public static func load(contentsOf url: URL) throws(ManifestError) -> PluginManifest {
        let bytes = try ManifestError.readDocument(at: url, limit: FileSizeLimit.manifest, what: "the manifest")
        return try decode(bytes, url: url)
    }

    /// Validates a manifest from its JSON bytes, as ``decode(_:url:)-(Data,_)`` does.
    static func decode(_ bytes: [UInt8], url: URL) throws(ManifestError) -> PluginManifest {
        if let manifest = bytes.withUnsafeBytes({ fastDecoded($0, url: url) }) { return manifest }
        return try strictlyDecoded(Data(bytes), url: url)
    }

    /// Validates a manifest from its JSON bytes.
    /// - Parameters:
    ///   - data: The manifest's JSON.
    ///   - url: The file it came from (for messages and to resolve ``library``).
    /// - Returns: The manifest.
    /// - Throws: ``ManifestError`` as ``load(contentsOf:)``.
    public static func decode(_ data: Data, url: URL) throws(ManifestError) -> PluginManifest {
        if let manifest = data.withUnsafeBytes({ fastDecoded($0, url: url) }) { return manifest }
        return try strictlyDecoded(data, url: url)
    }

    /// ``decode(_:url:)-(Data,_)`` through ``ManifestDecoder`` alone: every rule checked on the parsed
    /// `JSONValue`, with the JSON path of each value kept for the messages. The fast path
    /// (``fastDecoded(_:url:)``) gives the same manifests; it leaves every error to this one.
    static func strictlyDecoded(_ data: Data, url: URL) throws(ManifestError) -> PluginManifest {
        let reader = JSONDocumentReader<ManifestError>(file: url)
        let root = try reader.parseObject(data)
        return try ManifestDecoder(reader: reader).manifest(root, url: url)
    }
}

/// The validating reader behind ``PluginManifest/load(contentsOf:)``.
struct ManifestDecoder {
    let reader: JSONDocumentReader<ManifestError>

    static let manifestKeys = [
        "manifestVersion", "id", "name", "version", "abiVersion", "library", "sha256", "summary", "performers",
    ]
    static let performerKeys = ["class", "interface", "capabilities", "functions", "plans"]
    static let functionsKeys = ["create", "destroy", "update"]
    static let planKeys = ["type", "summary", "fields", "call"]
    static let fieldKeys = [
        "name", "type", "unit", "default", "minimum", "maximum", "enum", "required", "summary", "minItems", "maxItems",
    ]
    static let callKeys = ["symbol", "arguments"]
    static let argumentKeys = ["field", "type"]

    func manifest(_ root: [String: JSONValue], url: URL) throws(ManifestError) -> PluginManifest {
        let r = reader
        let version = try r.required(root, "manifestVersion", expected: "1") { (node) throws(ManifestError) in
            let v = try r.integer(node)
            guard v == PluginManifest.supportedManifestVersion else {
                throw r.fail(
                    .unsupportedVersion,
                    "expected \(PluginManifest.supportedManifestVersion) (the manifest version this host reads); found \(v)"
                )
            }
            return v
        }
        try r.checkKeys(root, allowed: Self.manifestKeys, what: "a manifest")
        let id = try r.required(root, "id", expected: "a reverse-DNS id string") { (node) throws(ManifestError) in
            let id = try r.string(node, expected: "a reverse-DNS id string")
            guard Self.isReverseDNS(id) else {
                throw r.fail(
                    .invalidValue, "expected a reverse-DNS id such as \"org.example.myplugin\"; found \(node.found)")
            }
            return id
        }
        let name = try r.required(root, "name", expected: "a non-empty string") { (node) throws(ManifestError) in
            try r.nonEmptyString(node)
        }
        let pluginVersion = try r.required(root, "version", expected: "a version string") {
            (node) throws(ManifestError) in
            let v = try r.string(node, expected: "a version string")
            guard Self.isSemanticVersion(v) else {
                throw r.fail(
                    .invalidValue,
                    "expected a version such as \"1.0.0\" (MAJOR[.MINOR[.PATCH]][-pre][+build]); found \(node.found)")
            }
            return v
        }
        let abi = try r.required(root, "abiVersion", expected: "\"MAJOR.MINOR\"") { (node) throws(ManifestError) in
            let text = try r.string(node, expected: "a string \"MAJOR.MINOR\"")
            guard let abi = ABIVersion(text) else {
                throw r.fail(
                    .invalidValue,
                    "expected \"MAJOR.MINOR\" of motion_plugin.h, such as \"1.0\"; found \(node.found)")
            }
            // Another major cannot load here (motion_plugin.h, "Versioning"): say so before any library is opened.
            guard abi.major == Int(MOTION_ABI_VERSION_MAJOR) else {
                throw r.fail(
                    .invalidValue,
                    "expected ABI \(MOTION_ABI_VERSION_MAJOR).x, the major this host speaks (\(MOTION_ABI_VERSION_MAJOR).\(MOTION_ABI_VERSION_MINOR)); found \(node.found) (a plugin built for another major cannot load in this host)"
                )
            }
            // The oldest host the plugin works with: a newer minor than this host's means it calls
            // functions this host does not have.
            guard abi.minor <= Int(MOTION_ABI_VERSION_MINOR) else {
                throw r.fail(
                    .invalidValue,
                    "expected ABI \(MOTION_ABI_VERSION_MAJOR).0 to \(MOTION_ABI_VERSION_MAJOR).\(MOTION_ABI_VERSION_MINOR), the ones this host can serve; found \(node.found) (the plugin needs a newer host; if it also works with an older one, give the oldest)"
                )
            }
            return abi
        }
        let library = try r.required(root, "library", expected: "a library file name") {
            (node) throws(ManifestError) in
            let path = try r.string(node, expected: "a library file name or relative path")
            if let problem = Self.libraryPathProblem(path) {
                throw r.fail(
                    .invalidValue,
                    "expected a file name or a relative path inside the manifest's folder; found \(node.found), which \(problem)"
                )
            }
            return path
        }
        let sha256 = try r.optional(root, "sha256") { (node) throws(ManifestError) in
            let hex = try r.string(node, expected: "64 hexadecimal digits")
            guard hex.utf8.count == 64, hex.utf8.allSatisfy(Self.isHexDigit) else {
                throw r.fail(.invalidValue, "expected a SHA-256 of 64 hexadecimal digits; found \(node.found)")
            }
            return hex.lowercased()
        }
        let summary = try r.optional(root, "summary") { (node) throws(ManifestError) in try r.string(node) }
        let performers = try r.required(root, "performers", expected: "an array of performers") {
            (node) throws(ManifestError) in
            let items = try r.array(node, expected: "an array of performers")
            guard !items.isEmpty else {
                throw r.fail(.invalidValue, "expected at least one performer; found an empty array")
            }
            return try r.elements(items) { (_, node) throws(ManifestError) in try performer(node) }
        }
        try checkUniqueness(performers)
        return PluginManifest(
            manifestVersion: version, id: id, name: name, version: pluginVersion, abiVersion: abi, library: library,
            sha256: sha256, summary: summary, performers: performers, url: url)
    }

    private func performer(_ node: JSONValue) throws(ManifestError) -> PerformerManifest {
        let r = reader
        let object = try r.object(node, expected: "a performer object")
        try r.checkKeys(object, allowed: Self.performerKeys, what: "a performer")
        let className = try r.required(object, "class", expected: "a class name") { (node) throws(ManifestError) in
            try r.nonEmptyString(node, expected: "a non-empty class name")
        }
        let interface = try r.required(object, "interface", expected: "\"entry\" or \"functions\"") {
            (node) throws(ManifestError) in
            try r.choice(node, PerformerManifest.Interface.self)
        }
        let capabilities =
            try r.optional(object, "capabilities") { (node) throws(ManifestError) -> [PerformerManifest.Capability] in
                let items = try r.array(node, expected: "an array of capability names")
                var seen: Set<PerformerManifest.Capability> = []
                return try r.elements(items) { (_, node) throws(ManifestError) in
                    let capability = try r.choice(node, PerformerManifest.Capability.self)
                    guard seen.insert(capability).inserted else {
                        throw r.fail(.duplicate, "expected each capability once; found \(node.found) again")
                    }
                    return capability
                }
            } ?? []
        let functions = try r.optional(object, "functions") { (node) throws(ManifestError) in
            guard interface == .functions else {
                throw r.fail(
                    .invalidValue,
                    "expected no \"functions\" for an \"entry\" performer (it is reached through motion_plugin_entry); found \(node.found). To fix, remove it or set \"interface\": \"functions\""
                )
            }
            return try functionSymbols(node)
        }
        if interface == .functions && functions == nil {
            try r.at(.key("functions")) { () throws(ManifestError) in
                throw r.fail(
                    .missingField,
                    "expected an object {\"create\", \"destroy\"} naming the C functions of a \"functions\" performer; found no value"
                )
            }
        }
        let plans = try r.required(object, "plans", expected: "an array of plans") { (node) throws(ManifestError) in
            let items = try r.array(node, expected: "an array of plans")
            guard !items.isEmpty else {
                throw r.fail(.invalidValue, "expected at least one plan; found an empty array")
            }
            return try r.elements(items) { (_, node) throws(ManifestError) in try plan(node, interface: interface) }
        }
        return PerformerManifest(
            className: className, interface: interface, capabilities: capabilities, functions: functions, plans: plans)
    }

    private func functionSymbols(_ node: JSONValue) throws(ManifestError) -> PerformerManifest.Functions {
        let r = reader
        let object = try r.object(node, expected: "an object {\"create\", \"destroy\", \"update\"}")
        try r.checkKeys(object, allowed: Self.functionsKeys, what: "functions")
        let create = try r.required(object, "create", expected: "a C symbol name") { (node) throws(ManifestError) in
            try symbol(node)
        }
        let destroy = try r.required(object, "destroy", expected: "a C symbol name") { (node) throws(ManifestError) in
            try symbol(node)
        }
        let update = try r.optional(object, "update") { (node) throws(ManifestError) in try symbol(node) }
        return PerformerManifest.Functions(create: create, destroy: destroy, update: update)
    }

    private func symbol(_ node: JSONValue) throws(ManifestError) -> String {
        let s = try reader.string(node, expected: "a C symbol name")
        guard Self.isCIdentifier(s) else {
            throw reader.fail(.invalidValue, "expected a C symbol name ([A-Za-z_][A-Za-z0-9_]*); found \(node.found)")
        }
        // The entry is called once per process, with its own signature: never as a declared function.
        guard s != "motion_plugin_entry" else {
            throw reader.fail(
                .invalidValue,
                "expected a function of the library's own other than motion_plugin_entry (the ABI calls it once, with its own signature); found \(node.found)"
            )
        }
        return s
    }

    private func plan(_ node: JSONValue, interface: PerformerManifest.Interface) throws(ManifestError) -> PlanManifest {
        let r = reader
        let object = try r.object(node, expected: "a plan object")
        try r.checkKeys(object, allowed: Self.planKeys, what: "a plan")
        let type = try r.required(object, "type", expected: "a plan type name") { (node) throws(ManifestError) in
            try r.nonEmptyString(node, expected: "a non-empty plan type name")
        }
        let summary = try r.optional(object, "summary") { (node) throws(ManifestError) in try r.string(node) }
        let fields =
            try r.optional(object, "fields") { (node) throws(ManifestError) -> [FieldManifest] in
                let items = try r.array(node, expected: "an array of fields")
                var names: [String: Int] = [:]
                return try r.elements(items) { (i, node) throws(ManifestError) in
                    let f = try field(node)
                    if let earlier = names[f.name] {
                        try r.at(.key("name")) { () throws(ManifestError) in
                            throw r.fail(
                                .duplicate,
                                "expected a field name not used earlier in this plan; found \(JSONText.quoted(f.name)) again (first at fields[\(earlier)])"
                            )
                        }
                    }
                    names[f.name] = i
                    return f
                }
            } ?? []
        let call: CallDeclaration? = try r.optional(object, "call") { (node) throws(ManifestError) in
            guard interface == .functions else {
                throw r.fail(
                    .invalidValue,
                    "expected no \"call\" in a plan of an \"entry\" performer (its plans reach add_plan as JSON); found \(node.found)"
                )
            }
            return try callDeclaration(node, fields: fields, planType: type)
        }
        if interface == .functions && call == nil {
            try r.at(.key("call")) { () throws(ManifestError) in
                throw r.fail(
                    .missingField,
                    "expected a call {\"symbol\", \"arguments\"} for each plan of a \"functions\" performer; found no value"
                )
            }
        }
        return PlanManifest(type: type, summary: summary, fields: fields, call: call)
    }

    private func field(_ node: JSONValue) throws(ManifestError) -> FieldManifest {
        let r = reader
        let object = try r.object(node, expected: "a field object")
        try r.checkKeys(object, allowed: Self.fieldKeys, what: "a field")
        let name = try r.required(object, "name", expected: "a field name") { (node) throws(ManifestError) in
            let name = try r.nonEmptyString(node, expected: "a non-empty field name")
            guard name != "type" else {
                throw r.fail(
                    .invalidValue, "expected a field name other than \"type\" (it holds the plan type); found \"type\"")
            }
            return name
        }
        let type = try r.required(object, "type", expected: "a field type") { (node) throws(ManifestError) in
            try r.choice(node, FieldType.self)
        }
        let unit = try r.optional(object, "unit") { (node) throws(ManifestError) in try r.string(node) }
        let summary = try r.optional(object, "summary") { (node) throws(ManifestError) in try r.string(node) }
        let required = try r.optional(object, "required") { (node) throws(ManifestError) in try r.bool(node) } ?? false
        let numeric = type == .number || type == .integer || type == .vector
        let minimum = try r.optional(object, "minimum") { (node) throws(ManifestError) in
            try rangeBound(node, applies: numeric, type: type, key: "minimum")
        }
        let maximum = try r.optional(object, "maximum") { (node) throws(ManifestError) in
            let value = try rangeBound(node, applies: numeric, type: type, key: "maximum")
            if let minimum, value < minimum {
                throw r.fail(
                    .invalidValue, "expected a maximum >= the minimum \(JSONText.number(minimum)); found \(node.found)")
            }
            return value
        }
        let sized = type == .vector || type == .array
        let minItems = try r.optional(object, "minItems") { (node) throws(ManifestError) in
            try itemCount(node, applies: sized, type: type, key: "minItems", atLeast: type == .vector ? 1 : 0)
        }
        let maxItems = try r.optional(object, "maxItems") { (node) throws(ManifestError) in
            let value = try itemCount(
                node, applies: sized, type: type, key: "maxItems", atLeast: max(minItems ?? 0, type == .vector ? 1 : 0))
            return value
        }
        let enumValues = try r.optional(object, "enum") { (node) throws(ManifestError) in
            try enumeration(node, type: type, minimum: minimum, maximum: maximum)
        }
        let partial = FieldManifest(
            name: name, type: type, unit: unit, minimum: minimum, maximum: maximum, enumValues: enumValues,
            required: required, summary: summary, minItems: minItems, maxItems: maxItems)
        let defaultValue = try r.optional(object, "default") { (node) throws(ManifestError) in
            let value = node
            if required {
                throw r.fail(
                    .invalidValue,
                    "expected no default on a required field (a plan always gives it); found \(JSONText.value(value)). To fix, remove \"default\" or \"required\""
                )
            }
            if partial.problem(with: value) != nil {
                throw r.fail(.invalidValue, "expected \(partial.expectation); found \(JSONText.value(value))")
            }
            return value
        }
        return FieldManifest(
            name: name, type: type, unit: unit, defaultValue: defaultValue, minimum: minimum, maximum: maximum,
            enumValues: enumValues, required: required, summary: summary, minItems: minItems, maxItems: maxItems)
    }

    private func rangeBound(_ node: JSONValue, applies: Bool, type: FieldType, key: String) throws(ManifestError)
        -> Double
    {
        guard applies else {
            throw reader.fail(
                .invalidValue,
                "expected \(key) only on a number, integer or vector field; found it on a \(type.rawValue) field")
        }
        return try reader.number(node)
    }

    private func itemCount(
        _ node: JSONValue, applies: Bool, type: FieldType, key: String, atLeast low: Int
    ) throws(ManifestError) -> Int {
        guard applies else {
            throw reader.fail(
                .invalidValue, "expected \(key) only on a vector or array field; found it on a \(type.rawValue) field")
        }
        return try reader.integer(node, atLeast: low)
    }

    private func enumeration(
        _ node: JSONValue, type: FieldType, minimum: Double?, maximum: Double?
    ) throws(ManifestError) -> [JSONValue] {
        let r = reader
        guard type == .string || type == .number || type == .integer else {
            throw r.fail(
                .invalidValue,
                "expected enum only on a string, number or integer field; found it on a \(type.rawValue) field")
        }
        let items = try r.array(node, expected: "an array of allowed values")
        guard !items.isEmpty else {
            throw r.fail(.invalidValue, "expected at least one allowed value; found an empty array")
        }
        let probe = FieldManifest(name: "", type: type, minimum: minimum, maximum: maximum)
        var seen: Set<JSONValue> = []
        return try r.elements(items) { (_, node) throws(ManifestError) in
            let value = node
            if probe.problem(with: value) != nil {
                throw r.fail(.invalidValue, "expected \(probe.expectation) (the field's type); found \(node.found)")
            }
            guard seen.insert(value).inserted else {
                throw r.fail(.duplicate, "expected each allowed value once; found \(node.found) again")
            }
            return value
        }
    }

    private func callDeclaration(
        _ node: JSONValue, fields: [FieldManifest], planType: String
    ) throws(ManifestError) -> CallDeclaration {
        let r = reader
        let object = try r.object(node, expected: "a call object {\"symbol\", \"arguments\"}")
        try r.checkKeys(object, allowed: Self.callKeys, what: "a call")
        let symbol = try r.required(object, "symbol", expected: "a C symbol name") { (node) throws(ManifestError) in
            try self.symbol(node)
        }
        let names = fields.map(\.name)
        let arguments = try r.required(object, "arguments", expected: "an array of arguments") {
            (node) throws(ManifestError) in
            let items = try r.array(node, expected: "an array of arguments {\"field\", \"type\"}")
            var used: Set<String> = []
            return try r.elements(items) { (_, node) throws(ManifestError) in
                let object = try r.object(node, expected: "an argument object {\"field\", \"type\"}")
                try r.checkKeys(object, allowed: Self.argumentKeys, what: "an argument")
                let field = try r.required(object, "field", expected: "a field name") { (node) throws(ManifestError) in
                    let name = try r.string(node, expected: "a field name")
                    guard let field = fields.first(where: { $0.name == name }) else {
                        let known = names.isEmpty ? "it has none" : names.joined(separator: ", ")
                        throw r.fail(
                            .invalidValue,
                            "expected the name of a field of plan type \(JSONText.quoted(planType)) (\(known)); found \(node.found)"
                                + JSONText.suggestion(for: name, among: names))
                    }
                    guard used.insert(name).inserted else {
                        throw r.fail(.duplicate, "expected each field passed once; found \(node.found) again")
                    }
                    guard field.required || field.defaultValue != nil else {
                        throw r.fail(
                            .invalidValue,
                            "expected a field that always has a value (required, or with a default); found \(node.found), which is optional with no default"
                        )
                    }
                    return field
                }
                let ctype = try r.required(object, "type", expected: "a C type") { (node) throws(ManifestError) in
                    let ctype = try r.choice(node, CType.self)
                    guard ctype.acceptedFieldTypes.contains(field.type) else {
                        let fitting = CType.allCases.filter { $0.acceptedFieldTypes.contains(field.type) }.map(
                            \.rawValue)
                        let expected =
                            fitting.isEmpty
                            ? "no C type: \(field.type.phrase) field cannot be passed to a C function"
                            : "a C type that holds \(field.type.phrase) field (\(fitting.joined(separator: ", ")))"
                        throw r.fail(.invalidValue, "expected \(expected); found \(node.found)")
                    }
                    return ctype
                }
                return CallDeclaration.Argument(field: field.name, ctype: ctype)
            }
        }
        return CallDeclaration(symbol: symbol, arguments: arguments)
    }

    /// Class names and plan types must be unique within the manifest.
    private func checkUniqueness(_ performers: [PerformerManifest]) throws(ManifestError) {
        if let problem = Self.uniquenessProblem(performers, file: reader.file) { throw problem }
    }

    /// The first class name or plan type declared twice in `performers`, or `nil`.
    static func uniquenessProblem(_ performers: [PerformerManifest], file: URL) -> ManifestError? {
        // One class with one plan type, the usual manifest: nothing can repeat.
        if performers.count == 1 && performers[0].plans.count <= 1 { return nil }
        var classes: [String: Int] = [:]
        var planTypes: [String: (Int, Int)] = [:]
        for (p, performer) in performers.enumerated() {
            if let earlier = classes[performer.className] {
                return ManifestError(
                    code: .duplicate, file: file, jsonPath: "$.performers[\(p)].class",
                    message:
                        "expected a class name not declared earlier in this manifest; found \(JSONText.quoted(performer.className)) again (first at $.performers[\(earlier)].class)"
                )
            }
            classes[performer.className] = p
            for (q, plan) in performer.plans.enumerated() {
                if let (ep, eq) = planTypes[plan.type] {
                    return ManifestError(
                        code: .duplicate, file: file, jsonPath: "$.performers[\(p)].plans[\(q)].type",
                        message:
                            "expected a plan type not declared earlier in this manifest; found \(JSONText.quoted(plan.type)) again (first at $.performers[\(ep)].plans[\(eq)].type)"
                    )
                }
                planTypes[plan.type] = (p, q)
            }
        }
        return nil
    }

    /// Whether this host can serve a plugin built against `abi`: the same major, a minor no newer than the
    /// host's (`motion_plugin.h`, "Versioning"); ``manifest(_:url:)`` says which of the two fails.
    static func isServable(_ abi: ABIVersion) -> Bool {
        abi.major == Int(MOTION_ABI_VERSION_MAJOR) && abi.minor <= Int(MOTION_ABI_VERSION_MINOR)
    }

    // MARK: Lexical rules

    /// Whether `path` is ASCII and ``libraryPathProblem(_:)`` finds nothing in it: not empty, no NUL, not
    /// starting with `/` or `~`, no `..` component, not only `.` components, not ending with `/`.
    private static func isAllowedASCIILibraryPath(_ path: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = path.first, first != UInt8(ascii: "/"), first != UInt8(ascii: "~"),
            path.last != UInt8(ascii: "/")
        else { return false }
        var start = 0
        var isOnlyDots = true
        while start < path.count {
            var end = start
            while end < path.count && path[end] != UInt8(ascii: "/") {
                guard path[end] != 0, path[end] < 0x80 else { return false }
                end += 1
            }
            let length = end - start
            if length == 2 && path[start] == UInt8(ascii: ".") && path[start + 1] == UInt8(ascii: ".") { return false }
            if length > 0 && !(length == 1 && path[start] == UInt8(ascii: ".")) { isOnlyDots = false }
            start = end + 1
        }
        return !isOnlyDots
    }

    static func isHexDigit(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f"))
            || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "F"))
    }

    private static func isLetter(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
    }

    private static func isAlnum(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
            || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
    }

    /// At least two dot-separated labels of letters, digits, `-` and `_`, each starting and ending with a
    /// letter or digit, the first label starting with a letter (`org.motion.tweenkit`).
    static func isReverseDNS(_ id: String) -> Bool {
        // One pass over the bytes, no array of labels: discovery checks one id per manifest.
        var id = id
        return id.withUTF8(isReverseDNS)
    }

    private static func isReverseDNS(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count <= 255 else { return false }
        var labels = 0
        var start = 0
        while true {
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: ".") { end += 1 }
            let length = end - start
            guard length > 0, length <= 63, isAlnum(bytes[start]), isAlnum(bytes[end - 1]) else { return false }
            if labels == 0 && !isLetter(bytes[start]) { return false }
            for c in bytes[start..<end] where !(isAlnum(c) || c == UInt8(ascii: "-") || c == UInt8(ascii: "_")) {
                return false
            }
            labels += 1
            if end == bytes.count { return labels >= 2 }
            start = end + 1
        }
    }

    /// `MAJOR[.MINOR[.PATCH]]` of decimal numbers, then optional `-prerelease` and `+build` of
    /// `[0-9A-Za-z.-]`.
    static func isSemanticVersion(_ version: String) -> Bool {
        let utf8 = Array(version.utf8)
        var i = 0
        var numbers = 0
        while true {
            let start = i
            while i < utf8.count, utf8[i] >= UInt8(ascii: "0"), utf8[i] <= UInt8(ascii: "9") { i += 1 }
            guard i > start else { return false }
            numbers += 1
            guard numbers <= 3 else { return false }
            if i < utf8.count, utf8[i] == UInt8(ascii: ".") {
                i += 1
                continue
            }
            break
        }
        for marker in [UInt8(ascii: "-"), UInt8(ascii: "+")] where i < utf8.count && utf8[i] == marker {
            i += 1
            let start = i
            while i < utf8.count, isAlnum(utf8[i]) || utf8[i] == UInt8(ascii: ".") || utf8[i] == UInt8(ascii: "-") {
                i += 1
            }
            guard i > start else { return false }
        }
        return i == utf8.count
    }

    /// C identifiers: `[A-Za-z_][A-Za-z0-9_]*`.
    static func isCIdentifier(_ s: String) -> Bool {
        guard let first = s.utf8.first, !(first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")) else {
            return false
        }
        return s.utf8.allSatisfy { isAlnum($0) || $0 == UInt8(ascii: "_") }
    }

    /// Why a manifest's `library` is not an allowed relative path, or `nil` when it is.
    static func libraryPathProblem(_ path: String) -> String? {
        // The usual path, ASCII, in one pass over its bytes; the others by the rules below, which read UTF-8
        // bytes as the kernel does, not Characters (a combining mark after "/" makes one Character of the two).
        var bytes = path
        if bytes.withUTF8(isAllowedASCIILibraryPath) { return nil }
        let utf8 = path.utf8
        let slash = UInt8(ascii: "/")
        let dot = UInt8(ascii: ".")
        if utf8.isEmpty { return "is empty" }
        if utf8.contains(0) { return "contains a NUL byte" }
        if utf8.first == slash { return "is absolute" }
        if utf8.first == UInt8(ascii: "~") { return "starts with \"~\" (paths are not expanded)" }
        let components = utf8.split(separator: slash, omittingEmptySubsequences: true)
        if components.contains(where: { $0.elementsEqual([dot, dot]) }) { return "escapes the folder with \"..\"" }
        if components.isEmpty || components.allSatisfy({ $0.elementsEqual([dot]) }) || utf8.last == slash {
            return "names a folder, not a file"
        }
        return nil
    }
}
