import CMotionABI
import Foundation
import MotionCore
import Testing

@testable import MotionHost

/// The host's side of an isolated plugin's queued writes (``IsolatedPlugin/applyQueuedWrites(_:byteCount:contexts:writes:)``):
/// `set_slots` batches applied where they lie in the shared memory, each slot, count and value read once and checked.
/// The sandbox refuses a bad batch before it queues it, so a bad entry here is one a sandbox forged.
@Suite("An isolated plugin's queued set_slots batches, applied in place")
struct QueuedWritesTests {
    let scene = Scene(targets: ["card", "chip"])
    let contexts: [HostContext]
    let cardX: Int32
    let chipX: Int32
    let x: PropertyID

    init() throws {
        contexts = [
            HostContext(target: try #require(scene.target("card")), pluginDescription: "test"),
            HostContext(target: try #require(scene.target("chip")), pluginDescription: "test"),
        ]
        x = scene.propertyID("x")
        cardX = scene.target("card")!.slot(for: x).rawValue
        chipX = scene.target("chip")!.slot(for: x).rawValue
    }

    /// The bytes of one `set_slots` entry of performer `slot`: tag, counts, writes, values (SandboxSharedMemory).
    static func entry(performer slot: UInt64, _ writes: [(Int32, UInt32)], _ values: [Double], valueCount: Int? = nil) -> [UInt8] {
        var bytes: [UInt8] = []
        func append<T>(_ value: T) { withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) } }
        append((slot + 1) | 1 << 63)
        append(UInt32(writes.count))
        append(UInt32(valueCount ?? values.count))
        for (writeSlot, count) in writes { append(motion_slot_write(slot: writeSlot, count: count)) }
        for value in values { append(value) }
        return bytes
    }

    func apply(_ bytes: [UInt8]) throws(ChannelFailure) {
        let writes = UnsafeMutablePointer<motion_property_write>.allocate(capacity: 64)
        defer { writes.deallocate() }
        let result: Result<Void, ChannelFailure> = bytes.withUnsafeBytes { raw in
            do throws(ChannelFailure) {
                try IsolatedPlugin.applyQueuedWrites(raw.baseAddress!, byteCount: raw.count, contexts: contexts, writes: writes)
                return .success(())
            } catch { return .failure(error) }
        }
        try result.get()
    }

    func values() -> [Double?] { ["card", "chip"].map { scene.target(TargetID($0))![x]?.scalar } }

    @Test("good batches of two performers are applied in order, each write once, as the host's set_slots applies them")
    func goodBatches() throws {
        try apply(Self.entry(performer: 0, [(cardX, 1), (chipX, 1)], [1, 2]) + Self.entry(performer: 1, [(chipX, 1)], [3]))
        #expect(values() == [1, 3])
        #expect(scene.drainChanges().map(\.target) == ["card", "chip"])
    }

    /// Forged entries, each refused by the host's checks, with the writes before its bad one.
    static let forged: [(String, [(Int32, UInt32)], [Double], [Double?])] = [
        ("a slot past the scene's", [(0, 1), (7, 1)], [1, 2], [1, nil]),
        ("a negative slot", [(-3, 1)], [1], [nil, nil]),
        ("a count of 0", [(0, 1), (1, 0)], [1, 2], [1, nil]),
        ("a NaN", [(0, 1), (1, 1)], [4, .nan], [4, nil]),
        ("values the writes do not use", [(0, 1)], [5, 6], [5, nil]),
    ]

    @Test("a forged batch fails the sandbox as malformed, naming the problem; no write the checks refuse is applied", arguments: forged.indices)
    func forgedBatchIsMalformed(case index: Int) throws {
        let (_, writes, values, expected) = Self.forged[index]
        var failure: ChannelFailure?
        do { try apply(Self.entry(performer: 0, writes, values)) } catch { failure = error }
        guard case .malformed(let message) = failure else {
            Issue.record("expected a malformed failure, got \(String(describing: failure))")
            return
        }
        #expect(message.contains("fails the host's checks"), "\(message)")
        #expect(self.values() == expected)
    }

    @Test("an entry whose sizes run past the queue is malformed before any of it is read")
    func entryCutShort() {
        var bytes = Self.entry(performer: 0, [(cardX, 1)], [1])
        bytes.removeLast(8)
        #expect(throws: ChannelFailure.self) { try apply(bytes) }
        #expect(values() == [nil, nil])
    }

    @Test("a batch of a destroyed performer, or of a performer the host never made, is dropped; the next entry is applied")
    func retiredOrUnknownPerformer() throws {
        contexts[0].retire()
        try apply(
            Self.entry(performer: 0, [(cardX, 1)], [1]) + Self.entry(performer: 9, [(cardX, 1)], [2]) + Self.entry(performer: 1, [(chipX, 1)], [3]))
        #expect(values() == [nil, 3])
    }
}
