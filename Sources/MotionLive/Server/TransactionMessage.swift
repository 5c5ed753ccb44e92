import MotionCore

/// A message a client sends on the timeline WebSocket: `{"id": any JSON, "transaction": {"operations": [...]}}`.
///
/// The `id` is echoed as written in the answer (`null` when absent or when the message is not a JSON object),
/// so even a refused message can be matched to its answer.
package struct TransactionMessage: Sendable {
    /// The client's `id` as compact JSON text (`null` when absent).
    package var id: String
    /// The transaction's JSON, or why the message was refused (400, with the JSON path).
    package var transaction: Result<JSONValue, LiveRefusal>

    /// Reads a message; never throws, a refusal is kept in ``transaction``.
    package init(parsing bytes: [UInt8]) {
        id = "null"
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            transaction = .failure(LiveRefusal(400, "$: " + error.message))
            return
        }
        guard case .object(let object) = root else {
            transaction = .failure(LiveRefusal(400, "$: expected an object {\"id\": …, \"transaction\": {…}}"))
            return
        }
        if let value = object["id"] {
            var text: [UInt8] = []
            value.writeJSON(into: &text)
            id = String(decoding: text, as: UTF8.self)
        }
        if let unknown = object.keys.sorted().first(where: { $0 != "id" && $0 != "transaction" }) {
            transaction = .failure(LiveRefusal(400, "$.\(unknown): unknown field; known fields: id, transaction"))
        } else if let node = object["transaction"] {
            transaction = .success(node)
        } else {
            transaction = .failure(LiveRefusal(400, "$.transaction: missing; this field is required"))
        }
    }
}
