import MotionCore
import Testing

/// ``Scene/setSlots(_:values:)`` (all or nothing) and ``Scene/setSlotsCheckingEach(_:values:)`` (each write checked
/// as it is read): the store's own batch loops behind a plugin host's `set_slots`.
@Suite("Property store: batches of writes by slot")
struct SlotBatchTests {
    let scene = Scene()
    let slots: [PropertySlot]
    let x: PropertyID
    let position: PropertyID

    init() {
        x = scene.propertyID("x")
        position = scene.propertyID("position")
        var slots: [PropertySlot] = []
        for i in 0..<4 {
            let target = scene.addTarget(TargetID("t\(i)"), properties: ["x": 0])
            slots.append(target.slot(for: x))
        }
        // A fifth slot with no value yet, made after the others.
        slots.append(scene.target("t0")!.slot(for: position))
        self.slots = slots
    }

    typealias Apply = @Sendable (Scene, Span<PropertySlotWrite>, Span<Double>) -> PropertySlotBatchProblem?
    static let whole: Apply = { $0.setSlots($1, values: $2) }
    static let eachInTurn: Apply = { $0.setSlotsCheckingEach($1, values: $2) }

    func apply(_ writes: [(PropertySlot, UInt32)], _ values: [Double], _ how: Apply) -> PropertySlotBatchProblem? {
        let records = writes.map { PropertySlotWrite(slot: $0.0, count: $0.1) }
        return records.withUnsafeBufferPointer { records in
            values.withUnsafeBufferPointer { values in
                how(scene, Span(_unsafeElements: records), Span(_unsafeElements: values))
            }
        }
    }

    func xs() -> [Double] { (0..<4).map { scene.target(TargetID("t\($0)"))![x]!.scalar } }

    @Test(
        "a good batch of scalars and vectors is applied in order, a slot with no value gets one, each change logged once",
        arguments: [true, false])
    func goodBatch(whole: Bool) {
        let problem = apply(
            [(slots[0], 1), (slots[4], 3), (slots[1], 1), (slots[0], 1), (slots[3], 1)], [1, 7, 8, 9, 2, 3, 4],
            whole ? Self.whole : Self.eachInTurn)
        #expect(problem == nil)
        #expect(xs() == [3, 2, 0, 4])
        #expect(scene.target("t0")![position] == PropertyValue([7, 8, 9]))
        let changes = scene.drainChanges()
        // t0.x first (once, latest value), then t0.position, then t1.x, then t3.x; t2 kept its value.
        #expect(changes.map(\.target) == ["t0", "t0", "t1", "t3"])
        #expect(changes.map(\.value) == [3, PropertyValue([7, 8, 9]), 2, 4])
    }

    @Test("a value equal to the current one is no change", arguments: [true, false])
    func unchangedValue(whole: Bool) {
        #expect(apply([(slots[2], 1)], [0], whole ? Self.whole : Self.eachInTurn) == nil)
        #expect(scene.drainChanges().isEmpty)
    }

    /// Bad batches, each with its first problem: every check of motion/slots.h's set_slots, in its order.
    static let badBatches: [(String, [(Int32, UInt32)], [Double], PropertySlotBatchProblem)] = [
        ("a negative slot", [(0, 1), (-1, 1)], [1, 2], PropertySlotBatchProblem(.unknownSlot, at: 1)),
        ("a slot past the store's", [(0, 1), (1, 1), (5, 1)], [1, 2, 3], PropertySlotBatchProblem(.unknownSlot, at: 2)),
        ("a count of 0", [(0, 1), (1, 0)], [1, 2], PropertySlotBatchProblem(.invalidCount, at: 1)),
        ("a count of 5", [(0, 5)], [1, 2, 3, 4, 5], PropertySlotBatchProblem(.invalidCount, at: 0)),
        ("counts past the values", [(0, 1), (1, 1), (2, 1)], [1, 2], PropertySlotBatchProblem(.invalidCount, at: 2)),
        ("values left over", [(0, 1), (1, 1)], [1, 2, 3], PropertySlotBatchProblem(.valuesLeftOver, at: 2)),
        ("a NaN at the end", [(0, 1), (1, 1), (2, 1)], [1, 2, .nan], PropertySlotBatchProblem(.notFinite, at: 2)),
        ("an infinity in a vector", [(0, 1), (4, 3)], [1, 2, -.infinity, 3], PropertySlotBatchProblem(.notFinite, at: 2)),
    ]

    /// Per bad batch, how many of its writes precede the one it stops at when checked write by write.
    static let writesBeforeTheBadOne = [1, 2, 1, 0, 2, 2, 2, 1]

    @Test("a bad batch is refused whole with its first problem, and nothing of it is applied or logged", arguments: badBatches.indices)
    func badBatchIsRefusedWhole(case index: Int) {
        let (_, writes, values, expected) = Self.badBatches[index]
        let problem = apply(writes.map { (PropertySlot(rawValue: $0.0), $0.1) }, values, Self.whole)
        #expect(problem == expected)
        #expect(xs() == [0, 0, 0, 0])
        #expect(scene.target("t0")![position] == nil)
        #expect(scene.drainChanges().isEmpty)
    }

    @Test(
        "checked write by write, a bad batch stops at its bad write with the same problem; the writes before it are applied",
        arguments: badBatches.indices)
    func badBatchStopsAtItsBadWrite(case index: Int) {
        let (_, writes, values, expected) = Self.badBatches[index]
        let problem = apply(writes.map { (PropertySlot(rawValue: $0.0), $0.1) }, values, Self.eachInTurn)
        #expect(problem == expected)
        // How many of the writes (t0.x = 1, then t1.x = 2) came before the one that stopped the batch.
        let applied = Self.writesBeforeTheBadOne[index]
        #expect(xs()[0] == (applied > 0 ? 1 : 0))
        #expect(xs()[1] == (applied > 1 ? 2 : 0))
        #expect(xs()[2] == 0)
        #expect(scene.target("t0")![position] == nil)
    }

    @Test(
        "a batch of scalar writes refused at a late write is put back whole: values, a slot written twice, and the change log",
        arguments: [(Int32(2), Double.nan), (9, 3), (2, .infinity), (4, 3)])
    func scalarBatchRefusedLateIsPutBack(badSlot: Int32, badValue: Double) {
        // t1.x changed before the batch (in the log); the batch's one-component writes are checked and applied in one
        // pass, and the last one (a NaN, a slot past the store's, an infinity, a slot with no value yet, which takes the
        // other path) makes it put back what it had applied.
        #expect(apply([(slots[1], 1)], [4], Self.whole) == nil)
        let writes: [(PropertySlot, UInt32)] = [(slots[0], 1), (slots[1], 1), (slots[0], 1), (slots[3], 1), (PropertySlot(rawValue: badSlot), 1)]
        let values: [Double] = [1, 2, 3, 5, badValue]
        let problem = apply(writes, values, Self.whole)
        if badSlot == 4 {
            // A slot with no value: not a problem, the batch is applied by the two-pass path after the put-back.
            #expect(problem == nil)
            #expect(xs() == [3, 2, 0, 5])
            #expect(scene.drainChanges().map(\.target) == ["t1", "t0", "t3", "t0"])
            return
        }
        #expect(problem == PropertySlotBatchProblem(badSlot == 9 ? .unknownSlot : .notFinite, at: 4))
        #expect(xs() == [0, 4, 0, 0])
        #expect(scene.drainChanges().map(\.target) == ["t1"])
        // The put-back slots are out of the log: their next change is logged again.
        #expect(apply([(slots[0], 1)], [6], Self.whole) == nil)
        #expect(scene.drainChanges().map(\.target) == ["t0"])
    }

    @Test("an empty batch is applied; values with no writes are left over", arguments: [true, false])
    func emptyBatches(whole: Bool) {
        #expect(apply([], [], whole ? Self.whole : Self.eachInTurn) == nil)
        #expect(apply([], [1], whole ? Self.whole : Self.eachInTurn) == PropertySlotBatchProblem(.valuesLeftOver, at: 0))
        #expect(scene.drainChanges().isEmpty)
    }

    @Test("a vector write that grows its slot moves it, and the scalar writes after it in the batch still land", arguments: [true, false])
    func growingWriteInsideBatch(whole: Bool) {
        // t1.x holds one component; a write of four moves it to new room in the store mid-batch.
        let problem = apply([(slots[1], 4), (slots[2], 1), (slots[1], 1)], [1, 2, 3, 4, 5, 6], whole ? Self.whole : Self.eachInTurn)
        #expect(problem == nil)
        #expect(scene.target("t1")![x] == 6)
        #expect(scene.target("t2")![x] == 5)
        #expect(scene.drainChanges().map(\.target) == ["t1", "t2"])
    }
}
