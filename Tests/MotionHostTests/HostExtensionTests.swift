import CMotionABI
import Foundation
import MotionCore
import Synchronization
import Testing

@testable import MotionHost

/// ABI 1.2's host extensions: `motion_host_v1.get_extension`, and the log that names its caller.
@Suite struct HostExtensionTests {
    @Test func theHostOffersItsLogExtensionAndNothingElse() throws {
        let host = HostInterface.table
        #expect(Int(host.pointee.struct_size) >= MemoryLayout<motion_host_v1>.offset(of: \motion_host_v1.get_extension)! + 8)
        let getExtension = try #require(host.pointee.get_extension)
        let raw = try #require(MOTION_HOST_EXTENSION_LOG.withCString { getExtension($0) })
        let log = raw.assumingMemoryBound(to: motion_log_v1.self)
        #expect(Int(log.pointee.struct_size) == MemoryLayout<motion_log_v1>.size)
        #expect(log.pointee.log != nil)
        #expect("motion.nonexistent/1".withCString { getExtension($0) } == nil)
        #expect("motion.log/2".withCString { getExtension($0) } == nil)
    }

    @Test func aLineLoggedWithAContextIsAttributedByTheHostAndGoesToItsPluginsSink() throws {
        let received = Mutex<[String]>([])
        let route = PluginLogRoute(sink: { level, message in received.withLock { $0.append("\(level): \(message)") } })
        let scene = Scene(targets: ["card"])
        let context = HostContext(
            target: try #require(scene.target("card")), pluginDescription: "org.example.logger (logger.json)", logRoute: route)
        let raw = try #require(MOTION_HOST_EXTENSION_LOG.withCString { HostInterface.table.pointee.get_extension!($0) })
        let log = try #require(raw.assumingMemoryBound(to: motion_log_v1.self).pointee.log)
        // From another thread, with a text that pretends to be someone else: the host says who it is.
        let thread = Thread { "I am org.evil\nnext line".withCString { log(context.opaque, MOTION_LOG_WARNING, $0) } }
        thread.start()
        var waited = 0
        while received.withLock({ $0.isEmpty }), waited < 500 {
            usleep(10_000)
            waited += 1
        }
        #expect(received.withLock { $0 } == [#"warning: org.example.logger (logger.json) (card): I am org.evil\u{a}next line"#])
    }
}

@Suite("Late log lines of a destroyed performer (motion/log.h)")
struct LateLogLineTests {
    /// The host's `motion_log_v1.log`.
    static func contextLog() throws -> @convention(c) (OpaquePointer?, Int32, UnsafePointer<CChar>?) -> Void {
        let raw = try #require(MOTION_HOST_EXTENSION_LOG.withCString { HostInterface.table.pointee.get_extension!($0) })
        return try #require(raw.assumingMemoryBound(to: motion_log_v1.self).pointee.log)
    }

    @Test("a line logged with a retired context is still attributed while its entry is free, and not once it is taken again")
    func lateLineIsAttributedUntilTheEntryIsTaken() throws {
        let received = Mutex<[String]>([])
        let route = PluginLogRoute(sink: { level, message in received.withLock { $0.append("\(level): \(message)") } })
        let scene = Scene(targets: ["card"])
        let target = try #require(scene.target("card"))
        let context = HostContext(target: target, pluginDescription: "org.example.late (late.json)", logRoute: route)
        // Entries retired before it are taken again before its own (the longest free first).
        let earlier = (0..<64).map { _ in HostContext(target: target, pluginDescription: "test") }
        for other in earlier { other.retire() }
        context.retire()
        let log = try Self.contextLog()
        log(context.opaque, MOTION_LOG_WARNING, "finishing late")
        #expect(received.withLock { $0 } == ["warning: org.example.late (late.json) (card): finishing late"])
        // Every free entry taken again (its own among them): the line is no longer the destroyed performer's.
        let later = (0...HostContext.freeEntryCount).map { _ in HostContext(target: target, pluginDescription: "test") }
        defer { for other in later { other.retire() } }
        log(context.opaque, MOTION_LOG_DEBUG, "much later")
        #expect(received.withLock { $0.count } == 1)
    }
}
