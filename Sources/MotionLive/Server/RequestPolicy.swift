/// The rules every request meets before it is routed ("safe by default"): pure functions of the headers,
/// so they are tested on their own as well as through sockets.
public struct RequestPolicy: Sendable {
    /// The address the server listens on, with its real port.
    public var listen: ListenAddress
    /// The token requests must carry, if any.
    public var token: String?

    /// A policy.
    public init(listen: ListenAddress, token: String?) {
        self.listen = listen
        self.token = token
    }

    /// Checks the `Host` header against DNS rebinding: it must be the listen address or `localhost`, with the
    /// listen port (for a wildcard listen address, any IPv4 address with that port).
    /// - Parameter host: The `Host` header, or `nil` when absent.
    /// - Throws: ``LiveRefusal`` 403 naming the host it got and the ones it takes.
    public func checkHost(_ host: String?) throws(LiveRefusal) {
        let expected = "\(listen.host):\(listen.port) or localhost:\(listen.port)"
        guard let host, !host.isEmpty else {
            throw LiveRefusal(403, "the request has no Host header; expected \(expected)")
        }
        let name: Substring
        let port: Substring?
        if let colon = host.lastIndex(of: ":") {
            name = host[..<colon]
            port = host[host.index(after: colon)...]
        } else {
            name = host[...]
            port = nil
        }
        let isKnownName =
            name == "localhost" || name == listen.host || (listen.isWildcard && ListenAddress.ipv4(String(name)) != nil)
            || (listen.isLoopback && name == "127.0.0.1")
        guard isKnownName, port.map({ Int($0) == listen.port }) ?? (listen.port == 80) else {
            throw LiveRefusal(
                403,
                "Host \"\(host)\" is not this server's address (expected \(expected)); requests naming another host are refused against DNS rebinding. To fix, use the address 'listening on' printed"
            )
        }
    }

    /// Checks the token: `Authorization: Bearer T`, or `?token=T` for clients that cannot set headers.
    /// - Parameters:
    ///   - authorization: The `Authorization` header, if any.
    ///   - queryToken: The `token` query argument, if any.
    /// - Throws: ``LiveRefusal`` 401 when a token is required and missing or different.
    public func checkToken(authorization: String?, queryToken: String?) throws(LiveRefusal) {
        guard let token else { return }
        var given = queryToken
        if let authorization, authorization.hasPrefix("Bearer ") {
            given = String(authorization.dropFirst("Bearer ".count)).trimmingSpaces
        }
        guard let given else {
            throw LiveRefusal(
                401,
                "this server needs a token. To fix, send 'Authorization: Bearer TOKEN' or add ?token=TOKEN to the address")
        }
        guard Self.constantTimeEqual(given, token) else {
            throw LiveRefusal(401, "the token does not match the one serve was started with")
        }
    }

    /// Checks the `Origin` header of a POST or a WebSocket: absent (a non-browser client) or this server's
    /// own page (`http://` + the `Host` header).
    /// - Throws: ``LiveRefusal`` 403 naming the origin.
    public func checkOrigin(_ origin: String?, host: String?) throws(LiveRefusal) {
        guard let origin else { return }
        guard let host, origin == "http://\(host)" else {
            throw LiveRefusal(
                403,
                "Origin \"\(origin)\" is another site; only this server's own page (http://\(host ?? listen.description)) may send requests from a browser"
            )
        }
    }

    /// Checks that a body is JSON.
    /// - Parameter contentType: The `Content-Type` header, if any.
    /// - Throws: ``LiveRefusal`` 415 naming what it got.
    public func checkJSONContentType(_ contentType: String?) throws(LiveRefusal) {
        let mediaType = contentType?.split(separator: ";").first.map { String($0).trimmingSpaces.lowercased() }
        guard mediaType == "application/json" else {
            throw LiveRefusal(
                415,
                "expected Content-Type: application/json, found \(contentType.map { "\"\($0)\"" } ?? "none"). To fix, send the header (curl: -H 'Content-Type: application/json')"
            )
        }
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        var difference = UInt8(truncatingIfNeeded: x.count ^ y.count)
        for i in 0..<max(x.count, y.count) {
            difference |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0)
        }
        return difference == 0
    }
}

extension String {
    var trimmingSpaces: String {
        var scalars = Substring(self)
        while scalars.first == " " || scalars.first == "\t" { scalars.removeFirst() }
        while scalars.last == " " || scalars.last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}
