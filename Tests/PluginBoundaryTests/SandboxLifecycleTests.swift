import Foundation
import MotionCore
import Testing

@testable import MotionHost

/// What an ended sandbox leaves behind: nothing. A restart (`"onCrash": "restart"`) switches the performers to a new
/// sandbox with R43, and the old process is reaped and its shared memory unmapped.
@Suite("An ended sandbox is reaped and unmapped", .serialized)
struct SandboxLifecycleTests {
    /// `/proc/self/maps`, read to its end (FileHandle) (a procfs file says its size is 0; under Thread Sanitizer
    /// `String(contentsOfFile:)` read only its first 4 KiB).
    static func readMaps() -> String {
        let data = (try? FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps")).readToEnd()) ?? nil
        return String(decoding: data ?? Data(), as: UTF8.self)
    }

    /// The inode of the shared-memory file mapped at `address` in this process (the `/proc/self/maps` line whose range
    /// holds it), if mapped.
    static func memfdInode(mappedAt wanted: UInt) -> String? {
        let maps = readMaps()
        for line in maps.split(separator: "\n") where line.contains("memfd:motion-sandbox") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            let range = fields[0].split(separator: "-").compactMap { UInt($0, radix: 16) }
            if range.count == 2, range[0] <= wanted, wanted < range[1], fields.count > 4 { return String(fields[4]) }
        }
        return nil
    }

    /// This process's mappings of sandbox memory and the one holding `address`, for a failure's message.
    static func mappings(around wanted: UInt) -> String {
        let maps = readMaps()
        return maps.split(separator: "\n").filter { line in
            let range = line.split(separator: " ").first?.split(separator: "-").compactMap { UInt($0, radix: 16) } ?? []
            return line.contains("memfd") || (range.count == 2 && range[0] <= wanted && wanted < range[1])
        }.joined(separator: "\n") + " (\(maps.count) bytes of maps)"
    }

    /// Whether any mapping of this process is of the shared-memory file with `inode`.
    static func isMapped(inode: String) -> Bool {
        let maps = readMaps()
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
            let inode = try #require(
                Self.memfdInode(mappedAt: sandbox.sharedMemory),
                "no mapping at 0x\(String(sandbox.sharedMemory, radix: 16)) among: \(Self.mappings(around: sandbox.sharedMemory))")
            #expect(Self.isMapped(inode: inode))
            for _ in 0..<2 {
                scheduler.advanceFrame(to: Double(frame) / 60)
                frame += 1
                restarted += host.takeFailures(restartingIn: scheduler).map(\.isRestarted)
            }
            #expect(restarted.count == round + 1)
            // Reaped: no such process any more (a zombie would still answer kill(pid, 0)).
            #expect(kill(sandbox.pid, 0) == -1 && errno == ESRCH)
            #expect(!Self.isMapped(inode: inode), "the shared memory of the sandbox that crashed in round \(round) is still mapped")
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

    @Test("a restart whose new sandbox cannot load the plugin says so, once, and later plans of its types fail")
    func aRestartThatCannotStartGivesUp() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("restart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        let library = folder.appendingPathComponent("libFixtureFaults.so")
        try Data(contentsOf: productsDirectory.appendingPathComponent("libFixtureFaults.so")).write(to: library)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: library.path)
        let manifestURL = folder.appendingPathComponent("faults.json")
        try Data(contentsOf: packageRoot.appendingPathComponent("Tests/Fixtures/plugins/faults.json")).write(to: manifestURL)
        let host = PluginHost(
            catalog: PluginCatalog(plugins: [try PluginManifest.load(contentsOf: manifestURL)]),
            loader: LibraryLoader(configuration: HostConfiguration(plugins: ["*": PluginIsolation(mode: .process, onCrash: .restart)])),
            logSink: { _, _ in })
        let scheduler = Scheduler(scene: Scene(targets: ["t"]), registry: host)
        scheduler.recordsPlansForRecreation = true
        try scheduler.commit(Transaction([.add(Plan(type: "Fault", fields: ["atFrame": 0]), target: "t")]))
        // The library goes before the crash is taken: the new sandbox cannot load it.
        try FileManager.default.removeItem(at: library)
        scheduler.advanceFrame(to: 0)
        let failures = host.takeFailures(restartingIn: scheduler)
        #expect(failures.count == 1)
        #expect(failures.first?.isRestarted == false)
        #expect(failures.first?.cause.contains("; no new sandbox took over (") == true, "\(failures)")
        var refusal: CommitError?
        do { try scheduler.commit(Transaction([.add(Plan(type: "Quiet"), target: "t")])) } catch { refusal = error }
        #expect(refusal?.message.contains("its plan types are not performed any more in this run") == true, "\(String(describing: refusal))")
        #expect(host.takeFailures(restartingIn: scheduler).isEmpty)
    }
}
