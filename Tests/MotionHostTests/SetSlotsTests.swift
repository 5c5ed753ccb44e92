import CMotionABI
import Foundation
import MotionCore
import Synchronization
import Testing

@testable import MotionHost

/// The property-slots host extension (ABI 1.3, motion/slots.h): slots resolved once, and `set_slots`, a batch
/// checked once before any of its writes is applied.
@Suite("set_slots")
struct SetSlotsTests {
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

    static var slots: motion_property_slots_v1 {
        let table = HostInterface.table.pointee.get_extension(MOTION_HOST_EXTENSION_PROPERTY_SLOTS)!
        return table.assumingMemoryBound(to: motion_property_slots_v1.self).pointee
    }

    func slot(_ context: HostContext, _ property: PropertyID) -> motion_property_slot {
        Self.slots.slot(context.opaque, property.rawValue)
    }

    static func apply(_ context: OpaquePointer?, _ writes: [(motion_property_slot, [Double])], valueCount: Int? = nil)
        -> (motion_status, Int)
    {
        let records = writes.map { motion_slot_write(slot: $0.0, count: UInt32($0.1.count)) }
        let values = writes.flatMap(\.1)
        var failed = -1
        let status = records.withUnsafeBufferPointer { records in
            values.withUnsafeBufferPointer { values in
                slots.set_slots(context, records.baseAddress, records.count, values.baseAddress, valueCount ?? values.count, &failed)
            }
        }
        return (status, failed)
    }

    @Test("the extension is offered, a slot is stable per (target, property), and making one gives no value")
    func resolving() {
        #expect(Self.slots.struct_size == UInt32(MemoryLayout<motion_property_slots_v1>.size))
        let cardX = slot(card, x)
        #expect(cardX >= 0 && slot(card, x) == cardX)
        #expect(slot(chip, x) != cardX)
        #expect(scene.target("card")?[x] == nil)
        #expect(Self.slots.slot(card.opaque, 999) == MOTION_ERR_UNKNOWN_PROPERTY)
        #expect(Self.slots.slot(nil, x.rawValue) == MOTION_ERR_INVALID_ARGUMENT)
    }

    @Test("every write of a good batch is applied in order, vectors and scalars, and recorded as changes")
    func appliesInOrder() {
        let (cardX, chipY) = (slot(card, x), slot(chip, y))
        let (status, failed) = Self.apply(card.opaque, [(cardX, [1]), (chipY, [2, 3]), (cardX, [4])])
        #expect(status == MOTION_OK && failed == -1)
        #expect(scene.target("card")?[x] == PropertyValue(4))
        #expect(scene.target("chip")?[y] == PropertyValue([2, 3]))
        #expect(scene.drainChanges().map(\.target) == ["card", "chip"])
    }

    @Test(
        "one bad write refuses the whole batch, naming its index; nothing is applied",
        arguments: ["a slot never made", "a negative slot", "no components", "five components", "NaN", "infinity in a vector"])
    func refusesBadBatch(_ problem: String) {
        let cardX = slot(card, x)
        let chipY = slot(chip, y)
        let (bad, status, index): ((motion_property_slot, [Double]), motion_status, Int) =
            switch problem {
            case "a slot never made": ((Int32(scene.propertySlotCount), [7]), MOTION_ERR_UNKNOWN_PROPERTY, 1)
            case "a negative slot": ((-1, [7]), MOTION_ERR_UNKNOWN_PROPERTY, 1)
            case "no components": ((chipY, []), MOTION_ERR_INVALID_ARGUMENT, 1)
            case "five components": ((chipY, [1, 2, 3, 4, 5]), MOTION_ERR_INVALID_ARGUMENT, 1)
            case "NaN": ((chipY, [.nan]), MOTION_ERR_INVALID_ARGUMENT, 1)
            default: ((chipY, [1, .infinity]), MOTION_ERR_INVALID_ARGUMENT, 2)  // the index of the value
            }
        #expect(Self.apply(card.opaque, [(cardX, [1]), bad]) == (status, index), "\(problem)")
        #expect(scene.target("card")?[x] == nil, "\(problem): nothing applied")
        #expect(scene.drainChanges().isEmpty)
    }

    @Test("writes are checked one by one in index order (slot, then count), the values' finiteness after them all")
    func checkOrder() {
        let cardX = slot(card, x)
        // Write 0's count is bad and write 1's slot is bad: write 0 is named, with its problem.
        #expect(Self.apply(card.opaque, [(cardX, []), (-1, [1])]) == (MOTION_ERR_INVALID_ARGUMENT, 0))
        // A NaN in write 0 and a bad slot in write 1: the slot is named first.
        #expect(Self.apply(card.opaque, [(cardX, [.nan]), (-1, [1])]) == (MOTION_ERR_UNKNOWN_PROPERTY, 1))
        #expect(scene.target("card")?[x] == nil)
    }

    @Test("a slot the scene's store made itself (a target's initial value) is in range without a slot() call")
    func storeSlotsAreInRange() throws {
        let scene = Scene()
        let target = scene.addTarget("card", properties: ["x": 1])
        let context = HostContext(target: target, pluginDescription: "test")
        #expect(scene.propertySlotCount == 1)
        #expect(Self.apply(context.opaque, [(0, [2])]) == (MOTION_OK, -1))
        #expect(target["x"] == 2)
    }

    @Test("counts and the values given must agree: more values than the counts say is refused at index count")
    func valueCountMismatch() {
        let cardX = slot(card, x)
        #expect(Self.apply(card.opaque, [(cardX, [1])], valueCount: 2) == (MOTION_ERR_INVALID_ARGUMENT, 1))
        #expect(Self.apply(card.opaque, [(cardX, [1, 2])], valueCount: 1) == (MOTION_ERR_INVALID_ARGUMENT, 0))
        #expect(Self.apply(card.opaque, []) == (MOTION_OK, -1))
        #expect(scene.target("card")?[x] == nil)
    }

    @Test("a batch from another thread, or under a retired context, is refused before any check of its writes")
    func wrongThreadAndGone() {
        let cardX = slot(card, x)
        let result = Mutex<(motion_status, Int)>((MOTION_OK, -1))
        /// `@unchecked Sendable`: the context's pointer, handed to the thread before it starts.
        struct Context: @unchecked Sendable { let raw: OpaquePointer }
        let context = Context(raw: card.opaque)
        let thread = Thread { result.withLock { $0 = Self.apply(context.raw, [(cardX, [5])]) } }
        thread.start()
        while !thread.isFinished { usleep(1000) }
        #expect(result.withLock { $0 } == (MOTION_ERR_WRONG_THREAD, -1))
        let gone = HostContext(target: scene.target("chip")!, pluginDescription: "test")
        gone.retire()
        #expect(Self.apply(gone.opaque, [(cardX, [5])]) == (MOTION_ERR_SCHEDULER_GONE, -1))
        #expect(Self.slots.slot(gone.opaque, x.rawValue) == MOTION_ERR_SCHEDULER_GONE)
        #expect(scene.target("card")?[x] == nil)
    }
}
