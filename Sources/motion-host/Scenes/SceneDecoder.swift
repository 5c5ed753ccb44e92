import FoundationEssentials
import MotionCore
import MotionFiles

/// Reads and checks a scene file; every problem becomes one line naming the file, the field's JSON
/// path, what was expected and what was found.
///
/// Example: `scene.json: $.transactions[2].at: expected a number ≥ 0 (seconds), found "soon"`.
enum SceneDecoder {
    /// Reads a scene file.
    /// - Parameter path: The file's path, as given on the command line; relative recording paths are
    ///   resolved against its folder.
    /// - Returns: The checked scene.
    /// - Throws: ``MotionHostError`` `.unreadableFile`, `.invalidJSON` (with line and column) or
    ///   `.invalidScene` (with the field's JSON path).
    static func load(path: String) throws(MotionHostError) -> SceneDocument {
        let bytes: [UInt8]
        do {
            bytes = try RegularFile.read(atPath: path, limit: FileSizeLimit.scene, what: "the scene")
        } catch {
            throw MotionHostError(.unreadableFile, file: path, error.message, underlying: error)
        }
        return try decode(Data(bytes), path: path)
    }

    /// Decodes a scene from JSON bytes.
    /// - Throws: ``MotionHostError`` `.invalidJSON` or `.invalidScene`.
    static func decode(_ data: Data, path: String) throws(MotionHostError) -> SceneDocument {
        let reader = JSONDocumentReader<SceneFieldError>(file: URL(fileURLWithPath: path))
        do {
            let root = try reader.parseObject(data, expected: "a scene object")
            return try SceneFields(path: path, r: reader).scene(root)
        } catch {
            throw MotionHostError(error.problem == .invalidJSON ? .invalidJSON : .invalidScene, file: path, error.text)
        }
    }

    /// Decodes one transaction sent to `serve` (`{"operations": [...]}`, as in a scene), checking its
    /// targets against the scene's.
    /// - Parameters:
    ///   - root: The request's JSON.
    ///   - targetNames: The scene's targets (``SceneTargetNames``, made once per scene).
    /// - Returns: The transaction.
    /// - Throws: ``SceneFieldError`` naming the field's JSON path (`$.operations[0].target: no target named ...`).
    static func transaction(_ root: JSONValue, targetNames: SceneTargetNames) throws(SceneFieldError) -> Transaction {
        let reader = JSONDocumentReader<SceneFieldError>(file: URL(fileURLWithPath: "request"))
        return try SceneFields(path: "request", r: reader).transaction(root, targetNames: targetNames)
    }
}

/// A scene's target names, in file order and as a set: an operation's target is checked in constant
/// time (a scene of 100,000 targets and as many operations reads in linear time).
struct SceneTargetNames {
    /// The names in the order of `$.targets`, for messages.
    let ordered: [String]
    private let set: Set<String>

    /// The names of a scene's targets, in file order.
    init(_ names: [String]) {
        ordered = names
        set = Set(names)
    }

    /// Whether a target of this name exists.
    func contains(_ name: String) -> Bool { set.contains(name) }
}

/// A scene error: `<json path>: <what was wrong>`, or the invalid-JSON message.
///
/// Scenes word their problems as `expected X, found Y`, showing a found value as compact JSON.
struct SceneFieldError: JSONDocumentFailure {
    /// What kind of problem this is.
    var problem: JSONDocumentProblem
    /// The line after the file name, e.g. `$.frameRate: expected a number > 0, found -1`.
    var text: String

    init(_ problem: JSONDocumentProblem, file: URL, jsonPath: String?, message: String) {
        self.problem = problem
        text = jsonPath.map { "\($0): \(message)" } ?? message
    }

    static func found(_ node: JSONValue) -> String { JSONText.value(node, limit: 40) }

    static func mismatch(expected: String, found: String) -> String { "expected \(expected), found \(found)" }

    static func missing(expected: String) -> String { "missing; this field is required" }

    static func unknownField(_ key: String, allowed: [String], what: String) -> String {
        "unknown field\(suggestion(for: key, among: allowed)); known fields: "
            + allowed.filter { $0 != "$schema" }.joined(separator: ", ")
    }
}

/// The field-by-field checks of a scene; the reader keeps the JSON path of the value being read.
private struct SceneFields {
    let path: String
    let r: JSONDocumentReader<SceneFieldError>

    func scene(_ root: [String: JSONValue]) throws(SceneFieldError) -> SceneDocument {
        try r.checkKeys(
            root,
            allowed: [
                "sceneVersion", "name", "frameRate", "duration", "maximumDuration", "units", "targets",
                "deviceMotion", "transactions", "$schema",
            ], what: "a scene")
        try r.required(root, "sceneVersion", expected: "1") { (node) throws(SceneFieldError) in
            guard case .number(1) = node else {
                throw r.mismatch(.unsupportedVersion, expected: "1 (the scene version this host reads)", found: node)
            }
        }
        let name =
            try r.optional(root, "name") { (node) throws(SceneFieldError) in try r.nonEmptyString(node) }
            ?? URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let frameRate =
            try r.optional(root, "frameRate") { (node) throws(SceneFieldError) in
                try r.number(node, expected: "a number > 0 and ≤ 1000 (frames per second)") { $0 > 0 && $0 <= 1000 }
            } ?? 60
        let duration = try r.required(root, "duration", expected: "a duration") { (node) throws(SceneFieldError) in
            if case .string("untilIdle") = node { return SceneDuration.untilIdle }
            return .seconds(
                try r.number(node, expected: "a number in 0...86400 (seconds) or \"untilIdle\"") { $0 >= 0 && $0 <= SceneDocument.longestRun })
        }
        let maximumDuration =
            try r.optional(root, "maximumDuration") { (node) throws(SceneFieldError) in
                try r.number(node, expected: "a number > 0 and ≤ 86400 (seconds)") { $0 > 0 && $0 <= SceneDocument.longestRun }
            } ?? 60
        let units: [String: String] =
            try r.optional(root, "units") { (node) throws(SceneFieldError) in
                let object = try r.object(node, expected: "an object of unit strings by property name")
                let members = try r.members(object) { (_, node) throws(SceneFieldError) in try r.string(node) }
                return Dictionary(uniqueKeysWithValues: members.map { ($0.key, $0.value) })
            } ?? [:]
        let targets = try r.required(root, "targets", expected: "an array of targets", targets)
        // A unit is for a property some target declares: a key that names none is a typo.
        let declared = Set(targets.flatMap { $0.properties.map(\.name) })
        for key in units.keys.sorted() where !declared.contains(key) {
            try r.at(.key("units")) { () throws(SceneFieldError) in
                try r.at(.key(key)) { () throws(SceneFieldError) in
                    throw r.fail(
                        .unknownField,
                        "expected the name of a property a target declares (\(declared.sorted().joined(separator: ", "))); found \(JSONText.quoted(key)), which no target has\(JSONText.suggestion(for: key, among: Array(declared)))"
                    )
                }
            }
        }
        let deviceMotion = try r.optional(root, "deviceMotion", deviceMotion)
        let transactions = try r.required(root, "transactions", expected: "an array of transactions") {
            (node) throws(SceneFieldError) in
            try self.transactions(node, targetNames: SceneTargetNames(targets.map(\.name)))
        }
        return SceneDocument(
            path: path, name: name, frameRate: frameRate, duration: duration, maximumDuration: maximumDuration,
            units: units, targets: targets, deviceMotion: deviceMotion, transactions: transactions)
    }

    /// The targets in file order; each target's properties sorted by name (JSON objects are unordered).
    private func targets(_ node: JSONValue) throws(SceneFieldError) -> [SceneTarget] {
        var names: Set<String> = []
        return try r.elements(try r.array(node, expected: "an array of targets")) { (_, node) throws(SceneFieldError) in
            let target = try r.object(node, expected: "a target object {\"name\", \"properties\"}")
            try r.checkKeys(target, allowed: ["name", "properties"], what: "a target")
            let name = try r.required(target, "name", expected: "a non-empty string") { (node) throws(SceneFieldError) in
                let name = try r.nonEmptyString(node)
                guard !names.contains(name) else {
                    throw r.fail(.duplicate, "the target name \(JSONText.quoted(name)) is used twice; target names must be unique")
                }
                return name
            }
            names.insert(name)
            let properties = try r.optional(target, "properties") { (node) throws(SceneFieldError) in
                let object = try r.object(node, expected: "an object of property values")
                return try r.members(object) { (_, node) throws(SceneFieldError) in try propertyValue(node) }
            }
            return SceneTarget(name: name, properties: (properties ?? []).map { (name: $0.key, value: $0.value) })
        }
    }

    private func propertyValue(_ node: JSONValue) throws(SceneFieldError) -> PropertyValue {
        switch node {
        case .number(let n): return PropertyValue(n)
        case .array(let elements) where (1...PropertyValue.maximumCount).contains(elements.count):
            return PropertyValue(try r.elements(elements) { (_, node) throws(SceneFieldError) in try r.number(node) })
        default:
            throw r.mismatch(expected: "a number or an array of 1 to 4 numbers", found: node)
        }
    }

    private func deviceMotion(_ node: JSONValue) throws(SceneFieldError) -> DeviceMotionSource {
        let source = try r.object(node, expected: "an object {\"recording\", \"referenceFrame\"}")
        try r.checkKeys(source, allowed: ["recording", "referenceFrame"], what: "a device-motion source")
        let referenceFrame =
            try r.optional(source, "referenceFrame") { (node) throws(SceneFieldError) in
                try r.choice(node, among: DeviceMotionSource.referenceFrames)
            } ?? DeviceMotionSource.referenceFrames[0]
        return try r.required(source, "recording", expected: "a non-empty string") { (node) throws(SceneFieldError) in
            let recording = try r.nonEmptyString(node)
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
            let resolved =
                recording.hasPrefix("/") ? recording : folder.appendingPathComponent(recording).standardizedFileURL.path
            guard FileManager.default.fileExists(atPath: resolved) else {
                throw r.fail(
                    .invalidValue,
                    "no file at \(JSONText.quoted(recording)) (resolved against the scene's folder: \(resolved))")
            }
            return DeviceMotionSource(recording: recording, resolvedPath: resolved, referenceFrame: referenceFrame)
        }
    }

    private func transactions(
        _ node: JSONValue, targetNames: SceneTargetNames
    ) throws(SceneFieldError) -> [TimedTransaction] {
        let elements = try r.array(node, expected: "an array of transactions")
        return try r.elements(elements) { (i, node) throws(SceneFieldError) in
            let timed = try r.object(node, expected: "a transaction object {\"at\", \"operations\"}")
            try r.checkKeys(timed, allowed: ["at", "operations"], what: "a transaction")
            let time = try r.required(timed, "at", expected: "a number") { (node) throws(SceneFieldError) in
                try r.number(node, expected: "a number ≥ 0 (seconds)") { $0 >= 0 }
            }
            var transaction = Transaction()
            try r.required(timed, "operations", expected: "an array of operations") { (node) throws(SceneFieldError) in
                let operations = try r.array(node, expected: "an array of operations")
                _ = try r.elements(operations) { (_, node) throws(SceneFieldError) in
                    try operation(node, targetNames: targetNames, into: &transaction)
                }
            }
            return TimedTransaction(index: i, at: time, transaction: transaction)
        }
    }

    func transaction(_ node: JSONValue, targetNames: SceneTargetNames) throws(SceneFieldError) -> Transaction {
        let object = try r.object(node, expected: "a transaction object {\"operations\": [...]}")
        try r.checkKeys(object, allowed: ["operations"], what: "a transaction")
        var transaction = Transaction()
        try r.required(object, "operations", expected: "an array of operations") { (node) throws(SceneFieldError) in
            let operations = try r.array(node, expected: "an array of operations")
            _ = try r.elements(operations) { (_, node) throws(SceneFieldError) in
                try operation(node, targetNames: targetNames, into: &transaction)
            }
        }
        return transaction
    }

    private func operation(
        _ node: JSONValue, targetNames: SceneTargetNames, into transaction: inout Transaction
    ) throws(SceneFieldError) {
        let op = try r.object(node, expected: "an operation object {\"op\", \"target\", ...}")
        let kinds = ["add", "addNamed", "removeNamed"]
        let kind = try r.required(op, "op", expected: "an operation kind") { (node) throws(SceneFieldError) in
            let kind = try r.nonEmptyString(node)
            guard kinds.contains(kind) else {
                throw r.fail(
                    .invalidValue,
                    SceneFieldError.mismatch(
                        expected: "\"add\", \"addNamed\" or \"removeNamed\"", found: SceneFieldError.found(node))
                        + suggestion(for: kind, among: kinds))
            }
            return kind
        }
        let allowed =
            switch kind {
            case "add": ["op", "target", "plan"]
            case "addNamed": ["op", "target", "name", "plan"]
            default: ["op", "target", "name"]
            }
        try r.checkKeys(op, allowed: allowed, what: "an operation")
        let target = try r.required(op, "target", expected: "a target name") { (node) throws(SceneFieldError) in
            let target = try r.nonEmptyString(node)
            guard targetNames.contains(target) else {
                let known = targetNames.ordered
                throw r.fail(
                    .invalidValue,
                    "no target named \(SceneFieldError.found(node)) in $.targets\(suggestion(for: target, among: known)); known targets: \(known.isEmpty ? "none" : known.joined(separator: ", "))"
                )
            }
            return TargetID(target)
        }
        let name = { () throws(SceneFieldError) in
            try r.required(op, "name", expected: "a plan name") { (node) throws(SceneFieldError) in try r.nonEmptyString(node) }
        }
        switch kind {
        case "add": transaction.add(try r.required(op, "plan", expected: "a plan", plan), to: target)
        case "addNamed":
            let name = try name()
            transaction.add(try r.required(op, "plan", expected: "a plan", plan), named: name, to: target)
        default: transaction.removePlan(named: try name(), from: target)
        }
    }

    private func plan(_ node: JSONValue) throws(SceneFieldError) -> Plan {
        let object = try r.object(node, expected: "a plan object {\"type\", ...fields}")
        let type = try r.required(object, "type", expected: "a plan type") { (node) throws(SceneFieldError) in
            try r.nonEmptyString(node)
        }
        var fields = object
        fields.removeValue(forKey: "type")
        return Plan(type: type, fields: fields)
    }
}
