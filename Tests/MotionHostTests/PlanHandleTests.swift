import CMotionABI
import Foundation
import MotionCore
import Testing

@testable import MotionHost

/// ABI 1.4's plans by handle (`motion/plans.h`): the host's `motion.plans/1` reads the plan it is handing over
/// from the fields it holds, by a layout resolved once, and never trusts a handle or layout it did not give.
@Suite struct PlanHandleTests {
    let plans = HostInterface.plansExtension.pointee
    let plan = Plan(
        type: "Tween",
        fields: [
            "property": "opacity", "to": [0.25, 1], "duration": 0.5, "on": true, "nothing": .null,
            "nested": .object(["a": 1]), "long": .array([1, 2, 3, 4, 5]), "words": .array(["a"]),
            "name": .string(String(repeating: "é", count: 40)),
        ])

    /// A layout of `names` from the host.
    func layout(_ names: [String]) -> motion_plan_layout {
        let copies = names.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        return copies.map { UnsafePointer($0) }.withUnsafeBufferPointer { plans.layout($0.baseAddress, $0.count) }
    }

    /// A string field's text.
    func text(_ field: motion_plan_field) -> String? {
        guard field.kind == MOTION_PLAN_FIELD_STRING, let text = field.text else { return nil }
        return text.withMemoryRebound(to: UInt8.self, capacity: field.length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: field.length), as: UTF8.self)
        }
    }

    @Test func theHostOffersItsPlansExtension() throws {
        let getExtension = try #require(HostInterface.table.pointee.get_extension)
        let raw = try #require(MOTION_HOST_EXTENSION_PLANS.withCString { getExtension($0) })
        let offered = raw.assumingMemoryBound(to: motion_plans_v1.self)
        #expect(Int(offered.pointee.struct_size) == MemoryLayout<motion_plans_v1>.size)
        #expect(offered.pointee.layout != nil && offered.pointee.read != nil && offered.pointee.json != nil)
        #expect(MOTION_ABI_VERSION_MINOR >= 4)
    }

    @Test func readGivesEachFieldOfTheLayoutInItsOrderWithItsKind() throws {
        let names = ["to", "type", "missing", "duration", "on", "nothing", "nested", "long", "words", "property", "name"]
        let layout = layout(names)
        #expect(layout >= 0)
        var fields = [motion_plan_field](repeating: motion_plan_field(), count: names.count)
        let status = PlansInFlight.withHandle(plan) { handle in plans.read(handle, layout, &fields, names.count) }
        #expect(status == MOTION_OK)
        #expect(fields[0].kind == MOTION_PLAN_FIELD_NUMBERS && fields[0].count == 2)
        #expect(fields[0].values.0 == 0.25 && fields[0].values.1 == 1 && fields[0].values.2 == 0)
        #expect(text(fields[1]) == "Tween")
        #expect(fields[2].kind == MOTION_PLAN_FIELD_ABSENT && fields[2].text == nil)
        #expect(fields[3].kind == MOTION_PLAN_FIELD_NUMBER && fields[3].values.0 == 0.5 && fields[3].count == 1)
        #expect(fields[4].kind == MOTION_PLAN_FIELD_BOOLEAN && fields[4].values.0 == 1)
        #expect(fields[5].kind == MOTION_PLAN_FIELD_NULL)
        // An object, more than 4 numbers, and an array of strings are for motion_plans_v1.json.
        #expect(fields[6].kind == MOTION_PLAN_FIELD_OTHER && fields[7].kind == MOTION_PLAN_FIELD_OTHER)
        #expect(fields[8].kind == MOTION_PLAN_FIELD_OTHER && fields[8].count == 0)
        #expect(text(fields[9]) == "opacity")
        #expect(text(fields[10]) == String(repeating: "é", count: 40) && fields[10].length == 80)
    }

    @Test func jsonIsTheJSONAddPlanWouldHaveHad() throws {
        var expected: [UInt8] = []
        try plan.writeJSON(into: &expected)
        var buffer = [CChar](repeating: 0, count: 1024)
        var length = 0
        let (small, smallLength, status) = PlansInFlight.withHandle(plan) { handle in
            var tooSmallLength = 0
            let small = plans.json(handle, &buffer, 8, &tooSmallLength)
            return (small, tooSmallLength, plans.json(handle, &buffer, buffer.count, &length))
        }
        #expect(small == MOTION_ERR_BUFFER_TOO_SMALL && smallLength == expected.count)
        #expect(status == MOTION_OK && length == expected.count)
        #expect(buffer.prefix(length).map { UInt8(bitPattern: $0) } == expected && buffer[length] == 0)
    }

    @Test func theJSONBufferStandsForThePlanInThePlanFieldFunctionsUntilTheCallReturns() throws {
        let host = HostInterface.table.pointee
        var buffer = [CChar](repeating: 0, count: 1024)
        var length = 0
        var duration = 0.0
        let (inCall, afterBlanking) = PlansInFlight.withHandle(plan) { handle in
            #expect(plans.json(handle, &buffer, buffer.count, &length) == MOTION_OK)
            let inCall = host.plan_number(buffer, length, "duration", &duration)
            // Answered from the fields the host holds, not by parsing the buffer: blank JSON answers the same.
            for i in 0..<length { buffer[i] = 0x20 }
            var again = 0.0
            let status = host.plan_number(buffer, length, "duration", &again)
            return (inCall, status == MOTION_OK && again == 0.5)
        }
        #expect(inCall == MOTION_OK && duration == 0.5)
        #expect(afterBlanking)
        // Once the call has returned, the buffer is only text again (blank: not a JSON object).
        #expect(host.plan_number(buffer, length, "duration", &duration) == MOTION_ERR_INVALID_PLAN)
    }

    @Test func aHandleOutsideItsCallOnAnotherThreadOrOfAnotherKindIsRefused() throws {
        let layout = layout(["type"])
        var field = motion_plan_field()
        var length = 0
        let stale = PlansInFlight.withHandle(plan) { $0 }
        #expect(plans.read(stale, layout, &field, 1) == MOTION_ERR_INVALID_ARGUMENT)
        #expect(plans.json(stale, nil, 0, &length) == MOTION_ERR_INVALID_ARGUMENT)
        // A plan in flight on this thread is not one on another.
        let elsewhere = PlansInFlight.withHandle(plan) { handle in
            let address = UInt(bitPattern: UnsafeRawPointer(handle))
            let read = plans.read
            let result = StatusBox()
            let done = DispatchSemaphore(value: 0)
            let thread = Thread {
                var field = motion_plan_field()
                result.status = read!(OpaquePointer(bitPattern: address), layout, &field, 1)
                done.signal()
            }
            thread.start()
            done.wait()
            return result.status
        }
        #expect(elsewhere == MOTION_ERR_INVALID_ARGUMENT)
        // The JSON buffer of a plan in flight is not a handle.
        let json = Array(#"{"type":"Tween"}"#.utf8CString)
        let byJSON = json.withUnsafeBufferPointer { chars in
            PlansInFlight.with(plan, bytes: UnsafeBufferPointer(rebasing: chars.dropLast())) {
                plans.read(OpaquePointer(chars.baseAddress!), layout, &field, 1)
            }
        }
        #expect(byJSON == MOTION_ERR_INVALID_ARGUMENT)
    }

    @Test func aHandleKeptFromAnEarlierCallIsRefusedDuringTheNextOne() throws {
        // The next plan's call runs at the same depth of the same thread: a handle kept from the one before
        // must not read it (plans.h: "also one whose call has returned").
        let layout = layout(["type"])
        let stale = PlansInFlight.withHandle(plan) { $0 }
        let next = Plan(type: "Spring", fields: [:])
        var field = motion_plan_field()
        let (staleStatus, ownStatus, ownType) = PlansInFlight.withHandle(next) { handle in
            let staleStatus = plans.read(stale, layout, &field, 1)
            var own = motion_plan_field()
            let ownStatus = plans.read(handle, layout, &own, 1)
            return (staleStatus, ownStatus, text(own))
        }
        #expect(staleStatus == MOTION_ERR_INVALID_ARGUMENT)
        #expect(field.kind == MOTION_PLAN_FIELD_ABSENT)
        #expect(ownStatus == MOTION_OK && ownType == "Spring")
    }

    @Test(arguments: [
        // Distinct short names (found by their bits), a long one (bits of two storages: compared byte for byte),
        // and a name given twice (every place of it filled).
        ["duration", "property", "aFieldWithALongName", "missing"],
        ["duration", "aFieldWithALongName", "duration", "property"],
    ])
    func readFindsEachGivenFieldAtEveryPlaceOfItsName(_ names: [String]) throws {
        let long = String(repeating: "aFieldWithALongName", count: 1)
        let plan = Plan(type: "Tween", fields: ["property": "opacity", "duration": 0.5, long: 2, "unread": true])
        let layout = layout(names)
        var fields = [motion_plan_field](repeating: motion_plan_field(), count: names.count)
        for i in fields.indices { fields[i].kind = 99 }
        let copied = PlansInFlight.withHandle(plan) { handle in
            plans.read(handle, layout, &fields, names.count) == MOTION_OK ? fields.map { self.copy($0) } : []
        }
        try #require(copied.count == names.count)
        for (i, name) in names.enumerated() {
            switch name {
            case "duration": #expect(copied[i].kind == MOTION_PLAN_FIELD_NUMBER && copied[i].values.0 == 0.5, "\(i)")
            case "property": #expect(text(copied[i]) == "opacity", "\(i)")
            case long: #expect(copied[i].kind == MOTION_PLAN_FIELD_NUMBER && copied[i].values.0 == 2, "\(i)")
            default: #expect(copied[i].kind == MOTION_PLAN_FIELD_ABSENT, "\(i)")
            }
        }
    }

    @Test func theTypeAndTheDefaultsFilledInAreReadForEachPlanLayoutAndSetOfDefaults() throws {
        // The host keeps a plan type's field and a set of defaults' fields per layout once made: each read must
        // still give this plan's own type and defaults, in this layout's places, and only the first `count`.
        let easeIn = PlanDefaults([(key: "timing", value: "easeIn"), (key: "delay", value: 0.25)])
        let linear = PlanDefaults([(key: "timing", value: "linear")])
        let tween = Plan(type: "Tween", fields: ["to": [1]], defaults: easeIn)
        let fade = Plan(type: "Fade", fields: ["to": [2], "delay": 0.5], defaults: linear)
        let full = layout(["type", "timing", "delay", "to"])
        let reordered = layout(["delay", "timing", "type"])
        func read(_ plan: Plan, _ layout: motion_plan_layout, count: Int) -> [motion_plan_field] {
            var fields = [motion_plan_field](repeating: motion_plan_field(), count: 4)
            for i in fields.indices { fields[i].kind = 99 }
            let copied = PlansInFlight.withHandle(plan) { handle in
                plans.read(handle, layout, &fields, count) == MOTION_OK ? fields.map { self.copy($0) } : []
            }
            #expect(copied.count == 4)
            return copied
        }
        for _ in 0..<2 {
            let a = read(tween, full, count: 4)
            #expect(text(a[0]) == "Tween" && text(a[1]) == "easeIn" && a[2].values.0 == 0.25 && a[3].values.0 == 1)
            let b = read(fade, full, count: 4)
            #expect(text(b[0]) == "Fade" && text(b[1]) == "linear" && b[2].values.0 == 0.5 && b[3].values.0 == 2)
            let c = read(tween, reordered, count: 3)
            #expect(c[0].values.0 == 0.25 && text(c[1]) == "easeIn" && text(c[2]) == "Tween" && c[3].kind == 99)
            let d = read(tween, full, count: 2)
            #expect(text(d[0]) == "Tween" && text(d[1]) == "easeIn" && d[2].kind == 99 && d[3].kind == 99)
        }
    }

    /// A field with its text copied, so that it can be read after the plan's call returned.
    func copy(_ field: motion_plan_field) -> motion_plan_field {
        guard let text = text(field) else { return field }
        var copy = field
        copy.text = UnsafePointer(strdup(text))  // leaked: a test's few bytes
        return copy
    }

    @Test func aBadLayoutOrCountIsRefusedAndWritesNothing() throws {
        #expect(layout([]) == MOTION_ERR_INVALID_ARGUMENT)
        #expect(layout(["to", ""]) == MOTION_ERR_INVALID_ARGUMENT)
        #expect(plans.layout(nil, 1) == MOTION_ERR_INVALID_ARGUMENT)
        #expect(layout(Array(repeating: "x", count: Int(MOTION_PLAN_LAYOUT_MAX_FIELDS) + 1)) == MOTION_ERR_INVALID_ARGUMENT)
        let two = layout(["type", "to"])
        var fields = [motion_plan_field](repeating: motion_plan_field(), count: 3)
        fields[0].kind = 99
        let statuses = PlansInFlight.withHandle(plan) { handle in
            [
                plans.read(handle, two, &fields, 3),  // more than the layout's names
                plans.read(handle, two, &fields, 0),
                plans.read(handle, 1_000_000, &fields, 1),  // a layout never made
                plans.read(handle, -1, &fields, 1),
                plans.read(handle, two, nil, 1),
                plans.read(nil, two, &fields, 1),
            ]
        }
        #expect(statuses.allSatisfy { $0 == MOTION_ERR_INVALID_ARGUMENT })
        #expect(fields[0].kind == 99)
        // The first `count` names may be read alone.
        let first = PlansInFlight.withHandle(plan) { handle in plans.read(handle, two, &fields, 1) }
        #expect(first == MOTION_OK && text(fields[0]) == "Tween")
    }
}

/// A status written by one thread and read by another after a semaphore (which orders the two).
private final class StatusBox: @unchecked Sendable {
    var status: motion_status = MOTION_OK
}
