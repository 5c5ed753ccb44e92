import MotionCore

/// What a client asks of the frame loop. The server puts these in its inbox; the frame loop takes them
/// with ``LiveServer/drainRequests()`` at a frame boundary, in arrival order, and answers each through its
/// ``LiveReply``.
public enum LiveRequest: Sendable {
    /// Commit a transaction (already decoded and checked against the scene's targets).
    case transaction(Transaction, reply: LiveReply)
    /// Answer with the current state (`GET /state`).
    case state(reply: LiveReply)
    /// Stop at this frame boundary (`POST /shutdown`).
    case shutdown(reply: LiveReply)
    /// Feed a Sensor Logger push to the device-motion performers (`POST /sensorlogger`).
    case sensorPush(SensorLoggerPush, reply: LiveReply)
}

/// The way back to the client that sent a request; safe to use from any thread, once.
///
/// Over HTTP an answer is a status and a JSON body; over the timeline WebSocket it is one message that
/// carries the client's `id`.
public struct LiveReply: Sendable {
    let server: LiveServer
    let connection: ConnectionID
    /// The client's `id` as JSON text, for a WebSocket request; `nil` over HTTP.
    let webSocketID: String?
    /// When the request had arrived whole: the monotonic clock, nanoseconds
    /// (`DispatchTime.now().uptimeNanoseconds`, ``RealTimeClock/monotonicNanoseconds``).
    public let receivedAt: UInt64

    init(server: LiveServer, connection: ConnectionID, webSocketID: String?) {
        self.server = server
        self.connection = connection
        self.webSocketID = webSocketID
        self.receivedAt = RealTimeClock.monotonicNanoseconds()
    }

    /// Whether the request came as a message on the timeline WebSocket (else over HTTP).
    public var isWebSocket: Bool { webSocketID != nil }

    /// The transaction was committed at a frame: HTTP `200 {"committed": true, "frame": N}`, WebSocket
    /// `{"id": …, "committed": N}`.
    /// - Parameter frame: The frame it was committed at.
    public func committed(frame: Int) {
        if let webSocketID {
            server.send(.message(Array("{\"id\":\(webSocketID),\"committed\":\(frame)}".utf8)), to: connection)
        } else {
            server.send(.http(status: 200, body: Array("{\"committed\":true,\"frame\":\(frame)}".utf8)), to: connection)
        }
    }

    /// The request was refused: HTTP `status {"error": message}`, WebSocket `{"id": …, "error": message}`.
    /// - Parameter refusal: The status and message.
    public func refused(_ refusal: LiveRefusal) {
        let error = JSONText.string(refusal.message)
        if let webSocketID {
            server.send(.message(Array("{\"id\":\(webSocketID),\"error\":\(error)}".utf8)), to: connection)
        } else {
            server.send(.http(status: refusal.status, body: Array("{\"error\":\(error)}".utf8)), to: connection)
        }
    }

    /// A successful answer: HTTP `200` with this JSON body, WebSocket `{"id": …, "result": json}`.
    /// - Parameter json: A complete JSON value.
    public func succeeded(json: String) {
        if let webSocketID {
            server.send(.message(Array("{\"id\":\(webSocketID),\"result\":\(json)}".utf8)), to: connection)
        } else {
            server.send(.http(status: 200, body: Array(json.utf8)), to: connection)
        }
    }
}

/// One connection of a server: the lws connection's address and a serial number, so an answer for a
/// connection that closed meanwhile is not given to a new one at the same address.
struct ConnectionID: Sendable, Hashable {
    var address: UInt
    var serial: UInt64
}

/// What the frame loop's side hands to the event loop.
enum Outgoing: Sendable {
    /// A whole HTTP response with a JSON body.
    case http(status: Int, body: [UInt8])
    /// One WebSocket text message.
    case message([UInt8])
}
