import DeviceMotion
import MotionCore
import MotionTesting
import Testing

/// MotionTesting's exhaustive harness: it passes a test that accounts for everything, and records the
/// failures it promises (checked with `withKnownIssue`, which fails if the issue is not recorded).
@Suite struct SchedulerTestStoreTests {
    static let emitter = PerformerDescription(target: "a", className: "EmittingPerformer")
    static let holder = PerformerDescription(target: "a", className: "TokenPerformer")

    func makeStore() -> SchedulerTestStore {
        SchedulerTestStore(scene: Scene(targets: ["a", "b"]), registry: TestPerformers.makeRegistry(log: CallLog()))
    }

    /// An `Emit` plan on "a" whose transaction records `Record` on "b".
    let emitting = Plan(
        type: "Emit",
        fields: ["transaction": ["operations": [["op": "add", "target": "b", "plan": ["type": "Record"]]]]])
    var emitted: Transaction { Transaction([.add(Plan(type: "Record"), target: "b")]) }

    @Test func aTestThatAssertsEveryEmissionAndEndsIdlePasses() throws {
        let store = makeStore()
        try store.commit(Transaction([.add(emitting, target: "a")]))
        try store.commit(Transaction([.add(Plan(type: "HoldTokens", fields: ["count": 2, "terminateAfterFrames": 3]), target: "a")]))
        store.receiveEmitted(emitted, by: Self.emitter)
        #expect(store.scheduler.isActive)
        store.advance(by: .milliseconds(50))  // frames 0, 1, 2 and 3 (at 0.05 s): the third update ends the tokens
        #expect(!store.scheduler.isActive)
        #expect(store.unassertedEmissions.isEmpty)
        store.finish()
    }

    @Test func framesRunOnlyAsTheTestClockAdvancesAtTheFrameRate() throws {
        let log = CallLog()
        let clock = SimulatedClock()
        let store = SchedulerTestStore(
            scene: Scene(targets: ["a"]), registry: TestPerformers.makeRegistry(log: log), clock: clock, frameRate: 10)
        try store.commit(Transaction([.add(Plan(type: "HoldTokens", fields: ["count": 1, "terminateAfterFrames": 5]), target: "a")]))
        #expect(log.entries(startingWith: "update ").isEmpty)
        store.advance(by: .milliseconds(250))  // frames at 0, 0.1 and 0.2 s
        #expect(log.entries(startingWith: "update ") == ["update TokenPerformer@a 0", "update TokenPerformer@a 1", "update TokenPerformer@a 2"])
        #expect(clock.elapsedSeconds == 0.25)
        store.advance(by: .milliseconds(250))  // 0.3, 0.4: the fifth update ends the token
        #expect(!store.scheduler.isActive)
        store.finish()
    }

    @Test func aTestEndingWithAnUnassertedEmissionFailsNamingItsPerformer() throws {
        let store = makeStore()
        try store.commit(Transaction([.add(emitting, target: "a")]))
        withKnownIssue {
            store.finish()
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.hasPrefix("The test ended with 1 emitted transaction(s) not asserted: EmittingPerformer@a emitted ")
                && text.contains("\"Record\"") && text.contains("To fix, assert each with receiveEmitted(_:by:)")
        }
    }

    @Test func aTestEndingWithTokensHeldFailsNamingTheHolders() throws {
        let store = makeStore()
        try store.commit(Transaction([.add(Plan(type: "HoldTokens", fields: ["count": 2]), target: "a")]))
        store.advance(by: .seconds(1))
        withKnownIssue {
            store.finish()
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.hasPrefix("The test ended with is-active tokens still held: TokenPerformer@a holds 2. To fix, advance the clock")
        }
    }

    @Test func theChecksRunWhenTheStoreGoesAwayWithoutFinish() {
        withKnownIssue {
            let store = makeStore()
            #expect(throws: Never.self) {
                try store.commit(Transaction([.add(Plan(type: "HoldTokens", fields: ["count": 1]), target: "a")]))
            }
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().contains("is-active tokens still held: TokenPerformer@a holds 1")
        }
    }

    @Test func anEmissionAssertedWrongIsAFailureThatSaysWhatWasEmitted() throws {
        let store = makeStore()
        try store.commit(Transaction([.add(emitting, target: "a")]))
        withKnownIssue {
            store.receiveEmitted(Transaction([.add(Plan(type: "Record"), target: "a")]), by: Self.emitter)
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.hasPrefix("The transaction EmittingPerformer@a emitted does not match: ") && text.contains("\"b\"")
        }
        withKnownIssue {
            store.receiveEmitted(by: Self.holder)
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().hasPrefix("No emitted transaction is left to assert: TokenPerformer@a")
        }
        store.finish()
    }
}
