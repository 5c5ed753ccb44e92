import MotionCore
import MotionTesting
import Testing

@Suite("Named plans")
struct NamedPlanTests {
    @Test func firstNamedAddDeliversOneAddAndNoRemove() throws {  // R13
        let h = Harness()
        try h.commit { $0.add(plan("Record"), named: "drag", to: "a") }
        #expect(h.log.entries(startingWith: "addNamed ") == [#"addNamed RecordingPerformer@a drag {"type":"Record"}"#])
        #expect(h.log.entries(startingWith: "removeNamed ").isEmpty)
    }

    @Test func addThenRemoveDeliversAddThenRemove() throws {  // R14
        let h = Harness()
        try h.commit {
            $0.add(plan("Record"), named: "drag", to: "a")
            $0.removePlan(named: "drag", from: "a")
        }
        #expect(
            h.calls.suffix(2) == [
                #"addNamed RecordingPerformer@a drag {"type":"Record"}"#, "removeNamed RecordingPerformer@a drag",
            ])
    }

    @Test func removingANameNeverAddedDoesNothing() throws {  // R15
        let h = Harness()
        h.tracer.reset()
        try h.commit { $0.removePlan(named: "ghost", from: "a") }
        #expect(h.calls.isEmpty)
        #expect(h.scheduler.performerDescriptions.isEmpty)
        #expect(h.tracer.lines.count == 1)  // only the commit itself
        #expect(h.tracer.lines.first?.hasPrefix("commit") == true)
    }

    @Test func reAddingANameRemovesThenAdds() throws {  // R16
        let h = Harness()
        try h.commit { $0.add(plan("Record", ["n": 1]), named: "x", to: "a") }
        try h.commit { $0.add(plan("Record", ["n": 2]), named: "x", to: "a") }
        #expect(
            h.calls.filter { $0.contains("Named") } == [
                #"addNamed RecordingPerformer@a x {"n":1,"type":"Record"}"#,
                "removeNamed RecordingPerformer@a x",
                #"addNamed RecordingPerformer@a x {"n":2,"type":"Record"}"#,
            ])
    }

    @Test func reusingANameForAnotherPerformerTypeRemovesFromTheOldAndAddsToTheNew() throws {  // R17
        let h = Harness()
        try h.commit { $0.add(plan("Record"), named: "x", to: "a") }
        try h.commit { $0.add(plan("RecordOther"), named: "x", to: "a") }
        #expect(
            h.calls.filter { $0.contains("Named") } == [
                #"addNamed RecordingPerformer@a x {"type":"Record"}"#,
                "removeNamed RecordingPerformer@a x",
                #"addNamed OtherRecordingPerformer@a x {"type":"RecordOther"}"#,
            ])
    }

    @Test func namesAreExactAndCaseSensitive() throws {  // R18
        let h = Harness()
        try h.commit { t in for name in ["one", "One", "ONE", "1"] { t.add(plan("Record"), named: name, to: "a") } }
        #expect(h.log.entries(startingWith: "addNamed ").count == 4)
        #expect(h.log.entries(startingWith: "removeNamed ").isEmpty)
    }

    @Test func namesAreScopedPerTarget() throws {  // R19
        let h = Harness()
        try h.commit {
            $0.add(plan("Record"), named: "x", to: "a")
            $0.add(plan("Record"), named: "x", to: "b")
        }
        #expect(h.log.entries(startingWith: "removeNamed ").isEmpty)
        #expect(h.log.entries(startingWith: "addNamed ").count == 2)
    }

    @Test func regularAndNamedAddsCallOnlyTheirOwnMethod() throws {  // R20
        let h = Harness()
        try h.commit { $0.add(plan("Record"), to: "a") }
        #expect(h.log.entries(startingWith: "add ").count == 1)
        #expect(h.log.entries(startingWith: "addNamed ").isEmpty)
        try h.commit { $0.add(plan("Record"), named: "n", to: "a") }
        #expect(h.log.entries(startingWith: "add ").count == 1)
        #expect(h.log.entries(startingWith: "addNamed ").count == 1)
    }

    @Test(arguments: [true, false])
    func emptyNamesAreRejected(onAdd: Bool) {  // R21
        let h = Harness()
        #expect {
            try h.commit {
                if onAdd { $0.add(plan("Record"), named: "", to: "a") } else { $0.removePlan(named: "", from: "a") }
            }
        } throws: { error in
            (error as? CommitError)?.code == .emptyName
        }
        #expect(h.calls.isEmpty)
    }
}
