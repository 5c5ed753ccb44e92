import CMotionABI
import Foundation
import MotionCore
import Synchronization
import Testing

@testable import MotionHost

/// `motion_host_v1.set_properties` (ABI 1.1): each write applied as `set_property` would, refused ones
/// skipped and the first refusal reported.
@Suite("set_properties")
struct SetPropertiesTests {
    let scene = Scene(targets: ["card", "chip"])
    let card: HostContext
    let chip: HostContext
    let x: PropertyID
    let y: PropertyID

    init() throws {
        card = HostContext(target: try #require(scene.target("card")), pluginDescription: "test")
        chip = HostContext(target: try #require(scene.target("chip")), pluginDescription: "test")
        x = scene.propertyID("x")
        y = scene.propertyID("y")
    }

    func write(_ context: HostContext?, _ property: Int32, _ values: [Double]) -> motion_property_write {
        var write = motion_property_write()
        write.ctx = context?.opaque
        write.property = property
        write.count = UInt32(values.count)
        withUnsafeMutableBytes(of: &write.values) { raw in
            let doubles = raw.bindMemory(to: Double.self)
            for (i, value) in values.prefix(4).enumerated() { doubles[i] = value }
        }
        return write
    }

    func apply(_ writes: [motion_property_write]) -> (motion_status, Int) { Self.apply(writes) }

    static func apply(_ writes: [motion_property_write]) -> (motion_status, Int) {
        var failed = -1
        let status = writes.withUnsafeBufferPointer {
            HostInterface.table.pointee.set_properties($0.baseAddress, $0.count, MemoryLayout<motion_property_write>.stride, &failed)
        }
        return (status, failed)
    }

    @Test("every write is applied in order; the last write of a property wins")
    func appliesInOrder() {
        let (status, failed) = apply([write(card, x.rawValue, [1]), write(chip, y.rawValue, [2, 3]), write(card, x.rawValue, [4])])
        #expect(status == MOTION_OK && failed == -1)
        #expect(scene.target("card")?[x] == PropertyValue(4))
        #expect(scene.target("chip")?[y] == PropertyValue([2, 3]))
        #expect(scene.drainChanges().count == 2)
    }

    @Test("refused writes are skipped, the rest applied, and the first refusal reported with its index")
    func skipsRefusedWrites() {
        let writes = [
            write(card, x.rawValue, [1]),
            write(card, x.rawValue, [.nan]),  // 1: non-finite
            write(card, 99, [1]),  // 2: never interned
            write(card, y.rawValue, [1, 2, 3, 4, 5]),  // 3: five components
            write(nil, y.rawValue, [1]),  // 4: no context
            write(chip, y.rawValue, [7]),
        ]
        var tooMany = writes[3]
        tooMany.count = 5
        let (status, failed) = apply(Array(writes.prefix(3)) + [tooMany] + Array(writes.suffix(2)))
        #expect(status == MOTION_ERR_INVALID_ARGUMENT && failed == 1)
        #expect(scene.target("card")?[x] == PropertyValue(1))
        #expect(scene.target("card")?[y] == nil)
        #expect(scene.target("chip")?[y] == PropertyValue(7))
        #expect(apply([write(card, 99, [1])]) == (MOTION_ERR_UNKNOWN_PROPERTY, 0))
        #expect(apply([]) == (MOTION_OK, -1))
    }

    @Test("values past a write's count are ignored, whatever they hold; a non-finite one within it is refused")
    func valuesPastCount() {
        var scalar = write(card, x.rawValue, [2, .nan, .infinity, .nan])
        scalar.count = 1
        var pair = write(chip, y.rawValue, [1, .infinity, 3])
        pair.count = 2
        #expect(apply([scalar, pair]) == (MOTION_ERR_INVALID_ARGUMENT, 1))
        #expect(scene.target("card")?[x] == PropertyValue(2))
        #expect(scene.target("chip")?[y] == nil)
    }

    @Test("a NULL array or a stride smaller than the ABI 1.1 write applies nothing: MOTION_ERR_INVALID_ARGUMENT at 0")
    func badArrays() {
        var failed = -1
        #expect(
            HostInterface.table.pointee.set_properties(nil, 2, MemoryLayout<motion_property_write>.stride, &failed) == MOTION_ERR_INVALID_ARGUMENT)
        #expect(failed == 0)
        let writes = [write(card, x.rawValue, [1])]
        failed = -1
        let status = writes.withUnsafeBufferPointer { HostInterface.table.pointee.set_properties($0.baseAddress, 1, 16, &failed) }
        #expect(status == MOTION_ERR_INVALID_ARGUMENT && failed == 0)
        failed = -1
        let overflowing = writes.withUnsafeBufferPointer {
            HostInterface.table.pointee.set_properties($0.baseAddress, Int.max / 8, 64, &failed)
        }
        #expect(overflowing == MOTION_ERR_INVALID_ARGUMENT && failed == 0)
        #expect(scene.target("card")?[x] == nil)
    }

    @Test("the stride is the caller's: writes of a newer minor with an appended field are read in place")
    func newerStride() throws {
        // Each write followed by 16 bytes a later minor might append; the host must skip them.
        let stride = MemoryLayout<motion_property_write>.stride + 16
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: stride * 2, alignment: 8)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0xFF, count: stride * 2)
        (buffer).storeBytes(of: write(card, x.rawValue, [3]), as: motion_property_write.self)
        (buffer + stride).storeBytes(of: write(chip, y.rawValue, [4, 5]), as: motion_property_write.self)
        var failed = -1
        let status = HostInterface.table.pointee.set_properties(buffer.assumingMemoryBound(to: motion_property_write.self), 2, stride, &failed)
        #expect(status == MOTION_OK && failed == -1)
        #expect(scene.target("card")?[x] == PropertyValue(3))
        #expect(scene.target("chip")?[y] == PropertyValue([4, 5]))
    }

    @Test("from a thread other than the scheduler's nothing is applied: MOTION_ERR_WRONG_THREAD")
    func wrongThread() {
        /// `@unchecked Sendable`: handed to the thread before it starts and not touched here meanwhile.
        struct Writes: @unchecked Sendable { let writes: [motion_property_write] }
        let writes = Writes(writes: [write(card, x.rawValue, [5])])
        let result = Mutex<(motion_status, Int)>((MOTION_OK, -1))
        let thread = Thread { result.withLock { $0 = Self.apply(writes.writes) } }
        thread.start()
        while !thread.isFinished { usleep(1000) }
        #expect(result.withLock { $0 } == (MOTION_ERR_WRONG_THREAD, 0))
        #expect(scene.target("card")?[x] == nil)
    }
}
