import Foundation
import MotionCore

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
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw MotionHostError(.unreadableFile, file: path, "is a folder, not a scene file")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw MotionHostError(
                .unreadableFile, file: path, "cannot read the scene file: \(reason(error))", underlying: error)
        }
        return try decode(Array(data), path: path)
    }

    /// Decodes a scene from JSON bytes.
    /// - Throws: ``MotionHostError`` `.invalidJSON` or `.invalidScene`.
    static func decode(_ bytes: [UInt8], path: String) throws(MotionHostError) -> SceneDocument {
        let root: JSONNode
        do {
            root = try JSONReader.parse(bytes)
        } catch {
            throw MotionHostError(
                .invalidJSON, file: path, "invalid JSON at line \(error.line), column \(error.column): \(error.reason)")
        }
        do {
            return try SceneFields(path: path).scene(root)
        } catch {
            throw MotionHostError(.invalidScene, file: path, error.text)
        }
    }

    private static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let posix = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(posix.code)))
        }
        if nsError.domain == NSCocoaErrorDomain {
            switch nsError.code {
            case NSFileReadNoSuchFileError: return "no such file"
            case NSFileReadNoPermissionError: return "permission denied"
            default: break
            }
        }
        return nsError.localizedDescription
    }
}

/// A scene field error: `<json path>: <what was wrong>`.
struct SceneFieldError: Error {
    /// The line after the file name, e.g. `$.frameRate: expected a number > 0, found -1`.
    var text: String
}

/// The field-by-field checks of a scene; each helper names the JSON path it reads.
private struct SceneFields {
    let path: String

    typealias Members = [(key: String, value: JSONNode)]

    func scene(_ root: JSONNode) throws(SceneFieldError) -> SceneDocument {
        let members = try object(root, at: "$", expected: "a scene object")
        try checkKeys(
            members, at: "$",
            known: [
                "sceneVersion", "name", "frameRate", "duration", "maximumDuration", "units", "targets",
                "deviceMotion", "transactions", "$schema",
            ])
        let version = try required(members, "sceneVersion", at: "$")
        guard case .number(1) = version else {
            throw SceneFieldError(
                text: "$.sceneVersion: expected 1 (the scene version this host reads), found \(version.excerpt)")
        }
        var name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        if let node = member(members, "name") { name = try string(node, at: "$.name", nonEmpty: true) }
        var frameRate = 60.0
        if let node = member(members, "frameRate") {
            frameRate = try number(node, at: "$.frameRate", expected: "a number > 0 and ≤ 1000 (frames per second)") {
                $0 > 0 && $0 <= 1000
            }
        }
        let durationNode = try required(members, "duration", at: "$")
        let duration: SceneDuration
        if case .string("untilIdle") = durationNode {
            duration = .untilIdle
        } else {
            duration = .seconds(
                try number(durationNode, at: "$.duration", expected: "a number ≥ 0 (seconds) or \"untilIdle\"") {
                    $0 >= 0
                })
        }
        var maximumDuration = 60.0
        if let node = member(members, "maximumDuration") {
            maximumDuration = try number(node, at: "$.maximumDuration", expected: "a number > 0 (seconds)") { $0 > 0 }
        }
        var units: [String: String] = [:]
        if let node = member(members, "units") {
            for (key, value) in try object(node, at: "$.units", expected: "an object of unit strings by property name") {
                units[key] = try string(value, at: "$.units\(pathKey(key))", nonEmpty: false)
            }
        }
        let targets = try self.targets(try required(members, "targets", at: "$"))
        var deviceMotion: DeviceMotionSource?
        if let node = member(members, "deviceMotion") { deviceMotion = try self.deviceMotion(node) }
        let transactions = try self.transactions(try required(members, "transactions", at: "$"), targets: targets)
        return SceneDocument(
            path: path, name: name, frameRate: frameRate, duration: duration, maximumDuration: maximumDuration,
            units: units, targets: targets, deviceMotion: deviceMotion, transactions: transactions)
    }

    private func targets(_ node: JSONNode) throws(SceneFieldError) -> [SceneTarget] {
        let elements = try array(node, at: "$.targets", expected: "an array of targets")
        var out: [SceneTarget] = []
        for (i, element) in elements.enumerated() {
            let at = "$.targets[\(i)]"
            let members = try object(element, at: at, expected: "a target object {\"name\", \"properties\"}")
            try checkKeys(members, at: at, known: ["name", "properties"])
            let name = try string(try required(members, "name", at: at), at: "\(at).name", nonEmpty: true)
            if out.contains(where: { $0.name == name }) {
                throw SceneFieldError(
                    text:
                        "\(at).name: the target name \(JSONText.quoted(name)) is used twice; target names must be unique"
                )
            }
            var properties: [(name: String, value: PropertyValue)] = []
            if let propertiesNode = member(members, "properties") {
                let propertyAt = "\(at).properties"
                for (key, value) in try object(propertiesNode, at: propertyAt, expected: "an object of property values") {
                    properties.append((key, try propertyValue(value, at: "\(propertyAt)\(pathKey(key))")))
                }
            }
            out.append(SceneTarget(name: name, properties: properties))
        }
        return out
    }

    private func propertyValue(_ node: JSONNode, at: String) throws(SceneFieldError) -> PropertyValue {
        let expected = "a number or an array of 1 to 4 numbers"
        switch node {
        case .number(let n): return PropertyValue(n)
        case .array(let elements) where (1...PropertyValue.maximumCount).contains(elements.count):
            var components: [Double] = []
            for (i, element) in elements.enumerated() {
                guard case .number(let n) = element else {
                    throw SceneFieldError(text: "\(at)[\(i)]: expected a number, found \(element.excerpt)")
                }
                components.append(n)
            }
            return PropertyValue(components)
        default:
            throw SceneFieldError(text: "\(at): expected \(expected), found \(node.excerpt)")
        }
    }

    private func deviceMotion(_ node: JSONNode) throws(SceneFieldError) -> DeviceMotionSource {
        let at = "$.deviceMotion"
        let members = try object(node, at: at, expected: "an object {\"recording\", \"referenceFrame\"}")
        try checkKeys(members, at: at, known: ["recording", "referenceFrame"])
        let recording = try string(try required(members, "recording", at: at), at: "\(at).recording", nonEmpty: true)
        var referenceFrame = DeviceMotionSource.referenceFrames[0]
        if let frameNode = member(members, "referenceFrame") {
            referenceFrame = try string(frameNode, at: "\(at).referenceFrame", nonEmpty: true)
            guard DeviceMotionSource.referenceFrames.contains(referenceFrame) else {
                throw SceneFieldError(
                    text:
                        "\(at).referenceFrame: expected one of \(DeviceMotionSource.referenceFrames.joined(separator: ", ")), found \(frameNode.excerpt)\(suggestion(for: referenceFrame, among: DeviceMotionSource.referenceFrames))"
                )
            }
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        let resolved =
            recording.hasPrefix("/") ? recording : folder.appendingPathComponent(recording).standardizedFileURL.path
        guard FileManager.default.fileExists(atPath: resolved) else {
            throw SceneFieldError(
                text:
                    "\(at).recording: no file at \(JSONText.quoted(recording)) (resolved against the scene's folder: \(resolved))"
            )
        }
        return DeviceMotionSource(recording: recording, resolvedPath: resolved, referenceFrame: referenceFrame)
    }

    private func transactions(_ node: JSONNode, targets: [SceneTarget]) throws(SceneFieldError) -> [TimedTransaction] {
        let elements = try array(node, at: "$.transactions", expected: "an array of transactions")
        let targetNames = targets.map(\.name)
        var out: [TimedTransaction] = []
        for (i, element) in elements.enumerated() {
            let at = "$.transactions[\(i)]"
            let members = try object(element, at: at, expected: "a transaction object {\"at\", \"operations\"}")
            try checkKeys(members, at: at, known: ["at", "operations"])
            let time = try number(
                try required(members, "at", at: at), at: "\(at).at", expected: "a number ≥ 0 (seconds)"
            ) {
                $0 >= 0
            }
            let operationsAt = "\(at).operations"
            let operations = try array(
                try required(members, "operations", at: at), at: operationsAt, expected: "an array of operations")
            var transaction = Transaction()
            for (j, operationNode) in operations.enumerated() {
                let opAt = "\(operationsAt)[\(j)]"
                let op = try object(operationNode, at: opAt, expected: "an operation object {\"op\", \"target\", ...}")
                let kinds = ["add", "addNamed", "removeNamed"]
                let kindNode = try required(op, "op", at: opAt)
                let kind = try string(kindNode, at: "\(opAt).op", nonEmpty: true)
                guard kinds.contains(kind) else {
                    throw SceneFieldError(
                        text:
                            "\(opAt).op: expected \"add\", \"addNamed\" or \"removeNamed\", found \(kindNode.excerpt)\(suggestion(for: kind, among: kinds))"
                    )
                }
                switch kind {
                case "add": try checkKeys(op, at: opAt, known: ["op", "target", "plan"])
                case "addNamed": try checkKeys(op, at: opAt, known: ["op", "target", "name", "plan"])
                default: try checkKeys(op, at: opAt, known: ["op", "target", "name"])
                }
                let targetNode = try required(op, "target", at: opAt)
                let target = try string(targetNode, at: "\(opAt).target", nonEmpty: true)
                guard targetNames.contains(target) else {
                    throw SceneFieldError(
                        text:
                            "\(opAt).target: no target named \(targetNode.excerpt) in $.targets\(suggestion(for: target, among: targetNames)); known targets: \(targetNames.isEmpty ? "none" : targetNames.joined(separator: ", "))"
                    )
                }
                switch kind {
                case "add":
                    transaction.add(
                        try plan(try required(op, "plan", at: opAt), at: "\(opAt).plan"), to: TargetID(target))
                case "addNamed":
                    let name = try string(try required(op, "name", at: opAt), at: "\(opAt).name", nonEmpty: true)
                    let plan = try plan(try required(op, "plan", at: opAt), at: "\(opAt).plan")
                    transaction.add(plan, named: name, to: TargetID(target))
                default:
                    let name = try string(try required(op, "name", at: opAt), at: "\(opAt).name", nonEmpty: true)
                    transaction.removePlan(named: name, from: TargetID(target))
                }
            }
            out.append(TimedTransaction(index: i, at: time, transaction: transaction))
        }
        return out
    }

    private func plan(_ node: JSONNode, at: String) throws(SceneFieldError) -> Plan {
        let members = try object(node, at: at, expected: "a plan object {\"type\", ...fields}")
        let type = try string(try required(members, "type", at: at), at: "\(at).type", nonEmpty: true)
        var fields: [String: JSONValue] = [:]
        for (key, value) in members where key != "type" { fields[key] = value.jsonValue }
        return Plan(type: type, fields: fields)
    }

    // MARK: Typed reads

    private func member(_ members: Members, _ key: String) -> JSONNode? { members.first { $0.key == key }?.value }

    private func required(_ members: Members, _ key: String, at: String) throws(SceneFieldError) -> JSONNode {
        guard let node = member(members, key) else {
            throw SceneFieldError(text: "\(at)\(pathKey(key)): missing; this field is required")
        }
        return node
    }

    private func object(_ node: JSONNode, at: String, expected: String) throws(SceneFieldError) -> Members {
        guard case .object(let members) = node else {
            throw SceneFieldError(text: "\(at): expected \(expected), found \(node.excerpt)")
        }
        return members
    }

    private func array(_ node: JSONNode, at: String, expected: String) throws(SceneFieldError) -> [JSONNode] {
        guard case .array(let elements) = node else {
            throw SceneFieldError(text: "\(at): expected \(expected), found \(node.excerpt)")
        }
        return elements
    }

    private func string(_ node: JSONNode, at: String, nonEmpty: Bool) throws(SceneFieldError) -> String {
        guard case .string(let s) = node, !(nonEmpty && s.isEmpty) else {
            throw SceneFieldError(
                text: "\(at): expected a \(nonEmpty ? "non-empty " : "")string, found \(node.excerpt)")
        }
        return s
    }

    private func number(
        _ node: JSONNode, at: String, expected: String, where isValid: (Double) -> Bool
    ) throws(SceneFieldError) -> Double {
        guard case .number(let n) = node, isValid(n) else {
            throw SceneFieldError(text: "\(at): expected \(expected), found \(node.excerpt)")
        }
        return n
    }

    private func checkKeys(_ members: Members, at: String, known: [String]) throws(SceneFieldError) {
        for (key, _) in members where !known.contains(key) {
            throw SceneFieldError(
                text:
                    "\(at)\(pathKey(key)): unknown field\(suggestion(for: key, among: known)); known fields: \(known.filter { $0 != "$schema" }.joined(separator: ", "))"
            )
        }
    }

    /// `.key`, or `["key"]` when the key is not a plain identifier.
    private func pathKey(_ key: String) -> String {
        let isPlain =
            !key.isEmpty
            && key.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" }
            && !("0"..."9").contains(key.unicodeScalars.first!)
        return isPlain ? ".\(key)" : "[\(JSONText.quoted(key))]"
    }
}
