import MotionCore
import MotionTesting
import Testing

@Suite("Performers")
struct PerformerTests {
    @Test func twoPlansOfOnePerformerTypeShareOnePerformer() throws {  // R5
        let h = Harness()
        try h.commit {
            $0.add(plan("Record", ["n": 1]), to: "a")
            $0.add(plan("Record", ["n": 2]), to: "a")
        }
        #expect(h.log.entries(startingWith: "create ") == ["create RecordingPerformer@a"])
        #expect(h.log.entries(startingWith: "add ").count == 2)
    }

    @Test func twoPerformerTypesOnOneTargetMakeTwoPerformers() throws {  // R6
        let h = Harness()
        try h.commit {
            $0.add(plan("Record"), to: "a")
            $0.add(plan("RecordOther"), to: "a")
        }
        #expect(
            h.log.entries(startingWith: "create ") == ["create RecordingPerformer@a", "create OtherRecordingPerformer@a"])
    }

    @Test func onePlanTypeOnTwoTargetsMakesOnePerformerPerTarget() throws {  // R7
        let h = Harness()
        try h.commit {
            $0.add(plan("Record"), to: "a")
            $0.add(plan("Record"), to: "b")
        }
        #expect(h.log.entries(startingWith: "create ") == ["create RecordingPerformer@a", "create RecordingPerformer@b"])
    }

    @Test func planTypesOfOneClassShareOnePerformer() throws {  // R8
        let h = Harness()
        try h.commit {
            $0.add(plan("Record"), to: "a")
            $0.add(plan("RecordToo"), to: "a")
        }
        #expect(h.log.entries(startingWith: "create ") == ["create RecordingPerformer@a"])
        #expect(
            h.log.entries(startingWith: "add ") == [
                #"add RecordingPerformer@a {"type":"Record"}"#, #"add RecordingPerformer@a {"type":"RecordToo"}"#,
            ])
    }

    @Test func everyPlanReachesThePerformerWhetherOrNotItExisted() throws {  // R9
        let h = Harness()
        try h.commit { $0.add(plan("Record", ["n": 1]), to: "a") }
        try h.commit { $0.add(plan("Record", ["n": 2]), to: "a") }
        #expect(
            h.log.entries(startingWith: "add ") == [
                #"add RecordingPerformer@a {"n":1,"type":"Record"}"#, #"add RecordingPerformer@a {"n":2,"type":"Record"}"#,
            ])
    }

    @Test func plansReachAPerformerInOrderAndTheLastValueWins() throws {  // R10
        let h = Harness()
        try h.commit {
            for v in [0.1, 0.7, 0.3] { $0.add(plan("SetValue", ["property": "opacity", "value": .number(v)]), to: "a") }
        }
        #expect(h.scene.target("a")?["opacity"] == 0.3)
    }

    @Test func emitterAndTokenGeneratorAreHandedOnceBeforeTheFirstPlan() throws {  // R11
        let h = Harness()
        try h.commit {
            $0.add(plan("Record", ["n": 1]), to: "a")
            $0.add(plan("Record", ["n": 2]), to: "a")
        }
        #expect(
            h.calls == [
                "create RecordingPerformer@a", "emitter RecordingPerformer@a", "tokens RecordingPerformer@a",
                #"add RecordingPerformer@a {"n":1,"type":"Record"}"#, #"add RecordingPerformer@a {"n":2,"type":"Record"}"#,
            ])
    }

    @Test func unknownPlanTypeFailsTheCommitKeepingEarlierOperations() throws {  // R12
        let h = Harness()
        var failure: CommitError?
        do {
            try h.commit {
                $0.add(plan("Record"), to: "a")
                $0.add(plan("Recrod"), to: "a")
                $0.add(plan("Record"), to: "b")
            }
        } catch { failure = error }
        let error = try #require(failure)
        #expect(error.code == .unknownPlanType)
        #expect(error.operationIndex == 1)
        #expect(error.appliedOperationCount == 1)
        #expect(error.target == "a")
        #expect(error.planType == "Recrod")
        #expect(error.description.contains(#"operation 1, target "a", plan type "Recrod""#))
        #expect(error.message.contains(#"did you mean "Record"?"#))
        #expect(h.log.entries(startingWith: "create ") == ["create RecordingPerformer@a"])
        // The scheduler stays usable.
        try h.commit { $0.add(plan("Record"), to: "b") }
        #expect(h.log.entries(startingWith: "create ").last == "create RecordingPerformer@b")
    }

    @Test func performerThatCannotBeCreatedFailsTheCommitNamingTheCause() throws {  // R12
        struct Refusal: Error, CustomStringConvertible { var description: String { "library failed to load" } }
        let h = Harness { log in
            let registry = TestPerformers.makeRegistry(log: log)
            registry.register(planTypes: ["Broken"], className: "BrokenPerformer") { _ in throw Refusal() }
            return registry
        }
        #expect {
            try h.commit { $0.add(plan("Broken"), to: "b") }
        } throws: { error in
            guard let error = error as? CommitError else { return false }
            return error.code == .performerUnavailable && error.planType == "Broken" && error.target == "b"
                && error.message.contains("library failed to load")
        }
        #expect(h.scheduler.performerDescriptions.isEmpty)
    }

    @Test func unknownTargetFailsTheCommit() {  // R12
        let h = Harness()
        #expect {
            try h.commit { $0.add(plan("Record"), to: "c") }
        } throws: { error in
            (error as? CommitError)?.code == .unknownTarget
                && (error as? CommitError)?.message.contains("Known targets: a, b") == true
        }
    }

    @Test func performerRefusingAPlanFailsTheCommit() {  // R12
        let h = Harness()
        #expect {
            try h.commit { $0.add(plan("SetValue", ["value": 1]), to: "a") }
        } throws: { error in
            (error as? CommitError)?.code == .performerRefused
                && (error as? CommitError)?.message.contains("SetValue needs a string \"property\"") == true
        }
    }
}
