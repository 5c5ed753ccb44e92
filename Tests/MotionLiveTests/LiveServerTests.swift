import Foundation
import LoopbackTesting
import MotionLive
import Testing

@Suite struct LiveServerTests {
    @Test func aTransactionIsAnsweredAfterTheFrameLoopCommitsIt() throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try LoopbackClient(port: server.port)
        let response = try client.request(
            "POST", "/transactions", host: server.host, headers: ["Content-Type": "application/json"],
            body: Array(#"{"operations": [{"op": "removeNamed", "target": "card", "name": "n"}]}"#.utf8))
        #expect(response.status == 200)
        let object = try response.json()
        #expect(object["committed"] as? Bool == true)
        #expect(object["frame"] is Int)
        #expect(server.transactionsSeen.load(ordering: .relaxed) == 1)
        // Keep-alive: a second request on the same connection.
        let state = try client.request("GET", "/state", host: server.host)
        #expect(state.status == 200)
        #expect(try state.json()["frame"] is Int)
    }
}
