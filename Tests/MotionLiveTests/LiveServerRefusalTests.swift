import Foundation
import LoopbackTesting
import MotionLive
import Testing

private let transactionBody = Array(#"{"operations": [{"op": "removeNamed", "target": "card", "name": "n"}]}"#.utf8)
private let json = ["Content-Type": "application/json"]

/// Each refusal and limit of "safe by default", through real loopback sockets.
@Suite struct LiveServerRefusalTests {
    @Test func aHostHeaderNamingAnotherHostIsRefused() throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try LoopbackClient(port: server.port)
        let refused = try client.request("GET", "/state", host: "attacker.example:\(server.port)")
        #expect(refused.status == 403)
        #expect(refused.text.contains("attacker.example"))
        #expect(try LoopbackClient(port: server.port).request("GET", "/state", host: "localhost:\(server.port)").status == 200)
        // The wrong port is another host too.
        #expect(try LoopbackClient(port: server.port).request("GET", "/state", host: "127.0.0.1:1").status == 403)
        let socket = try LoopbackClient(port: server.port)
        #expect(try socket.upgrade("/timeline", host: "attacker.example").status == 403)
    }

    @Test func aTokenIsCheckedOnEveryRequestButThePage() throws {
        let server = try TestServer(token: "s3cret")
        defer { server.stop() }
        let missing = try LoopbackClient(port: server.port).request("GET", "/state", host: server.host)
        #expect(missing.status == 401)
        #expect(missing.headers["www-authenticate"] == "Bearer")
        let wrong = try LoopbackClient(port: server.port).request(
            "GET", "/state", host: server.host, headers: ["Authorization": "Bearer nope"])
        #expect(wrong.status == 401)
        #expect(
            try LoopbackClient(port: server.port).request(
                "GET", "/state", host: server.host, headers: ["Authorization": "Bearer s3cret"]
            ).status == 200)
        #expect(try LoopbackClient(port: server.port).request("GET", "/state?token=s3cret", host: server.host).status == 200)
        let post = try LoopbackClient(port: server.port).request(
            "POST", "/transactions", host: server.host, headers: json, body: transactionBody)
        #expect(post.status == 401)
        #expect(server.transactionsSeen.load(ordering: .relaxed) == 0)
        #expect(try LoopbackClient(port: server.port).request("GET", "/", host: server.host).status == 200)
        #expect(try LoopbackClient(port: server.port).upgrade("/timeline", host: server.host).status == 401)
        #expect(try LoopbackClient(port: server.port).upgrade("/timeline?token=s3cret", host: server.host).status == 101)
    }

    @Test func aPostOrWebSocketFromAnotherSiteIsRefused() throws {
        let server = try TestServer()
        defer { server.stop() }
        let foreign = try LoopbackClient(port: server.port).request(
            "POST", "/transactions", host: server.host,
            headers: json.merging(["Origin": "http://evil.example"]) { $1 }, body: transactionBody)
        #expect(foreign.status == 403)
        #expect(foreign.text.contains("evil.example"))
        #expect(try LoopbackClient(port: server.port).request("POST", "/shutdown", host: server.host, headers: ["Origin": "null"]).status == 403)
        #expect(server.transactionsSeen.load(ordering: .relaxed) == 0)
        let own = try LoopbackClient(port: server.port).request(
            "POST", "/transactions", host: server.host,
            headers: json.merging(["Origin": "http://\(server.host)"]) { $1 }, body: transactionBody)
        #expect(own.status == 200)
        let socket = try LoopbackClient(port: server.port)
        #expect(try socket.upgrade("/timeline", host: server.host, headers: ["Origin": "http://evil.example"]).status == 403)
    }

    @Test func aTransactionMustBeJSON() throws {
        let server = try TestServer()
        defer { server.stop() }
        let form = try LoopbackClient(port: server.port).request(
            "POST", "/transactions", host: server.host, headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: transactionBody)
        #expect(form.status == 415)
        #expect(
            try form.json()["error"] as? String
                == "expected Content-Type: application/json, found \"application/x-www-form-urlencoded\". To fix, send the header (curl: -H 'Content-Type: application/json')"
        )
        let charset = try LoopbackClient(port: server.port).request(
            "POST", "/transactions", host: server.host, headers: ["Content-Type": "application/json; charset=utf-8"],
            body: transactionBody)
        #expect(charset.status == 200)
        let broken = try LoopbackClient(port: server.port).request(
            "POST", "/transactions", host: server.host, headers: json, body: Array(#"{"operations": [}"#.utf8))
        #expect(broken.status == 400)
        #expect((try broken.json()["error"] as? String)?.hasPrefix("$: invalid JSON at line 1, column") == true)
        let wrongShape = try LoopbackClient(port: server.port).request(
            "POST", "/transactions", host: server.host, headers: json, body: Array("{}".utf8))
        #expect(wrongShape.status == 400)
        #expect(try wrongShape.json()["error"] as? String == "$.operations: missing; this field is required")
    }

    @Test func aBodyOverItsLimitIsRefusedUnread() throws {
        var limits = LiveLimits()
        limits.transactionBytes = 1000
        let server = try TestServer(limits: limits)
        defer { server.stop() }
        let padding = String(repeating: " ", count: 1001 - transactionBody.count)
        let client = try LoopbackClient(port: server.port)
        let tooLarge = try client.request(
            "POST", "/transactions", host: server.host, headers: json, body: transactionBody + Array(padding.utf8))
        #expect(tooLarge.status == 413)
        #expect(tooLarge.text.contains("limit of 1000 bytes"))
        #expect(client.isClosedByServer())
        let atTheLimit = try LoopbackClient(port: server.port).request(
            "POST", "/transactions", host: server.host, headers: json, body: transactionBody + Array(padding.dropLast().utf8))
        #expect(atTheLimit.status == 200)
        #expect(LiveLimits().transactionBytes == 1 << 20)
        #expect(LiveLimits().sensorPushBytes == 4 << 20)
    }

    @Test func oneConnectionOverTheLimitIsClosedAtOnce() throws {
        var limits = LiveLimits()
        limits.maximumConnections = 3
        let server = try TestServer(limits: limits)
        defer { server.stop() }
        var open = try (0..<3).map { _ in try LoopbackClient(port: server.port) }
        for client in open { #expect(try client.request("GET", "/state", host: server.host).status == 200) }
        let extra = try LoopbackClient(port: server.port)
        try? extra.send("GET /state HTTP/1.1\r\nHost: \(server.host)\r\n\r\n")
        #expect(extra.isClosedByServer())
        // Once one closes, a new connection is served.
        open.removeLast()
        var served: Int?
        for _ in 0..<50 {
            if let status = try? LoopbackClient(port: server.port).request("GET", "/state", host: server.host).status {
                served = status
                break
            }
            usleep(20_000)
        }
        #expect(served == 200)
        #expect(open.count == 2)
    }

    @Test func aClientThatDoesNotFinishItsHeadersIsCutOff() throws {
        var limits = LiveLimits()
        limits.headerTimeout = 1
        let server = try TestServer(limits: limits)
        defer { server.stop() }
        let slow = try LoopbackClient(port: server.port, readTimeout: 15)
        try slow.send("GET /state HTTP/1.1\r\nHost: \(server.host)\r\n")
        #expect(slow.isClosedByServer())
    }

    @Test(arguments: [
        ("GET", "/nowhere", 404), ("POST", "/state", 405), ("GET", "/transactions", 405), ("GET", "/timeline", 426),
        ("POST", "/sensorlogger", 409), ("GET", "/shutdown", 405),
    ])
    func routesAnswerWithTheirStatus(method: String, path: String, status: Int) throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try LoopbackClient(port: server.port).request(
            method, path, host: server.host, headers: json, body: transactionBody)
        #expect(response.status == status)
        #expect(try response.json()["error"] is String)
    }

    @Test func aNonLoopbackAddressNeedsAToken() throws {
        #expect(throws: LiveRefusal.self) {
            _ = try LiveServerConfiguration(listen: ListenAddress(host: "0.0.0.0", port: 8765), token: nil)
        }
        #expect(throws: LiveRefusal.self) {
            _ = try LiveServerConfiguration(listen: ListenAddress(host: "192.168.1.20", port: 8765), token: "")
        }
        let withToken = try LiveServerConfiguration(listen: ListenAddress(host: "0.0.0.0", port: 8765), token: "t")
        #expect(withToken.token == "t")
        #expect(try LiveServerConfiguration(listen: ListenAddress(host: "127.0.0.1", port: 0), token: nil).token == nil)
    }

    @Test(arguments: [
        ("127.0.0.1:8765", "127.0.0.1", 8765, true), ("localhost:0", "localhost", 0, true),
        ("0.0.0.0:80", "0.0.0.0", 80, false), ("127.1.2.3:9", "127.1.2.3", 9, true),
    ])
    func listenAddressesAreRead(text: String, host: String, port: Int, isLoopback: Bool) throws {
        let address = try ListenAddress(parsing: text)
        #expect(address.host == host)
        #expect(address.port == port)
        #expect(address.isLoopback == isLoopback)
    }

    @Test(arguments: ["8765", "127.0.0.1", "127.0.0.1:65536", "example.com:80", "256.0.0.1:80", "127.0.0.1:-1"])
    func badListenAddressesAreRefused(text: String) {
        #expect(throws: LiveRefusal.self) { _ = try ListenAddress(parsing: text) }
    }
}
