/// Where `serve` listens: `HOST:PORT`, an IPv4 address or `localhost`, port 0 to let the system pick.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// The host as given (`127.0.0.1`, `localhost`, `0.0.0.0`, `192.168.1.20`).
    public var host: String
    /// The port; 0 picks a free one when the server starts.
    public var port: Int

    /// An address.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Reads `HOST:PORT`.
    /// - Parameter text: E.g. `127.0.0.1:8765`, `localhost:0`, `0.0.0.0:8765`.
    /// - Throws: ``LiveRefusal`` (status 400) saying what is wrong, e.g. a missing port or a port over 65535.
    public init(parsing text: String) throws(LiveRefusal) {
        guard let colon = text.lastIndex(of: ":") else {
            throw LiveRefusal(400, "expected HOST:PORT (e.g. 127.0.0.1:8765), found \"\(text)\"")
        }
        let host = String(text[..<colon])
        guard let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            throw LiveRefusal(400, "expected a port in 0...65535 after the colon of \"\(text)\"")
        }
        guard host == "localhost" || Self.ipv4(host) != nil else {
            throw LiveRefusal(400, "expected an IPv4 address or localhost before the colon of \"\(text)\", found \"\(host)\"")
        }
        self.init(host: host, port: port)
    }

    /// The address to bind: `localhost` binds 127.0.0.1.
    public var bindHost: String { host == "localhost" ? "127.0.0.1" : host }

    /// Whether only this machine can connect (127.0.0.0/8 or `localhost`).
    public var isLoopback: Bool { host == "localhost" || Self.ipv4(host)?.first == 127 }

    /// Whether the address is the wildcard `0.0.0.0` (every interface).
    public var isWildcard: Bool { Self.ipv4(host) == [0, 0, 0, 0] }

    /// `HOST:PORT`.
    public var description: String { "\(host):\(port)" }

    /// The four bytes of a dotted IPv4 address, or `nil`.
    static func ipv4(_ text: String) -> [Int]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        let bytes = parts.compactMap { part -> Int? in
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCII), let n = Int(part), (0...255).contains(n)
            else { return nil }
            return n
        }
        return bytes.count == 4 ? bytes : nil
    }
}

/// The limits of a live server; each refusal names the limit it met.
public struct LiveLimits: Sendable {
    /// Largest `POST /transactions` body and WebSocket message, bytes (1 MiB): `413` / close 1009 beyond.
    public var transactionBytes = 1 << 20
    /// Largest `POST /sensorlogger` body, bytes (4 MiB): `413` beyond.
    public var sensorPushBytes = 4 << 20
    /// Connections open at once (HTTP and WebSocket); one more is closed at once, unanswered.
    public var maximumConnections = 64
    /// Seconds a client may take to send its request headers, or stay idle between keep-alive requests,
    /// before the server closes the connection.
    public var headerTimeout = 5
    /// Bytes of timeline messages a WebSocket subscriber may fall behind before it is dropped (close 1008,
    /// reason "too slow").
    public var subscriberBacklogBytes = 8 << 20
    /// Requests waiting for the frame loop at once; more are refused with `503`.
    public var pendingRequests = 100_000

    /// The defaults above.
    public init() {}
}

/// A live server's settings.
public struct LiveServerConfiguration: Sendable {
    /// Where to listen.
    public var listen: ListenAddress
    /// The token every request but `GET /` must carry (`Authorization: Bearer T` or `?token=T`); required
    /// when ``listen`` is not loopback.
    public var token: String?
    /// Whether `POST /sensorlogger` takes pushes (`--device-motion sensorlogger`); otherwise it answers 409.
    public var acceptsSensorPushes = false
    /// The limits.
    public var limits = LiveLimits()

    /// Settings.
    /// - Throws: ``LiveRefusal`` when a non-loopback address has no token.
    public init(listen: ListenAddress, token: String?) throws(LiveRefusal) {
        if !listen.isLoopback, (token ?? "").isEmpty {
            throw LiveRefusal(
                400,
                "listening on \(listen.host) lets other machines connect, so it needs a token. To fix, pass --token T (or set MOTION_HOST_TOKEN), or listen on 127.0.0.1"
            )
        }
        self.listen = listen
        self.token = token.flatMap { $0.isEmpty ? nil : $0 }
    }
}

/// A request the server refuses: an HTTP status and the one-line reason sent as `{"error": reason}`.
public struct LiveRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status (400, 401, 403, 404, 405, 409, 413, 415, 422, 426, 503).
    public var status: Int
    /// What was wrong, and how to fix it where that helps.
    public var message: String

    /// A refusal.
    public init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { message }
}
