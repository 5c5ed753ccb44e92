import Foundation
import MotionCore
import Testing

/// Shared performers (``SharedPerformer``): one object is the performers of a class on many targets, each a member
/// the scheduler keeps as it keeps a performer (R5–R43 member by member), with the member's number passed on every
/// call.
@Suite("Shared performers")
struct SharedPerformerTests {
    /// Logs every call with its member's target; takes a token by id on "Go", ends its member's tokens on "Stop",
    /// refuses "Refuse".
    final class Recorder: NamedPlanSharedPerforming, FrameUpdatingSharedPerformer {
        let name: String
        var log: [String] = []
        /// Numbers start at 100 and step by 10, so that no number is a record index by chance.
        private var next: UInt64 = 100
        var targets: [UInt64: String] = [:]
        var generators: [UInt64: IsActiveTokenGenerator] = [:]
        var tokens: [UInt64: [UInt64]] = [:]
        var destroyed: [UInt64] = []
        var refusesMembers = false

        init(_ name: String = "R") { self.name = name }

        func makeMember(_ context: PerformerContext) throws -> PerformerMember {
            if refusesMembers { throw TestError(message: "no members today") }
            let number = next
            next += 10
            targets[number] = context.target.id.name
            generators[number] = context.tokenGenerator
            log.append("make \(context.target.id.name) \(number)")
            return PerformerMember(rawValue: number)
        }

        func addPlan(_ plan: Plan, to member: PerformerMember) throws {
            let target = try self.target(of: member)
            log.append("add \(target) \(plan.type)")
            switch plan.type {
            case "Go":
                if let id = generators[member.rawValue]?.generateID() { tokens[member.rawValue, default: []].append(id) }
            case "Stop":
                for id in tokens.removeValue(forKey: member.rawValue) ?? [] { try generators[member.rawValue]?.terminate(tokenID: id) }
            case "Refuse": throw TestError(message: "refused")
            default: break
            }
        }

        func addPlan(_ plan: Plan, named name: String, to member: PerformerMember) throws {
            log.append("add named \(name) \(try target(of: member)) \(plan.type)")
        }

        func removePlan(named name: String, from member: PerformerMember) throws {
            log.append("remove named \(name) \(try target(of: member))")
        }

        func destroyMember(_ member: PerformerMember) {
            log.append("destroy \(targets[member.rawValue] ?? "unknown \(member.rawValue)") \(member.rawValue)")
            destroyed.append(member.rawValue)
            targets[member.rawValue] = nil
            tokens[member.rawValue] = nil
        }

        func update(_ members: UnsafeBufferPointer<PerformerMember>, frame: Frame) {
            log.append("update \(members.map { targets[$0.rawValue] ?? "unknown \($0.rawValue)" }.joined(separator: " ")) @\(frame.index)")
        }

        /// The member's target; a number it never gave or destroyed already fails the call (the scheduler passed a
        /// wrong number).
        private func target(of member: PerformerMember) throws -> String {
            guard let target = targets[member.rawValue] else { throw TestError(message: "no live member \(member.rawValue)") }
            return target
        }
    }

    struct TestError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    /// A scheduler over targets a, b, c whose "Go", "Stop", "Refuse" and "Mark" plans go to members of one
    /// recorder, and "Plain" plans to an ordinary performer.
    final class Fixture {
        let recorder = Recorder()
        let scene = Scene(targets: ["a", "b", "c"])
        let registry = InProcessRegistry()
        let scheduler: Scheduler
        let tracer = Tracer()

        final class Tracer: MotionCore.Tracer {
            var lines: [String] = []
            func trace(_ event: TraceEvent) {
                if case .committed = event { return }
                lines.append(event.description)
            }
        }

        final class PlainPerformer: Performer {
            func addPlan(_ plan: Plan) throws {}
        }

        init() {
            let recorder = recorder
            registry.registerMembers(planTypes: ["Go", "Stop", "Refuse", "Mark"], className: "Shared", sharedPerformer: { _ in recorder })
            registry.register(planTypes: ["Plain"], className: "Plain") { _ in PlainPerformer() }
            scheduler = Scheduler(scene: scene, registry: registry)
            scheduler.addTracer(tracer)
        }

        var sharedClass: PerformerClass { registry.performerClass(forPlanType: "Go")! }

        func commit(_ operations: [(String, String)]) throws {
            var transaction = Transaction()
            for (type, target) in operations { transaction.add(Plan(type: type), to: TargetID(target)) }
            try scheduler.commit(transaction)
        }

        func member(_ target: String) -> UInt64? { scheduler.member(forTarget: TargetID(target), className: "Shared")?.member.rawValue }
    }

    @Test func plansReachTheMemberOfTheirTargetOneMemberPerTarget() throws {  // R5, R7, R9, R10, R11
        let f = Fixture()
        try f.commit([("Mark", "a"), ("Go", "b"), ("Mark", "a"), ("Plain", "a"), ("Stop", "b")])
        #expect(f.recorder.log == ["make a 100", "add a Mark", "make b 110", "add b Go", "add a Mark", "add b Stop"])
        #expect(f.scheduler.performerCount == 3)
        #expect(f.member("a") == 100)
        #expect(f.member("b") == 110)
        #expect(f.member("c") == nil)
        #expect(f.scheduler.member(forTarget: "a", className: "Shared")?.performer === f.recorder)
        // A member is no performer object; the plain performer is no member.
        #expect(f.scheduler.performer(forTarget: "a", className: "Shared") == nil)
        #expect(f.scheduler.performer(forTarget: "a", className: "Plain") != nil)
        #expect(f.scheduler.member(forTarget: "a", className: "Plain") == nil)
        var objects = 0
        f.scheduler.forEachPerformer { _ in objects += 1 }
        #expect(objects == 1)
        #expect(f.scheduler.performerDescriptions.map(\.description) == ["Shared@a", "Shared@b", "Plain@a"])
        // R39: the member's creation, then its add, each traced under its target and class.
        #expect(Array(f.tracer.lines.prefix(2)) == ["create Shared@a", "add Shared@a {\"type\":\"Mark\"}"])
    }

    @Test func tokensAreTheMembersOwnAndFramesUpdateTheMembersThatHoldOne() throws {  // R29–R32, R37
        let f = Fixture()
        try f.commit([("Go", "a"), ("Go", "b"), ("Go", "c")])
        #expect(f.scheduler.outstandingTokenCount == 3)
        #expect(f.scheduler.tokenHolders.map(\.performer.description) == ["Shared@a", "Shared@b", "Shared@c"])
        f.scheduler.advanceFrame(to: 0)
        try f.commit([("Stop", "b")])
        #expect(f.scheduler.tokenHolders.map(\.performer.description) == ["Shared@a", "Shared@c"])
        f.scheduler.advanceFrame(to: 1)
        try f.commit([("Stop", "a"), ("Stop", "c")])
        #expect(!f.scheduler.isActive)
        f.scheduler.advanceFrame(to: 2)
        #expect(f.recorder.log.filter { $0.hasPrefix("update") } == ["update a b c @0", "update a c @1"])
        // Ending a member's token twice fails and changes nothing (R33); another member's id is not its own.
        try f.commit([("Go", "a"), ("Go", "b")])
        let a = f.member("a")!
        let b = f.member("b")!
        let bToken = f.recorder.tokens[b]![0]
        #expect(throws: TokenError.self) { try f.recorder.generators[a]!.terminate(tokenID: bToken) }
        #expect(f.scheduler.outstandingTokenCount == 2)
    }

    @Test func namedPlansOfMembersAreRemovedFromTheMemberThatHoldsThem() throws {  // R13, R16, R19
        let f = Fixture()
        var transaction = Transaction()
        transaction.add(Plan(type: "Mark"), named: "n", to: "a")
        transaction.add(Plan(type: "Mark"), named: "n", to: "b")
        transaction.add(Plan(type: "Go"), named: "n", to: "a")
        transaction.removePlan(named: "n", from: "b")
        try f.scheduler.commit(transaction)
        #expect(
            f.recorder.log == [
                "make a 100", "add named n a Mark", "make b 110", "add named n b Mark", "remove named n a", "add named n a Go",
                "remove named n b",
            ])
    }

    @Test func aMemberThatCannotBeMadeFailsTheCommitAndLeavesNoMember() throws {  // R12
        let f = Fixture()
        try f.commit([("Mark", "a")])
        f.recorder.refusesMembers = true
        #expect(throws: CommitError.self) { try f.commit([("Mark", "a"), ("Mark", "b")]) }
        do {
            try f.commit([("Mark", "b")])
        } catch let error as CommitError {
            #expect(error.code == .performerUnavailable)
            #expect(error.message.contains("no members today"))
            #expect(error.target == "b")
        }
        #expect(f.member("b") == nil)
        #expect(f.scheduler.performerCount == 1)
        // A plan the member refuses fails its operation; the member stays.
        f.recorder.refusesMembers = false
        #expect(throws: CommitError.self) { try f.commit([("Refuse", "a")]) }
        #expect(f.member("a") == 100)
    }

    @Test func aSchedulerGoingDestroysItsOwnMembersOnlyEachOnce() throws {  // R37, R42
        let recorder = Recorder()
        let registry = InProcessRegistry()
        registry.registerMembers(planTypes: ["Go", "Mark"], className: "Shared", sharedPerformer: { _ in recorder })
        let kept = Scheduler(scene: Scene(targets: ["k"]), registry: registry)
        var transaction = Transaction()
        transaction.add(Plan(type: "Mark"), to: "k")
        try kept.commit(transaction)
        var going: Scheduler? = Scheduler(scene: Scene(targets: ["a", "b"]), registry: registry)
        weak let weakGoing = going
        transaction = Transaction()
        transaction.add(Plan(type: "Go"), to: "a")
        transaction.add(Plan(type: "Mark"), to: "b")
        try going!.commit(transaction)
        #expect(going!.isActive)
        going = nil
        #expect(weakGoing == nil)
        #expect(recorder.destroyed == [110, 120])
        #expect(recorder.targets == [100: "k"])
        // The other scheduler's member still gets its plans.
        transaction = Transaction()
        transaction.add(Plan(type: "Mark"), to: "k")
        try kept.commit(transaction)
        #expect(recorder.log.last == "add k Mark")
    }

    @Test func recreatingMakesNewMembersDestroysTheOldOnesAndGivesThemTheirPlansAgain() throws {  // R43
        let f = Fixture()
        f.scheduler.recordsPlansForRecreation = true
        var transaction = Transaction()
        transaction.add(Plan(type: "Go"), to: "a")
        transaction.add(Plan(type: "Mark"), named: "n", to: "b")
        transaction.add(Plan(type: "Plain"), to: "c")
        try f.scheduler.commit(transaction)
        let oldToken = f.recorder.tokens[100]![0]
        f.recorder.log.removeAll()
        f.tracer.lines.removeAll()
        let result = try f.scheduler.recreatePerformers(of: [f.sharedClass])
        #expect(result.recreated.map(\.description) == ["Shared@a", "Shared@b"])
        #expect(result.readdedPlanCount == 2)
        #expect(result.failures.isEmpty)
        // New members first (the old one kept until its successor exists), the old ones destroyed before any plan is
        // given again, in creation order.
        #expect(
            f.recorder.log == [
                "make a 120", "make b 130", "destroy a 100", "destroy b 110", "add a Go", "add named n b Mark",
            ])
        #expect(f.tracer.lines.contains("token \(oldToken) terminated Shared@a"))
        #expect(f.member("a") == 120)
        #expect(f.member("b") == 130)
        // The new member holds the one token (its own), the old one's generator takes none any more.
        #expect(f.scheduler.tokenHolders.map(\.performer.description) == ["Shared@a"])
        #expect(f.scheduler.outstandingTokenCount == 1)
        #expect(f.recorder.generators[100]!.generateID() == nil)
        // The plain performer was not re-created; later plans reach the new members.
        #expect(f.scheduler.performerCount == 3)
        try f.commit([("Stop", "a")])
        #expect(f.recorder.log.last == "add a Stop")
        #expect(!f.scheduler.isActive)
    }
}
