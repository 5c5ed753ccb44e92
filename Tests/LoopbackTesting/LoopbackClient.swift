import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking TCP client to 127.0.0.1 for tests (MotionLive's and the CLI's): raw HTTP/1.1 requests and a minimal WebSocket client
/// (RFC 6455: masked text frames out; text, close and ping frames in). Every read has a time-out, so a
/// test that waits for a server never hangs.
// @unchecked Sendable: one thread may send while another reads (a socket allows it); the read buffer is
// only touched by the reading thread.
public final class LoopbackClient: @unchecked Sendable {
    let fd: Int32

    /// Connects to 127.0.0.1:port.
    /// - Parameter readTimeout: Seconds a read may wait before it fails.
    public init(port: Int, readTimeout: Int = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ClientError("socket failed") }
        var timeout = timeval(tv_sec: readTimeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard status == 0 else {
            close(fd)
            throw ClientError("connect to 127.0.0.1:\(port) failed: \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(fd) }

    public func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw ClientError("send failed: \(String(cString: strerror(errno)))") }
            sent += n
        }
    }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Bytes read and not yet consumed: `buffer[head...]`. Consumed bytes are dropped when more are read, not
    /// per message (dropping them per message moved the rest of a 64 KiB read for every small message).
    private var buffer: [UInt8] = []
    private var head = 0

    /// Reads more bytes into the buffer; `false` at end of stream.
    private func fill() throws -> Bool {
        if head > 0 {
            buffer.removeSubrange(..<head)
            head = 0
        }
        let old = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: 65536))
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + old, 65536, 0) }
        buffer.removeLast(65536 - max(n, 0))
        if n < 0 { throw ClientError("read timed out or failed: \(String(cString: strerror(errno)))") }
        if n == 0 { return false }
        return true
    }

    /// How many unconsumed bytes there are.
    private var available: Int { buffer.count - head }

    /// Whether the server closed the connection (reads until end of stream, a reset, or the time-out).
    public func isClosedByServer() -> Bool {
        while true {
            do {
                if try !fill() { return true }
            } catch {
                return errno == ECONNRESET
            }
        }
    }

    /// Reads one HTTP response (headers and a Content-Length body).
    public func readResponse() throws -> HTTPResponse {
        while true {
            if let end = find([13, 10, 13, 10]) {
                let start = head
                let lines = String(decoding: buffer[start..<end], as: UTF8.self).components(separatedBy: "\r\n")
                let statusParts = lines[0].split(separator: " ")
                guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
                    throw ClientError("bad status line: \(lines[0])")
                }
                var headers: [String: String] = [:]
                for line in lines.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                let length = Int(headers["content-length"] ?? "0") ?? 0
                let bodyStart = end + 4 - start
                while available < bodyStart + length {
                    guard try fill() else { throw ClientError("connection closed inside a body") }
                }
                let body = Array(buffer[(head + bodyStart)..<(head + bodyStart + length)])
                head += bodyStart + length
                return HTTPResponse(status: status, headers: headers, body: body)
            }
            guard try fill() else { throw ClientError("connection closed before a response") }
        }
    }

    /// The index in `buffer` of the first `pattern` after `head`.
    private func find(_ pattern: [UInt8]) -> Int? {
        guard available >= pattern.count else { return nil }
        for i in head...(buffer.count - pattern.count) where buffer[i..<(i + pattern.count)].elementsEqual(pattern) {
            return i
        }
        return nil
    }

    /// Sends a request and reads its response.
    public func request(
        _ method: String, _ path: String, host: String, headers: [String: String] = [:], body: [UInt8] = []
    ) throws -> HTTPResponse {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        if method == "POST" { text += "Content-Length: \(body.count)\r\n" }
        text += "\r\n"
        try send(Array(text.utf8) + body)
        return try readResponse()
    }

    // MARK: WebSocket

    /// Sends the WebSocket handshake for `path` and reads the server's answer (101 when upgraded).
    public func upgrade(_ path: String, host: String, headers: [String: String] = [:]) throws -> HTTPResponse {
        var text =
            "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        try send(text + "\r\n")
        return try readResponse()
    }

    /// Sends one masked text frame.
    public func sendText(_ text: String) throws {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count < 65536 {
            frame.append(0x80 | 126)
            frame += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            frame += (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        try send(frame)
    }

    /// One message from the server.
    public enum Message: Equatable, Sendable {
        case text(String)
        case close(code: Int, reason: String)
    }

    /// Reads the next text or close message (answering nothing; pings are skipped).
    public func readMessage() throws -> Message {
        while true {
            while available < 2 { guard try fill() else { throw ClientError("closed without a close frame") } }
            let opcode = buffer[head] & 0x0F
            var length = Int(buffer[head + 1] & 0x7F)
            var offset = 2
            if length == 126 {
                while available < 4 { guard try fill() else { throw ClientError("closed mid-frame") } }
                length = Int(buffer[head + 2]) << 8 | Int(buffer[head + 3])
                offset = 4
            } else if length == 127 {
                while available < 10 { guard try fill() else { throw ClientError("closed mid-frame") } }
                length = (2..<10).reduce(0) { $0 << 8 | Int(buffer[head + $1]) }
                offset = 10
            }
            while available < offset + length { guard try fill() else { throw ClientError("closed mid-frame") } }
            let payload = Array(buffer[(head + offset)..<(head + offset + length)])
            head += offset + length
            switch opcode {
            case 1: return .text(String(decoding: payload, as: UTF8.self))
            case 8:
                let code = payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : 1005
                return .close(code: code, reason: String(decoding: payload.dropFirst(2), as: UTF8.self))
            default: continue
            }
        }
    }

    /// Reads text messages until one satisfies `match`, skipping at most `limit` others.
    public func readText(limit: Int = 10_000, where match: ([String: Any]) -> Bool) throws -> [String: Any] {
        for _ in 0..<limit {
            guard case .text(let text) = try readMessage() else { throw ClientError("closed before the message came") }
            guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
                throw ClientError("not a JSON object: \(text)")
            }
            if match(object) { return object }
        }
        throw ClientError("no matching message among \(limit)")
    }
}

/// An HTTP response as the client read it.
public struct HTTPResponse {
    /// The status code.
    public var status: Int
    /// The headers, names in lower case.
    public var headers: [String: String]
    /// The body.
    public var body: [UInt8]

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as a JSON object.
    public func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            throw ClientError("not a JSON object: \(text)")
        }
        return object
    }
}

/// What went wrong in the client.
public struct ClientError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
