import Foundation
import LoopbackTesting
import MotionCore
import MotionLive
import Synchronization

/// A ``LiveServer`` on 127.0.0.1, port 0, with a stand-in frame loop on its own thread: every 5 ms it
/// takes the requests, answers a transaction with `committed(frame:)` (or refuses one whose first
/// operation's target is "refused"), a state request with `{"frame": N}`, and publishes `{"frame": N}`.
/// It stops by itself after `lifetime` seconds at the latest.
final class TestServer: Sendable {
    let server: LiveServer
    let port: Int
    private let isStopped = Atomic<Bool>(false)
    private let loopDone = DispatchSemaphore(value: 0)
    let transactionsSeen = Atomic<Int>(0)
    /// The Sensor Logger pushes the stand-in frame loop took.
    let pushes = Mutex<[SensorLoggerPush]>([])

    init(
        token: String? = nil, listen: String = "127.0.0.1:0", limits: LiveLimits = LiveLimits(),
        acceptsSensorPushes: Bool = false,
        publishesFrames: Bool = false, lifetime: Double = 30
    ) throws {
        var configuration = try LiveServerConfiguration(listen: ListenAddress(parsing: listen), token: token)
        configuration.limits = limits
        configuration.acceptsSensorPushes = acceptsSensorPushes
        server = LiveServer(configuration: configuration) { (root) throws(LiveRefusal) -> Transaction in
            guard case .object(let object) = root, case .array(let operations)? = object["operations"] else {
                throw LiveRefusal(400, "$.operations: missing; this field is required")
            }
            var transaction = Transaction()
            for case .object(let operation) in operations {
                transaction.removePlan(named: "n", from: TargetID(operation["target"]?.string ?? "?"))
            }
            return transaction
        }
        try server.start()
        port = server.address.port
        server.setGreeting("{\"timeline\":1}")
        let server = self.server
        let thread = Thread { [self] in
            var frame = 0
            let end = Date().addingTimeInterval(lifetime)
            while !isStopped.load(ordering: .acquiring), Date() < end {
                for request in server.drainRequests() {
                    switch request {
                    case .transaction(let transaction, let reply):
                        transactionsSeen.add(1, ordering: .relaxed)
                        if transaction.operations.first?.target == "refused" {
                            reply.refused(LiveRefusal(422, "frame \(frame): refused on purpose"))
                        } else {
                            reply.committed(frame: frame)
                        }
                    case .state(let reply): reply.succeeded(json: "{\"frame\":\(frame)}")
                    case .shutdown(let reply): reply.succeeded(json: "{\"shutdown\":true,\"frame\":\(frame)}")
                    case .sensorPush(let push, let reply):
                        pushes.withLock { $0.append(push) }
                        reply.succeeded(json: "{\"accepted\":\(push.samples.count)}")
                    }
                }
                if publishesFrames { server.publish(["{\"frame\":\(frame)}"]) }
                frame += 1
                usleep(5000)
            }
            loopDone.signal()
        }
        thread.start()
    }

    /// `127.0.0.1:PORT`, the Host header clients send.
    var host: String { "127.0.0.1:\(port)" }

    func stop() {
        isStopped.store(true, ordering: .releasing)
        loopDone.wait()
        server.stop()
    }
}
