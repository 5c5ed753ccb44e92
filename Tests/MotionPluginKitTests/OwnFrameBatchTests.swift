import CMotionABI
import Testing

/// `update_many` for performers that each have a `FrameBatch` of their own (PlanProbe's `BatchOfOnePerformer`),
/// not one shared per thread: the SDK keeps a table of members per batch (`BatchMembers`), one per performer here.
@Suite("update_many with a FrameBatch per performer")
struct OwnFrameBatchTests {
    let plugin: Plugin

    init() throws {
        plugin = try #require(try PluginLibrary.open("FixturePlanProbe").callEntry())
    }

    @Test("Each performer's own batch runs it alone, once per frame, in any order, after others were destroyed")
    func eachPerformerIsUpdatedOncePerFrame() throws {
        let contexts = (0..<4).map { FakeContext(target: "own-\($0)") }
        var performers = try contexts.prefix(3).map { try #require(plugin.create("BatchOfOnePerformer", for: $0).0) }
        plugin.updateMany(performers, index: 0, time: 0, delta: 0)
        plugin.updateMany(performers.reversed(), index: 1, time: 0.5, delta: 0.5)
        #expect(contexts.map { $0.value("frames") } == [[2], [2], [2], nil])
        // A new performer's batch may take the address of the destroyed one's: it is a batch of its own all the same.
        plugin.destroy(performers.remove(at: 1))
        performers.append(try #require(plugin.create("BatchOfOnePerformer", for: contexts[3]).0))
        defer { performers.forEach(plugin.destroy) }
        plugin.updateMany([performers[2], performers[0], performers[1]], index: 2, time: 1, delta: 0.5)
        #expect(contexts.map { $0.value("frames") } == [[3], [2], [3], [1]])
    }

    @Test("Many performers with a batch each are made, updated once each and destroyed")
    func manyPerformersWithABatchEach() throws {
        // 2,000 batches: each new one used to make the SDK visit every batch's table it knew (quadratic in the
        // performers); now the visits are amortized (BatchMembers.join). The counts show each ran once.
        let count = 2_000
        let contexts = (0..<count).map { FakeContext(target: "many-\($0)") }
        let performers = try contexts.map { try #require(plugin.create("BatchOfOnePerformer", for: $0).0) }
        defer { performers.forEach(plugin.destroy) }
        plugin.updateMany(performers, index: 0, time: 0, delta: 0)
        #expect(contexts.allSatisfy { $0.value("frames") == [1] })
    }
}
