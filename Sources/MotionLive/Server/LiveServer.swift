import CLibWebSockets
import Dispatch
import FoundationEssentials
import MotionCore
import MotionFiles
import Synchronization

/// The live host's HTTP and WebSocket server, over libwebsockets, on its own event-loop thread.
///
/// | request | answer |
/// |---|---|
/// | `GET /` | the live view page (HTML, no token needed) |
/// | `GET /state` | the frame loop's ``LiveRequest/state(reply:)`` answer |
/// | `POST /transactions` (`application/json`, ≤ 1 MiB) | after the commit, `200 {"committed": true, "frame": N}` or `4xx {"error": "..."}` |
/// | `POST /shutdown` | `200 {"shutdown": true, "frame": N}`, then the frame loop stops |
/// | `POST /sensorlogger` (`application/json`, ≤ 4 MiB) | `200 {"accepted": n, "ignored": m}`; `409` unless pushes are taken |
/// | `GET /timeline` (WebSocket) | the timeline, one JSON Lines line per message (`?trace=1` adds trace lines); a message `{"id": …, "transaction": {…}}` gets `{"id": …, "committed": N}` or `{"id": …, "error": "…"}` |
///
/// Every request meets the ``RequestPolicy`` first (Host, token, Origin, content type), then the
/// ``LiveLimits``.
///
/// Thread rule: ``publish(_:)``, ``setGreeting(_:)``, ``drainRequests()`` and the replies are safe from any
/// thread and never wait for a socket; ``start()`` and ``stop()`` are called once each, from one thread.
public final class LiveServer: @unchecked Sendable {
    // @unchecked: the lws-thread state below (`sessions`, `serial`, `greeting`) is only touched on the
    // event-loop thread (libwebsockets calls `handle` there); everything shared is in a Mutex or an Atomic.

    /// The settings it was made with.
    public let configuration: LiveServerConfiguration
    /// The address it listens on, with the real port once ``start()`` returned.
    public private(set) var address: ListenAddress
    private let decodeTransaction: @Sendable (JSONValue) throws(LiveRefusal) -> Transaction

    private struct Mailbox {
        var replies: [(ConnectionID, Outgoing)] = []
        var lines: [(bytes: [UInt8], isTrace: Bool)] = []
        var greeting: [UInt8]?
    }
    private let inbox = Mutex<[LiveRequest]>([])
    private let mailbox = Mutex(Mailbox())
    private let isStopping = Atomic<Bool>(false)
    private let isFinished = Atomic<Bool>(false)
    private let traceSubscriberCount = Atomic<Int>(0)
    private let finished = DispatchSemaphore(value: 0)
    nonisolated(unsafe) private var context: OpaquePointer?
    private var protocols: UnsafeMutablePointer<lws_protocols>?
    private var policy: RequestPolicy

    // Event-loop thread only.
    private var sessions: [OpaquePointer: Session] = [:]
    private var serial: UInt64 = 0
    private var greeting: [UInt8]?
    private var openConnections = 0

    /// A server; nothing listens until ``start()``.
    /// - Parameters:
    ///   - configuration: Address, token, limits.
    ///   - decodeTransaction: Turns a request's JSON into a transaction, or refuses it (400 with the field's
    ///     JSON path); called on the event-loop thread, so the frame loop gets checked transactions.
    public init(
        configuration: LiveServerConfiguration,
        decodeTransaction: @escaping @Sendable (JSONValue) throws(LiveRefusal) -> Transaction
    ) {
        self.configuration = configuration
        self.address = configuration.listen
        self.decodeTransaction = decodeTransaction
        self.policy = RequestPolicy(listen: configuration.listen, token: configuration.token)
    }

    deinit {
        protocols?.deinitialize(count: 2)
        protocols?.deallocate()
    }

    /// Binds the address and starts the event loop on its own thread.
    /// - Throws: ``LiveRefusal`` when libwebsockets cannot listen there (the address is in use, or not this
    ///   machine's), or 503 when the event loop's thread cannot be started (``ThreadStartFailure``).
    public func start() throws(LiveRefusal) {
        lws_set_log_level(Int32(LLL_ERR), nil)
        let protocols = UnsafeMutablePointer<lws_protocols>.allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        protocols[0].name = UnsafePointer(strdup("motion-timeline"))
        protocols[0].callback = liveServerCallback
        protocols[0].rx_buffer_size = 65536
        self.protocols = protocols

        var info = lws_context_creation_info()
        info.port = Int32(configuration.listen.port)
        let bindHost = strdup(configuration.listen.bindHost)
        defer { free(bindHost) }
        info.iface = UnsafePointer(bindHost)
        info.protocols = UnsafePointer(protocols)
        info.options = UInt64(LWS_SERVER_OPTION_DISABLE_IPV6) | UInt64(LWS_SERVER_OPTION_VALIDATE_UTF8)
        info.timeout_secs = UInt32(configuration.limits.headerTimeout)
        info.timeout_secs_ah_idle = UInt32(configuration.limits.headerTimeout)
        info.keepalive_timeout = Int32(configuration.limits.headerTimeout)
        info.max_http_header_data = 8192
        info.user = Unmanaged.passUnretained(self).toOpaque()
        guard let context = lws_create_context(&info) else {
            throw LiveRefusal(
                500,
                "cannot listen on \(configuration.listen): the address is in use or not one of this machine's. To fix, pick another --listen address or port (0 picks a free port)"
            )
        }
        self.context = context
        if let vhost = lws_get_vhost_by_name(context, "default") {
            address.port = Int(lws_get_vhost_listen_port(vhost))
        }
        policy = RequestPolicy(listen: address, token: configuration.token)
        do { try DetachedThread.start(name: "motion-live") { [self] in runLoop() } } catch {
            lws_context_destroy(context)
            self.context = nil
            throw LiveRefusal(503, "cannot serve on \(configuration.listen): \(error)")
        }
    }

    private func runLoop() {
        guard let context else { return }
        while !isStopping.load(ordering: .acquiring) {
            if lws_service(context, 0) < 0 { break }
        }
        // Stopping: hand out the last answers (the summary's frame, a shutdown's reply) before closing.
        deliverMail()
        while sessions.values.contains(where: \.hasPendingOutput) && !isFinished.load(ordering: .acquiring) {
            if lws_service(context, 0) < 0 { break }
        }
        finished.signal()
    }

    /// Stops the event loop after the answers already given are written (up to a second), then closes
    /// every connection (WebSockets with close status 1001, "going away").
    public func stop() {
        guard let context else { return }
        isStopping.store(true, ordering: .releasing)
        var waited = 0
        while finished.wait(timeout: .now() + .milliseconds(20)) == .timedOut {
            waited += 20
            if waited >= 1000 { isFinished.store(true, ordering: .releasing) }
            lws_cancel_service(context)
        }
        lws_context_destroy(context)
        self.context = nil
    }

    // MARK: The frame loop's side (any thread)

    /// Whether a `GET /timeline?trace=1` subscriber is connected now (read from any thread). A frame loop
    /// can skip formatting trace lines while it is `false`: no subscriber would get them. One that
    /// subscribes later gets the trace lines published after it was counted.
    public var hasTraceSubscribers: Bool { traceSubscriberCount.load(ordering: .relaxed) > 0 }

    /// Sends timeline lines to every subscriber of `GET /timeline` (trace lines only to those that asked
    /// with `?trace=1`). Never waits: the lines are queued for the event loop.
    /// - Parameter lines: JSON Lines lines, without their newline.
    public func publish(_ lines: [String]) { publish(utf8Lines: lines.map { Array($0.utf8) }) }

    /// Sends timeline lines given as UTF-8 bytes; see ``publish(_:)``.
    /// - Parameter lines: JSON Lines lines, UTF-8, without their newline.
    public func publish(utf8Lines lines: [[UInt8]]) {
        guard !lines.isEmpty, let context else { return }
        let tracePrefix = Array("{\"trace\"".utf8)
        mailbox.withLock { mailbox in
            for line in lines { mailbox.lines.append((line, line.starts(with: tracePrefix))) }
        }
        lws_cancel_service(context)
    }

    /// Sets the first message every new subscriber gets (the timeline's header line).
    public func setGreeting(_ line: String) {
        mailbox.withLock { $0.greeting = Array(line.utf8) }
        if let context { lws_cancel_service(context) }
    }

    /// Takes every request waiting for the frame loop, in arrival order. Cheap when there are none.
    public func drainRequests() -> [LiveRequest] {
        inbox.withLock { requests in
            defer { requests.removeAll(keepingCapacity: true) }
            return requests
        }
    }

    func send(_ outgoing: Outgoing, to connection: ConnectionID) {
        guard let context else { return }
        mailbox.withLock { $0.replies.append((connection, outgoing)) }
        lws_cancel_service(context)
    }

    private func enqueue(_ request: LiveRequest) throws(LiveRefusal) {
        if isStopping.load(ordering: .acquiring) { throw LiveRefusal(503, "the server is shutting down") }
        let limit = configuration.limits.pendingRequests
        let isQueued = inbox.withLock { requests in
            guard requests.count < limit else { return false }
            requests.append(request)
            return true
        }
        if !isQueued {
            throw LiveRefusal(503, "\(limit) requests are already waiting for the frame loop; try again shortly")
        }
    }

    // MARK: The event loop's side

    /// Per-connection state, on the event-loop thread.
    private final class Session {
        let id: ConnectionID
        var isWebSocket = false
        var wantsTrace = false
        var isCountedAsTracing = false
        var hasGreeting = false
        // HTTP
        var route: Route?
        var body: [UInt8] = []
        var bodyLimit = 0
        var response: (status: Int, contentType: String, body: [UInt8], extra: (String, String)?, close: Bool)?
        // WebSocket
        var queue: [[UInt8]] = []
        var head = 0
        var queuedBytes = 0
        var closing: (status: lws_close_status, reason: String)?
        var incoming: [UInt8] = []

        init(id: ConnectionID) { self.id = id }

        var hasPendingOutput: Bool { response != nil || head < queue.count }
    }

    private enum Route { case transactions, sensorLogger }

    private func session(_ wsi: OpaquePointer) -> Session {
        if let session = sessions[wsi] { return session }
        serial += 1
        let session = Session(id: ConnectionID(address: UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(wsi))), serial: serial))
        sessions[wsi] = session
        return session
    }

    fileprivate func handle(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
        _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> Int32 {
        switch reason {
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            deliverMail()
        case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
            // One more than the limit is closed at once, before it is read.
            if openConnections >= configuration.limits.maximumConnections { return 1 }
        case LWS_CALLBACK_HTTP_BIND_PROTOCOL:
            if sessions[wsi] == nil { openConnections += 1 }
            _ = session(wsi)
        case LWS_CALLBACK_HTTP:
            return beginHTTP(wsi, path: input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "/")
        case LWS_CALLBACK_HTTP_BODY:
            return receiveBody(wsi, UnsafeRawBufferPointer(start: input, count: length))
        case LWS_CALLBACK_HTTP_BODY_COMPLETION:
            return completeBody(wsi)
        case LWS_CALLBACK_HTTP_WRITEABLE:
            return writeHTTP(wsi)
        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            return acceptWebSocket(wsi)
        case LWS_CALLBACK_ESTABLISHED:
            let session = session(wsi)
            session.isWebSocket = true
            if session.wantsTrace, !session.isCountedAsTracing {
                session.isCountedAsTracing = true
                traceSubscriberCount.add(1, ordering: .relaxed)
            }
            if let greeting {
                session.hasGreeting = true
                enqueueMessage(greeting, on: session, wsi)
            }
        case LWS_CALLBACK_RECEIVE:
            return receiveMessage(wsi, UnsafeRawBufferPointer(start: input, count: length))
        case LWS_CALLBACK_SERVER_WRITEABLE:
            return writeWebSocket(wsi)
        case LWS_CALLBACK_HTTP_DROP_PROTOCOL, LWS_CALLBACK_CLOSED, LWS_CALLBACK_WSI_DESTROY:
            if let session = sessions.removeValue(forKey: wsi) {
                openConnections -= 1
                if session.isCountedAsTracing { traceSubscriberCount.subtract(1, ordering: .relaxed) }
            }
        default:
            break
        }
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }

    private func deliverMail() {
        let mail = mailbox.withLock { mailbox in
            defer {
                mailbox.replies.removeAll(keepingCapacity: true)
                mailbox.lines.removeAll(keepingCapacity: true)
            }
            return mailbox
        }
        if let newGreeting = mail.greeting, greeting != newGreeting {
            greeting = newGreeting
            // Subscribers that came before the header get it now, before any line published after it.
            for (wsi, session) in sessions where session.isWebSocket && !session.hasGreeting {
                session.hasGreeting = true
                enqueueMessage(newGreeting, on: session, wsi)
            }
        }
        guard !mail.replies.isEmpty || !mail.lines.isEmpty else { return }
        let byAddress = Dictionary(sessions.map { ($0.value.id.address, $0) }) { $1 }
        for (connection, outgoing) in mail.replies {
            guard let (wsi, session) = byAddress[connection.address], session.id == connection else { continue }
            switch outgoing {
            case .http(let status, let body):
                respond(wsi, session, status: status, body: body)
            case .message(let text):
                enqueueMessage(text, on: session, wsi)
            }
        }
        guard !mail.lines.isEmpty else { return }
        for (wsi, session) in sessions where session.isWebSocket && session.closing == nil {
            for line in mail.lines where !line.isTrace || session.wantsTrace {
                enqueueMessage(line.bytes, on: session, wsi)
                if session.closing != nil { break }
            }
        }
    }

    private func enqueueMessage(_ text: [UInt8], on session: Session, _ wsi: OpaquePointer) {
        guard session.closing == nil else { return }
        session.queue.append(text)
        session.queuedBytes += text.count
        if session.queuedBytes > configuration.limits.subscriberBacklogBytes {
            // Dropped, never waited for: the queue goes, the close frame goes out when the socket lets it,
            // and a client that never reads is cut off after a few seconds.
            session.queue.removeAll()
            session.head = 0
            session.queuedBytes = 0
            session.closing = (
                LWS_CLOSE_STATUS_POLICY_VIOLATION,
                "too slow: more than \(configuration.limits.subscriberBacklogBytes) bytes of timeline behind"
            )
            lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, Int32(max(configuration.limits.headerTimeout, 1)))
        }
        lws_callback_on_writable(wsi)
    }

    // MARK: HTTP

    private func header(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = lws_hdr_total_length(wsi, token)
        guard length > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(length) + 1)
        guard lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token) >= 0 else { return nil }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    private func queryArgument(_ wsi: OpaquePointer, _ name: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        var index: Int32 = 0
        while lws_hdr_copy_fragment(wsi, &buffer, Int32(buffer.count), WSI_TOKEN_HTTP_URI_ARGS, index) >= 0 {
            let argument = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            if argument.hasPrefix(name + "=") { return String(argument.dropFirst(name.count + 1)) }
            if argument == name { return "" }
            index += 1
        }
        return nil
    }

    private func respond(
        _ wsi: OpaquePointer, _ session: Session, status: Int, contentType: String = "application/json",
        body: [UInt8], extra: (String, String)? = nil, close: Bool = false
    ) {
        session.response = (status, contentType, body, extra, close)
        lws_callback_on_writable(wsi)
    }

    private func refuse(_ wsi: OpaquePointer, _ session: Session, _ refusal: LiveRefusal, close: Bool = false) {
        let extra: (String, String)? = refusal.status == 401 ? ("www-authenticate:", "Bearer") : nil
        respond(
            wsi, session, status: refusal.status, body: Array("{\"error\":\(JSONText.string(refusal.message))}".utf8),
            extra: extra, close: close)
    }

    private func reply(for session: Session) -> LiveReply {
        LiveReply(server: self, connection: session.id, webSocketID: nil)
    }

    private func beginHTTP(_ wsi: OpaquePointer, path: String) -> Int32 {
        let session = session(wsi)
        session.route = nil
        session.body = []
        let isGet = lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) > 0
        let isPost = lws_hdr_total_length(wsi, WSI_TOKEN_POST_URI) > 0
        let method = isGet ? "GET" : isPost ? "POST" : "this method"
        let host = header(wsi, WSI_TOKEN_HOST)
        func allow(_ expected: String) throws(LiveRefusal) {
            guard method == expected else {
                throw LiveRefusal(405, "\(path) takes \(expected), not \(method)")
            }
        }
        do throws(LiveRefusal) {
            try policy.checkHost(host)
            if path == "/" {
                try allow("GET")
                respond(
                    wsi, session, status: 200, contentType: "text/html; charset=utf-8", body: Array(LiveViewPage.html.utf8),
                    extra: ("content-security-policy:", LiveViewPage.contentSecurityPolicy))
                return 0
            }
            try policy.checkToken(
                authorization: header(wsi, WSI_TOKEN_HTTP_AUTHORIZATION), queryToken: queryArgument(wsi, "token"))
            if isPost { try policy.checkOrigin(header(wsi, WSI_TOKEN_ORIGIN), host: host) }
            switch path {
            case "/state":
                try allow("GET")
                try enqueue(.state(reply: reply(for: session)))
            case "/shutdown":
                try allow("POST")
                try enqueue(.shutdown(reply: reply(for: session)))
            case "/transactions", "/sensorlogger":
                try allow("POST")
                let isTransaction = path == "/transactions"
                if !isTransaction, !configuration.acceptsSensorPushes {
                    throw LiveRefusal(
                        409,
                        "this server takes no Sensor Logger pushes. To fix, start serve with --device-motion sensorlogger")
                }
                try policy.checkJSONContentType(header(wsi, WSI_TOKEN_HTTP_CONTENT_TYPE))
                let limit = isTransaction ? configuration.limits.transactionBytes : configuration.limits.sensorPushBytes
                guard let lengthText = header(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH), let length = Int(lengthText) else {
                    throw LiveRefusal(411, "\(path) needs a Content-Length header")
                }
                if length > limit {
                    refuse(wsi, session, tooLarge(path, limit), close: true)
                    return 0
                }
                guard length > 0 else { throw LiveRefusal(400, "\(path): the body is empty; expected a JSON object") }
                session.route = isTransaction ? .transactions : .sensorLogger
                session.bodyLimit = limit
            case "/timeline":
                throw LiveRefusal(426, "/timeline is a WebSocket: connect to ws://\(host ?? address.description)/timeline")
            default:
                throw LiveRefusal(
                    404,
                    "no endpoint \(path); endpoints: GET /, GET /state, GET /timeline (WebSocket), POST /transactions, POST /shutdown, POST /sensorlogger"
                )
            }
        } catch {
            refuse(wsi, session, error)
        }
        return 0
    }

    private func tooLarge(_ path: String, _ limit: Int) -> LiveRefusal {
        LiveRefusal(413, "the body of \(path) is larger than its limit of \(limit) bytes")
    }

    private func receiveBody(_ wsi: OpaquePointer, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard let session = sessions[wsi], session.route != nil else { return 0 }
        session.body.append(contentsOf: bytes)
        if session.body.count > session.bodyLimit {
            session.route = nil
            refuse(wsi, session, tooLarge("this request", session.bodyLimit), close: true)
        }
        return 0
    }

    private func completeBody(_ wsi: OpaquePointer) -> Int32 {
        guard let session = sessions[wsi], let route = session.route else { return 0 }
        session.route = nil
        let body = session.body
        session.body = []
        do throws(LiveRefusal) {
            switch route {
            case .transactions:
                let root: JSONValue
                do {
                    root = try JSONParser.parse(body)
                } catch {
                    throw LiveRefusal(400, "$: " + error.message)
                }
                try enqueue(.transaction(try decodeTransaction(root), reply: reply(for: session)))
            case .sensorLogger:
                try enqueue(.sensorPush(try SensorLoggerPush(parsing: body), reply: reply(for: session)))
            }
        } catch {
            refuse(wsi, session, error)
        }
        return 0
    }

    private func writeHTTP(_ wsi: OpaquePointer) -> Int32 {
        guard let session = sessions[wsi], let response = session.response else { return 0 }
        session.response = nil
        let pre = CLibWebSockets_pre()
        var buffer = [UInt8](repeating: 0, count: pre + response.body.count)
        buffer.replaceSubrange(pre..., with: response.body)
        let status = buffer.withUnsafeMutableBufferPointer { pointer in
            CLibWebSockets_write_http_response(
                wsi, UInt32(response.status), response.contentType, response.extra?.0, response.extra?.1,
                pointer.baseAddress! + pre, response.body.count)
        }
        if status != 0 || response.close { return -1 }
        return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
    }

    // MARK: WebSocket

    private func acceptWebSocket(_ wsi: OpaquePointer) -> Int32 {
        let host = header(wsi, WSI_TOKEN_HOST)
        do throws(LiveRefusal) {
            guard header(wsi, WSI_TOKEN_GET_URI) == "/timeline" else {
                throw LiveRefusal(404, "the WebSocket endpoint is /timeline")
            }
            try policy.checkHost(host)
            try policy.checkToken(
                authorization: header(wsi, WSI_TOKEN_HTTP_AUTHORIZATION), queryToken: queryArgument(wsi, "token"))
            try policy.checkOrigin(header(wsi, WSI_TOKEN_ORIGIN), host: host)
        } catch {
            // The handshake is refused with the status and reason; the connection closes after it.
            _ = lws_return_http_status(wsi, UInt32(error.status), error.message)
            return 1
        }
        session(wsi).wantsTrace = queryArgument(wsi, "trace") == "1"
        return 0
    }

    private func receiveMessage(_ wsi: OpaquePointer, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        let session = session(wsi)
        guard session.closing == nil else { return 0 }
        session.incoming.append(contentsOf: bytes)
        if session.incoming.count > configuration.limits.transactionBytes {
            session.incoming = []
            session.closing = (
                LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE,
                "a message is larger than the limit of \(configuration.limits.transactionBytes) bytes"
            )
            lws_callback_on_writable(wsi)
            return 0
        }
        guard lws_is_final_fragment(wsi) != 0, lws_remaining_packet_payload(wsi) == 0 else { return 0 }
        let message = session.incoming
        session.incoming = []
        let envelope = TransactionMessage(parsing: message)
        let id = envelope.id
        do throws(LiveRefusal) {
            let transaction = try envelope.transaction.get()
            let decoded: Transaction
            do {
                decoded = try decodeTransaction(transaction)
            } catch {
                throw LiveRefusal(error.status, error.message.hasPrefix("$.") ? "$.transaction." + error.message.dropFirst(2) : error.message)
            }
            try enqueue(.transaction(decoded, reply: LiveReply(server: self, connection: session.id, webSocketID: id)))
        } catch {
            enqueueMessage(Array("{\"id\":\(id),\"error\":\(JSONText.string(error.message))}".utf8), on: session, wsi)
        }
        return 0
    }

    private func writeWebSocket(_ wsi: OpaquePointer) -> Int32 {
        guard let session = sessions[wsi] else { return 0 }
        if let closing = session.closing {
            var reason = Array(closing.reason.utf8.prefix(120))
            lws_close_reason(wsi, closing.status, &reason, reason.count)
            return -1
        }
        // Several messages per writable callback while the socket takes them (up to 256 KiB): one message
        // per callback cost a poll round per message, which 16 subscribers of 10,000 commit lines a second
        // (160,000 messages) could not afford.
        var written = 0
        let pre = CLibWebSockets_pre()
        var buffer: [UInt8] = []
        // Corked while several go out, so the kernel sends them in full segments rather than one each.
        let isBatch = session.queue.count - session.head > 1
        if isBatch { CLibWebSockets_set_cork(wsi, 1) }
        defer { if isBatch { CLibWebSockets_set_cork(wsi, 0) } }
        while session.head < session.queue.count, written < 262_144, written == 0 || lws_send_pipe_choked(wsi) == 0 {
            let text = session.queue[session.head]
            session.head += 1
            session.queuedBytes -= text.count
            written += text.count
            buffer.removeAll(keepingCapacity: true)
            buffer.reserveCapacity(pre + text.count)
            buffer.append(contentsOf: repeatElement(0, count: pre))
            buffer.append(contentsOf: text)
            let status = buffer.withUnsafeMutableBufferPointer { pointer in
                CLibWebSockets_write_text(wsi, pointer.baseAddress! + pre, text.count)
            }
            if status != 0 { return -1 }
        }
        if session.head == session.queue.count {
            session.queue.removeAll(keepingCapacity: true)
            session.head = 0
        } else {
            lws_callback_on_writable(wsi)
        }
        return 0
    }
}

/// libwebsockets' protocol callback: finds the server through the context's user pointer (set to it, and
/// valid while the context lives) and hands the event over, on the event-loop thread.
private func liveServerCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let raw = lws_context_user(context) else { return 0 }
    return Unmanaged<LiveServer>.fromOpaque(raw).takeUnretainedValue().handle(wsi, reason, user, input, length)
}
