import Foundation
import MotionCore
import Testing

/// The scheduler's frame batches (``FrameBatch``): consecutive members of one batch are updated with one
/// call, in the scheduler's update order, and only while they hold a token.
@Suite("Frame batches")
struct FrameBatchTests {
    /// Logs each batch call with its members' names.
    final class Batch: FrameBatch {
        let name: String
        let log: Log
        var logsVisits = false
        init(_ name: String, log: Log) {
            self.name = name
            self.log = log
        }
        func update(_ members: UnsafeBufferPointer<OpaquePointer>, frame: Frame) {
            let names = members.map { Unmanaged<Member>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue().target }
            log.lines.append("\(name) \(names.joined(separator: " ")) @\(frame.index)")
            // Then each member in turn, as a plugin's update_many would: a member may advance the scheduler.
            for index in members.indices {
                let member = Unmanaged<Member>.fromOpaque(UnsafeRawPointer(members[index])).takeUnretainedValue()
                if logsVisits { log.lines.append("\(name) visits \(member.target)") }
                member.nestIfAsked()
            }
        }
    }

    final class Log { var lines: [String] = [] }

    /// Takes a token on "Go", ends it on "Stop"; updated through its batch (or alone when it has none).
    final class Member: BatchedFrameUpdating {
        let target: String
        let frameBatch: (any FrameBatch)?
        let log: Log
        var generator: IsActiveTokenGenerator?
        var token: IsActiveToken?
        init(target: String, batch: Batch?, log: Log) {
            self.target = target
            self.frameBatch = batch
            self.log = log
        }
        var frameBatchMember: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }
        func setIsActiveTokenGenerator(_ generator: IsActiveTokenGenerator) { self.generator = generator }
        func addPlan(_ plan: Plan) throws {
            if plan.type == "Stop" {
                try token?.terminate()
                token = nil
            } else if token == nil {
                token = generator?.generate()
            }
        }
        /// Set to make this performer advance the scheduler once from inside its own update.
        var nest: (() -> Void)?
        func update(frame: Frame) {
            log.lines.append("alone \(target) @\(frame.index)")
            nestIfAsked()
        }
        func nestIfAsked() {
            guard let nest else { return }
            self.nest = nil
            log.lines.append("nest from \(target)")
            nest()
        }
    }

    let log = Log()
    let scheduler: Scheduler

    let x: Batch

    init() {
        let log = self.log
        let x = Batch("X", log: log)
        self.x = x
        let y = Batch("Y", log: log)
        let registry = InProcessRegistry()
        // Which batch a target's performer joins: X for a-d, Y for e, none for s.
        let batches: [String: Batch] = ["a": x, "b": x, "c": x, "d": x, "e": y]
        let members = Members()
        registry.register(planTypes: ["Go", "Stop"], className: "Member") { context in
            let member = Member(target: context.target.id.name, batch: batches[context.target.id.name], log: log)
            members.all.append(member)
            return member
        }
        self.members = members
        scheduler = Scheduler(scene: Scene(targets: ["a", "b", "s", "c", "d", "e"]), registry: registry)
    }

    final class Members { var all: [Member] = [] }
    let members: Members

    func commit(_ type: String, _ targets: String...) throws {
        var transaction = Transaction()
        for target in targets { transaction.add(Plan(type: type), to: TargetID(target)) }
        try scheduler.commit(transaction)
    }

    @Test("consecutive members of one batch share one call; other performers keep their place in the order")
    func runsAreBatchedInOrder() throws {
        try commit("Go", "a", "b", "s", "c", "d", "e")
        scheduler.advanceFrame(to: 0)
        #expect(log.lines == ["X a b @0", "alone s @0", "X c d @0", "Y e @0"])
    }

    @Test("a member without a token is left out of its run, and a run with none makes no call")
    func tokenlessMembersAreSkipped() throws {
        try commit("Go", "a", "b", "s", "c", "d")
        try commit("Stop", "a")
        scheduler.advanceFrame(to: 0)
        try commit("Stop", "c", "d")
        scheduler.advanceFrame(to: 1)
        #expect(log.lines == ["X b @0", "alone s @0", "X c d @0", "X b @1", "alone s @1"])
    }

    @Test("a member that stopped and goes again is updated again, in its batch or alone, as when it first went")
    func membersThatGoAgainAreUpdatedAgain() throws {
        try commit("Go", "a", "s")
        scheduler.advanceFrame(to: 0)
        try commit("Stop", "a", "s")
        scheduler.advanceFrame(to: 1)
        try commit("Go", "s", "a")
        scheduler.advanceFrame(to: 2)
        #expect(log.lines == ["X a @0", "alone s @0", "alone s @2", "X a @2"])
    }

    @Test("a member whose token ends earlier in the same frame is left out of its run, also after a nested frame")
    func tokenEndedDuringTheFrame() throws {
        try commit("Go", "a", "b", "s", "c", "d")
        let scheduler = self.scheduler
        let d = try #require(members.all.first { $0.target == "d" })
        // s, updated alone before the run (c d), ends d's token and then advances a nested frame, which
        // drops d from the scheduler's list; the outer frame's run must still leave d out.
        members.all.first { $0.target == "s" }?.nest = {
            try? d.token?.terminate()
            d.token = nil
            scheduler.advanceFrame(to: 1)
        }
        scheduler.advanceFrame(to: 0)
        #expect(log.lines == ["X a b @0", "alone s @0", "nest from s", "X a b @1", "alone s @1", "X c @1", "X c @0"])
    }

    @Test("a member whose token ends inside an earlier run's batch call, with a nested frame there, is left out")
    func tokenEndedInsideAnEarlierRun() throws {
        try commit("Go", "a", "b", "s", "c", "d")
        let scheduler = self.scheduler
        let d = try #require(members.all.first { $0.target == "d" })
        // b, updated in the run (a b), ends d's token, advances a nested frame, then takes a token for d and
        // ends it again: d's count is 0 when the outer frame reaches the run (c d).
        members.all.first { $0.target == "b" }?.nest = {
            try? d.token?.terminate()
            d.token = nil
            scheduler.advanceFrame(to: 1)
            d.token = d.generator?.generate()
            try? d.token?.terminate()
            d.token = nil
        }
        scheduler.advanceFrame(to: 0)
        scheduler.advanceFrame(to: 2)
        #expect(
            log.lines == [
                "X a b @0", "nest from b", "X a b @1", "alone s @1", "X c @1", "alone s @0", "X c @0",
                "X a b @2", "alone s @2", "X c @2",
            ])
    }

    @Test("a member whose token is ended on another thread and delivered mid-frame is left out of its run")
    func tokenEndedOnAnotherThreadMidFrame() throws {
        try commit("Go", "a", "b", "s", "c", "d")
        let scheduler = self.scheduler
        let token = try #require(members.all.first { $0.target == "d" }?.token)
        members.all.first { $0.target == "s" }?.nest = {
            let thread = Thread { try? token.terminate() }
            thread.start()
            while !thread.isFinished { usleep(1000) }
            scheduler.processPendingWork()
        }
        scheduler.advanceFrame(to: 0)
        #expect(log.lines == ["X a b @0", "alone s @0", "nest from s", "X c @0"])
        #expect(scheduler.frameUpdatedPerformerCount == 4)
    }

    @Test("a frame advanced from inside a batch's update leaves the outer batch's members as they were")
    func nestedFrame() throws {
        try commit("Go", "a", "b", "s", "c", "d")
        let scheduler = self.scheduler
        // a advances the scheduler while its batch (a b) is being updated; the nested frame collects its
        // own runs; the outer batch must still see b (not c or d) after a.
        members.all.first { $0.target == "a" }?.nest = { scheduler.advanceFrame(to: 1) }
        x.logsVisits = true
        scheduler.advanceFrame(to: 0)
        #expect(
            log.lines == [
                "X a b @0", "X visits a", "nest from a",
                "X a b @1", "X visits a", "X visits b", "alone s @1", "X c d @1", "X visits c", "X visits d",
                "X visits b", "alone s @0", "X c d @0", "X visits c", "X visits d",
            ])
        #expect(members.all.allSatisfy { $0.nest == nil })
    }
}
