import Foundation
import LoopbackTesting
import MotionLive
import Testing

/// `GET /timeline` as a WebSocket, through real loopback sockets.
@Suite struct TimelineWebSocketTests {
    // The header comes after the subscription is registered (it is queued then), so lines published after
    // the client has read it reach the client.
    @Test func aSubscriberGetsTheHeaderThenEveryPublishedLine() throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try LoopbackClient(port: server.port)
        #expect(try client.upgrade("/timeline", host: server.host).status == 101)
        #expect(try client.readMessage() == .text("{\"timeline\":1}"))
        server.server.publish(["{\"frame\":0,\"time\":0,\"changes\":{}}", "{\"trace\":\"committed\"}"])
        server.server.publish(["{\"frame\":1,\"time\":0,\"changes\":{}}"])
        #expect(try client.readMessage() == .text("{\"frame\":0,\"time\":0,\"changes\":{}}"))
        // Trace lines go only to subscribers that asked: the next message is the next frame line.
        #expect(try client.readMessage() == .text("{\"frame\":1,\"time\":0,\"changes\":{}}"))
    }

    @Test func traceLinesGoToSubscribersThatAskForThem() throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try LoopbackClient(port: server.port)
        #expect(try client.upgrade("/timeline?trace=1", host: server.host).status == 101)
        #expect(try client.readMessage() == .text("{\"timeline\":1}"))
        server.server.publish(["{\"frame\":0}", "{\"trace\":\"committed\"}"])
        #expect(try client.readMessage() == .text("{\"frame\":0}"))
        #expect(try client.readMessage() == .text("{\"trace\":\"committed\"}"))
    }

    // serve formats trace lines for its WebSocket timeline only while this says a subscriber wants them.
    @Test func traceSubscribersAreCountedWhileConnected() throws {
        let server = try TestServer()
        defer { server.stop() }
        #expect(!server.server.hasTraceSubscribers)
        let plain = try LoopbackClient(port: server.port)
        #expect(try plain.upgrade("/timeline", host: server.host).status == 101)
        #expect(try plain.readMessage() == .text("{\"timeline\":1}"))
        #expect(!server.server.hasTraceSubscribers)
        var tracing: LoopbackClient? = try LoopbackClient(port: server.port)
        #expect(try tracing?.upgrade("/timeline?trace=1", host: server.host).status == 101)
        #expect(try tracing?.readMessage() == .text("{\"timeline\":1}"))
        #expect(server.server.hasTraceSubscribers)
        tracing = nil  // closes its socket
        var waited = 0
        while server.server.hasTraceSubscribers, waited < 500 {
            usleep(10_000)
            waited += 1
        }
        #expect(!server.server.hasTraceSubscribers)
    }

    @Test func aTransactionMessageIsAnsweredWithItsID() throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try LoopbackClient(port: server.port)
        #expect(try client.upgrade("/timeline", host: server.host).status == 101)
        try client.sendText(#"{"id": "a1", "transaction": {"operations": [{"op": "removeNamed", "target": "card", "name": "n"}]}}"#)
        let committed = try client.readText { $0["id"] != nil }
        #expect(committed["id"] as? String == "a1")
        #expect(committed["committed"] is Int)
        try client.sendText(#"{"id": 2, "transaction": {"operations": [{"op": "removeNamed", "target": "refused", "name": "n"}]}}"#)
        let refused = try client.readText { $0["id"] != nil }
        #expect(refused["id"] as? Int == 2)
        #expect((refused["error"] as? String)?.hasSuffix("refused on purpose") == true)
        try client.sendText(#"{"id": 3, "transaction": {}}"#)
        let invalid = try client.readText { $0["id"] != nil }
        #expect(invalid["error"] as? String == "$.transaction.operations: missing; this field is required")
        try client.sendText(#"{"id": 4, "transactoin": {}}"#)
        #expect(try client.readText { $0["id"] != nil }["error"] as? String == "$.transactoin: unknown field; known fields: id, transaction")
        try client.sendText("not json")
        let garbage = try client.readText { $0["error"] != nil }
        #expect(garbage["id"] is NSNull)
        #expect(server.transactionsSeen.load(ordering: .relaxed) == 2)
    }

    @Test func aSubscriberThatCannotKeepUpIsDroppedWithAReason() throws {
        var limits = LiveLimits()
        limits.subscriberBacklogBytes = 256 << 10
        limits.headerTimeout = 10
        let server = try TestServer(limits: limits)
        defer { server.stop() }
        let slow = try LoopbackClient(port: server.port)
        #expect(try slow.upgrade("/timeline", host: server.host).status == 101)
        #expect(try slow.readMessage() == .text("{\"timeline\":1}"))
        // 64 MiB of lines while the client reads nothing: far more than the socket buffers and the backlog.
        let line = "{\"frame\":0,\"pad\":\"" + String(repeating: "x", count: 64 << 10) + "\"}"
        for _ in 0..<1024 { server.server.publish([line]) }
        // Another subscriber is unaffected.
        let other = try LoopbackClient(port: server.port)
        #expect(try other.upgrade("/timeline", host: server.host).status == 101)
        #expect(try other.readMessage() == .text("{\"timeline\":1}"))
        var close: LoopbackClient.Message?
        for _ in 0..<2000 {
            let message = try slow.readMessage()
            if case .close = message {
                close = message
                break
            }
        }
        guard case .close(let code, let reason) = close else {
            Issue.record("no close frame")
            return
        }
        #expect(code == 1008)
        #expect(reason.hasPrefix("too slow"))
    }

    @Test func aMessageOverTheLimitClosesTheSocket() throws {
        var limits = LiveLimits()
        limits.transactionBytes = 1000
        let server = try TestServer(limits: limits)
        defer { server.stop() }
        let client = try LoopbackClient(port: server.port)
        #expect(try client.upgrade("/timeline", host: server.host).status == 101)
        #expect(try client.readMessage() == .text("{\"timeline\":1}"))
        try client.sendText("{\"id\":1,\"pad\":\"" + String(repeating: "x", count: 2000) + "\"}")
        var message = try client.readMessage()
        while case .text = message { message = try client.readMessage() }
        #expect(message == .close(code: 1009, reason: "a message is larger than the limit of 1000 bytes"))
    }
}
