import Foundation
import MotionCore
import Testing

@testable import MotionHost

/// What an ended sandbox leaves behind: nothing. A restart (`"onCrash": "restart"`) switches the performers to a new
/// sandbox with R43, and the old process is reaped and its shared memory unmapped.
@Suite("An ended sandbox is reaped and unmapped", .serialized)
struct SandboxLifecycleTests {
    /// The inode of the shared-memory file mapped at `address` in this process (`/proc/self/maps`), if mapped.
    static func memfdInode(mappedAt address: UnsafeMutableRawPointer) throws -> String? {
        let start = String(UInt(bitPattern: address), radix: 16)
        let maps = try String(contentsOfFile: "/proc/self/maps", encoding: .utf8)
        for line in maps.split(separator: "\n") where line.hasPrefix(start + "-") && line.contains("memfd:motion-sandbox") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            return fields.count > 4 ? String(fields[4]) : nil
        }
        return nil
    }

    /// Whether any mapping of this process is of the shared-memory file with `inode`.
    static func isMapped(inode: String) throws -> Bool {
        let maps = try String(contentsOfFile: "/proc/self/maps", encoding: .utf8)
        return maps.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            return fields.count > 5 && fields[4] == inode && line.contains("memfd:motion-sandbox")
        }
    }

    @Test("three restarts: each old sandbox is reaped (no zombie) and its 13 MB mapping gone; the performers go on in the last one")
    func restartsLeaveNothingBehind() throws {
        let host = PluginHost(
            catalog: PluginCatalog(plugins: [
                try PluginManifest.load(contentsOf: packageRoot.appendingPathComponent("Tests/Fixtures/plugins/faults.json"))
            ]),
            loader: LibraryLoader(
                configuration: HostConfiguration(plugins: ["*": PluginIsolation(mode: .process, onCrash: .restart, maxRestarts: 3)]),
                extraLibraryDirectories: [productsDirectory]),
            logSink: { _, _ in })
        let scene = Scene(targets: ["t0", "t1", "t2"])
        let scheduler = Scheduler(scene: scene, registry: host)
        scheduler.recordsPlansForRecreation = true
        var frame = 0
        var restarted: [Bool] = []
        for round in 0..<3 {
            // A new performer that crashes the sandbox in the next frame's update.
            try scheduler.commit(
                Transaction([.add(Plan(type: "Fault", fields: ["atFrame": .number(Double(frame + 1))]), target: TargetID("t\(round)"))]))
            let sandbox = try #require(host.currentSandbox(ofPlugin: Isolation.faults)?.sandboxProcess)
            let inode = try #require(try Self.memfdInode(mappedAt: sandbox.sharedMemory))
            #expect(try Self.isMapped(inode: inode))
            for _ in 0..<2 {
                scheduler.advanceFrame(to: Double(frame) / 60)
                frame += 1
                restarted += host.takeFailures(restartingIn: scheduler).map(\.isRestarted)
            }
            #expect(restarted.count == round + 1)
            // Reaped: no such process any more (a zombie would still answer kill(pid, 0)).
            #expect(kill(sandbox.pid, 0) == -1 && errno == ESRCH)
            #expect(try !Self.isMapped(inode: inode), "the shared memory of the sandbox that crashed in round \(round) is still mapped")
            let current = try #require(host.currentSandbox(ofPlugin: Isolation.faults)?.sandboxProcess)
            #expect(current.pid != sandbox.pid)
        }
        #expect(restarted == [true, true, true])
        // Every performer was re-created in the last sandbox with its plan and is updated there.
        #expect(scheduler.performerCount == 3)
        scheduler.advanceFrame(to: Double(frame) / 60)
        for target in ["t0", "t1", "t2"] { #expect(scene.target(TargetID(target))?["n"] == PropertyValue(Double(frame))) }
        #expect(host.takeFailures(restartingIn: scheduler).isEmpty)
    }
}
