import MotionTesting
import Testing

@testable import MotionCore

/// The scheduler's per-performer record (issue 12's memory per running Tween): its size, and that the first token's
/// object it holds in one word is let go of exactly when the token ends or the scheduler goes.
@Suite("Performer records")
struct PerformerRecordTests {
    /// Takes a token object on "Hold" (keeping it only when asked) and ends it on "Release".
    final class TokenObjectPerformer: ContinuousPerforming {
        var generator: IsActiveTokenGenerator?
        var keepsToken = true
        var token: IsActiveToken?
        weak var lastToken: IsActiveToken?
        func setIsActiveTokenGenerator(_ generator: IsActiveTokenGenerator) { self.generator = generator }
        func addPlan(_ plan: Plan) throws {
            if plan.type == "Release" {
                try token?.terminate()
                token = nil
                return
            }
            let taken = generator?.generate()
            lastToken = taken
            if keepsToken { token = taken }
        }
    }

    static func makeScheduler(keepsToken: Bool = true) -> Scheduler {
        let registry = InProcessRegistry()
        registry.register(planTypes: ["Hold", "Release"], className: "TokenObjectPerformer") { _ in
            let performer = TokenObjectPerformer()
            performer.keepsToken = keepsToken
            return performer
        }
        return Scheduler(scene: Scene(targets: ["a"]), registry: registry)
    }

    static func performer(of scheduler: Scheduler) throws -> TokenObjectPerformer {
        try #require(scheduler.performer(forTarget: "a", className: "TokenObjectPerformer") as? TokenObjectPerformer)
    }

    @Test func aPerformersRecordIs48Bytes() {
        // 72 before its target and class became indices, its first token one word and its frame handle read again.
        #expect(Scheduler.performerRecordStride == 48)
    }

    @Test func aFirstTokensObjectIsLetGoOfWhenItEnds() throws {
        let scheduler = Self.makeScheduler()
        try scheduler.commit(Transaction([.add(Plan(type: "Hold"), target: "a")]))
        let performer = try Self.performer(of: scheduler)
        #expect(performer.lastToken != nil)
        try scheduler.commit(Transaction([.add(Plan(type: "Release"), target: "a")]))
        #expect(!scheduler.isActive)
        // The performer dropped its reference: no other holds the object.
        #expect(performer.lastToken == nil)
    }

    @Test func aFirstTokensObjectThatOnlyTheSchedulerHoldsLivesUntilTheSchedulerGoes() throws {
        weak var token: IsActiveToken?
        do {
            let scheduler = Self.makeScheduler(keepsToken: false)
            try scheduler.commit(Transaction([.add(Plan(type: "Hold"), target: "a")]))
            token = try Self.performer(of: scheduler).lastToken
            // The record's word holds the only reference: the token is alive, outstanding, and found by its id.
            #expect(token?.isTerminated == false)
            #expect(scheduler.outstandingTokenCount == 1)
            #expect(token.map { scheduler.tokenHolders.count == 1 && $0.id != 0 } == true)
        }
        // R37: ended when the scheduler went, then let go of.
        #expect(token == nil)
    }

    @Test func aSchedulerThatGoesLetsGoOfItsPerformersFirstTokenObjects() throws {
        weak var token: IsActiveToken?
        weak var performer: TokenObjectPerformer?
        do {
            let scheduler = Self.makeScheduler()
            try scheduler.commit(Transaction([.add(Plan(type: "Hold"), target: "a")]))
            performer = try Self.performer(of: scheduler)
            token = performer?.token
            #expect(token != nil)
        }
        // R37 ended it; the record's reference went with the scheduler, the performer's with the performer.
        #expect(performer == nil)
        #expect(token == nil)
    }
}

/// The scheduler finds what a performer conforms to once per performer type, not once per class: a class's factory may
/// make performers of different types, and each must get its own answers (R11 for the emitter and the token
/// generator, R13 for named plans).
@Suite("Performer conformances")
struct PerformerConformanceTests {
    /// Performs named plans and takes a token generator, but has no emitter.
    final class NamedContinuousPerformer: NamedPlanPerforming, ContinuousPerforming {
        var generator: IsActiveTokenGenerator?
        var names: [String] = []
        func setIsActiveTokenGenerator(_ generator: IsActiveTokenGenerator) { self.generator = generator }
        func addPlan(_ plan: Plan) throws {}
        func addPlan(_ plan: Plan, named name: String) throws { names.append(name) }
        func removePlan(named name: String) throws { names.removeAll { $0 == name } }
    }

    /// Takes an emitter only: no named plans, no tokens.
    final class ComposableOnlyPerformer: ComposablePerforming {
        var emitter: TransactionEmitter?
        var plans = 0
        func setEmitter(_ emitter: TransactionEmitter) { self.emitter = emitter }
        func addPlan(_ plan: Plan) throws { plans += 1 }
    }

    /// One class whose factory makes a `NamedContinuousPerformer` for target "named" and a `ComposableOnlyPerformer`
    /// for any other; the targets are made in `order`.
    @Test(arguments: [["named", "plain"], ["plain", "named"]])
    func performersOfOneClassWithTwoTypesEachGetTheirOwnTypesConformances(order: [String]) throws {
        let registry = InProcessRegistry()
        registry.register(planTypes: ["Mixed"], className: "Mixed") { context -> any Performer in
            context.target.id.name == "named" ? NamedContinuousPerformer() : ComposableOnlyPerformer()
        }
        let scheduler = Scheduler(scene: Scene(targets: ["named", "plain"]), registry: registry)
        for target in order { try scheduler.commit(Transaction([.add(Plan(type: "Mixed"), target: TargetID(target))])) }

        let named = try #require(scheduler.performer(forTarget: "named", className: "Mixed") as? NamedContinuousPerformer)
        let plain = try #require(scheduler.performer(forTarget: "plain", className: "Mixed") as? ComposableOnlyPerformer)
        #expect(named.generator != nil)
        #expect(plain.emitter != nil)
        #expect(plain.plans == 1)

        try scheduler.commit(Transaction([.addNamed(Plan(type: "Mixed"), name: "x", target: "named")]))
        #expect(named.names == ["x"])
        try scheduler.commit(Transaction([.removeNamed(name: "x", target: "named")]))
        #expect(named.names == [])
        let error = #expect(throws: CommitError.self) {
            try scheduler.commit(Transaction([.addNamed(Plan(type: "Mixed"), name: "y", target: "plain")]))
        }
        #expect(error?.code == .unsupportedOperation)
        #expect(plain.plans == 1)
    }
}

/// A generic performer whose specialisations conform differently: each has its own metadata, so its own key in the
/// scheduler's conformance cache (``ObjectIdentifier`` of the dynamic type).
@Suite("Performer conformances of generic specialisations")
struct GenericPerformerConformanceTests {
    final class Box<Value>: Performer {
        var generator: IsActiveTokenGenerator?
        var plans = 0
        func addPlan(_ plan: Plan) throws { plans += 1 }
    }

    @Test(arguments: [["int", "string"], ["string", "int"]])
    func eachSpecialisationGetsItsOwnConformances(order: [String]) throws {
        let registry = InProcessRegistry()
        registry.register(planTypes: ["Box"], className: "Box") { context -> any Performer in
            context.target.id.name == "int" ? Box<Int>() : Box<String>()
        }
        let scheduler = Scheduler(scene: Scene(targets: ["int", "string"]), registry: registry)
        for target in order { try scheduler.commit(Transaction([.add(Plan(type: "Box"), target: TargetID(target))])) }
        let int = try #require(scheduler.performer(forTarget: "int", className: "Box") as? Box<Int>)
        let string = try #require(scheduler.performer(forTarget: "string", className: "Box") as? Box<String>)
        // Only Box<Int> takes tokens (the conditional conformance below).
        #expect(int.generator != nil)
        #expect(string.generator == nil)
        #expect(int.plans == 1 && string.plans == 1)
    }
}

extension GenericPerformerConformanceTests.Box: ContinuousPerforming where Value == Int {
    func setIsActiveTokenGenerator(_ generator: IsActiveTokenGenerator) { self.generator = generator }
}
