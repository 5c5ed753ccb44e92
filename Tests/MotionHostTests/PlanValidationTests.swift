import Foundation
import MotionCore
import Testing

@testable import MotionHost

/// One bad Tween plan: its fields and the exact line the error must print.
struct BadPlan: Sendable, CustomTestStringConvertible {
    var fields: [String: JSONValue]
    var expected: String
    var code: PlanValidationError.Code

    init(_ fields: [String: JSONValue], _ expected: String, _ code: PlanValidationError.Code) {
        self.fields = fields
        self.expected = expected
        self.code = code
    }

    var testDescription: String { expected }
}

private let base: [String: JSONValue] = ["property": "opacity", "to": [1]]

private func with(_ changes: [String: JSONValue?]) -> [String: JSONValue] {
    var fields = base
    for (key, value) in changes { fields[key] = value }
    return fields
}

@Suite struct PlanValidationTests {
    let tween = Fixtures.tweenDeclaration

    static let badPlans: [BadPlan] = [
        BadPlan(
            with(["duration": -1]),
            "plan type \"Tween\": field \"duration\": expected a number in 0...3600 (s), found -1",
            .outOfRange),
        BadPlan(
            with(["duration": 4000.5]),
            "plan type \"Tween\": field \"duration\": expected a number in 0...3600 (s), found 4000.5", .outOfRange),
        BadPlan(
            with(["duration": "fast"]),
            "plan type \"Tween\": field \"duration\": expected a number in 0...3600 (s), found \"fast\"", .wrongType),
        BadPlan(
            base.merging(["duration": .null]) { $1 },
            "plan type \"Tween\": field \"duration\": expected a number in 0...3600 (s), found null", .wrongType),
        BadPlan(
            with(["repeats": 2.5]), "plan type \"Tween\": field \"repeats\": expected an integer in 1...100, found 2.5",
            .wrongType),
        BadPlan(
            with(["repeats": 0]), "plan type \"Tween\": field \"repeats\": expected an integer in 1...100, found 0",
            .outOfRange),
        BadPlan(
            with(["repeats": "3"]),
            "plan type \"Tween\": field \"repeats\": expected an integer in 1...100, found \"3\"",
            .wrongType),
        BadPlan(
            with(["property": 3]), "plan type \"Tween\": field \"property\": expected a string, found 3", .wrongType),
        BadPlan(
            with(["timing": "bounce"]),
            "plan type \"Tween\": field \"timing\": expected one of \"linear\", \"easeIn\", \"easeOut\", \"easeInOut\", found \"bounce\"",
            .notAllowed),
        BadPlan(
            with(["timing": true]),
            "plan type \"Tween\": field \"timing\": expected one of \"linear\", \"easeIn\", \"easeOut\", \"easeInOut\", found true",
            .wrongType),
        BadPlan(
            with(["to": []]), "plan type \"Tween\": field \"to\": expected a vector of 1...4 numbers, found []",
            .wrongItemCount),
        BadPlan(
            with(["to": [1, 2, 3, 4, 5]]),
            "plan type \"Tween\": field \"to\": expected a vector of 1...4 numbers, found [1, 2, 3, 4, 5]",
            .wrongItemCount),
        BadPlan(
            with(["to": [1, "2"]]),
            "plan type \"Tween\": field \"to\": expected a vector of 1...4 numbers, found [1, \"2\"]",
            .wrongType),
        BadPlan(
            with(["to": 1]), "plan type \"Tween\": field \"to\": expected a vector of 1...4 numbers, found 1",
            .wrongType),
        BadPlan(
            with(["transaction": [1]]), "plan type \"Tween\": field \"transaction\": expected an object, found [1]",
            .wrongType),
        BadPlan(
            ["to": [1]], "plan type \"Tween\": field \"property\": expected a string (required), found no value",
            .missingField),
        BadPlan(
            ["property": "opacity"],
            "plan type \"Tween\": field \"to\": expected a vector of 1...4 numbers (required), found no value",
            .missingField),
        BadPlan(
            with(["durtion": 1]),
            "plan type \"Tween\": field \"durtion\": expected one of the declared fields (property, to, duration, timing, repeats, transaction), found an unknown field (did you mean \"duration\"?)",
            .unknownField),
        BadPlan(
            with(["color": "red"]),
            "plan type \"Tween\": field \"color\": expected one of the declared fields (property, to, duration, timing, repeats, transaction), found an unknown field",
            .unknownField),
    ]

    @Test(arguments: badPlans)
    func badPlanIsRejectedWithPlanTypeFieldExpectationAndValue(_ bad: BadPlan) throws {
        let error = try #require(throws: PlanValidationError.self) {
            try tween.validate(Plan(type: "Tween", fields: bad.fields))
        }
        #expect(error.description == bad.expected)
        #expect(error.code == bad.code)
        #expect(error.planType == "Tween")
    }

    @Test func absentOptionalFieldsGetTheirDefaults() throws {
        let plan = try tween.validate(Plan(type: "Tween", fields: ["property": "opacity", "to": [0.5]]))
        #expect(
            plan.fields == [
                "property": "opacity", "to": [0.5], "duration": 0.3, "timing": "easeInOut", "repeats": 1,
            ])
        #expect(plan["transaction"] == nil)
    }

    @Test func givenFieldsAreKeptOverDefaults() throws {
        let plan = try tween.validate(
            Plan(
                type: "Tween",
                fields: ["property": "x", "to": [1, 2], "duration": 2, "timing": "linear", "repeats": 3]))
        #expect(plan["duration"] == 2)
        #expect(plan["timing"] == "linear")
        #expect(plan["repeats"] == 3)
    }

    @Test func aDeclarationWithManyDefaultedFieldsFillsEachLeftOutOne() throws {
        // Beyond 6 defaulted fields the defaults are made per plan, not ahead for every set of left-out fields.
        let fields = (0..<8).map { FieldManifest(name: "f\($0)", type: .number, defaultValue: .number(Double($0))) }
        let declaration = PlanManifest(type: "Many", fields: fields + [FieldManifest(name: "p", type: .property, required: true)])
        let plan = try declaration.validate(Plan(type: "Many", fields: ["p": "x", "f3": 30]))
        var expected: [String: JSONValue] = ["p": "x"]
        for i in 0..<8 { expected["f\(i)"] = .number(i == 3 ? 30 : Double(i)) }
        #expect(plan.fields == expected)
        #expect(plan["f7"] == 7)
    }

    @Test func completePlanIsReturnedUnchanged() throws {
        let fields: [String: JSONValue] = [
            "property": "x", "to": [1], "duration": 1, "timing": "easeIn", "repeats": 2,
            "transaction": ["operations": []],
        ]
        let plan = try tween.validate(Plan(type: "Tween", fields: fields))
        #expect(plan.fields == fields)
    }

    @Test func vectorItemsRespectTheRange() throws {
        let field = FieldManifest(name: "color", type: .vector, minimum: 0, maximum: 1, minItems: 3, maxItems: 4)
        let declaration = PlanManifest(type: "Tint", fields: [field])
        #expect(throws: Never.self) { try declaration.validate(Plan(type: "Tint", fields: ["color": [0, 0.5, 1]])) }
        let error = try #require(throws: PlanValidationError.self) {
            try declaration.validate(Plan(type: "Tint", fields: ["color": [0, 2, 1]]))
        }
        #expect(
            error.description
                == "plan type \"Tint\": field \"color\": expected a vector of 3...4 numbers each in 0...1, found [0, 2, 1]"
        )
        #expect(error.code == .outOfRange)
    }

    @Test func arrayFieldChecksItemCountOnly() throws {
        let declaration = PlanManifest(type: "Path", fields: [FieldManifest(name: "points", type: .array, minItems: 2)])
        #expect(throws: Never.self) {
            try declaration.validate(Plan(type: "Path", fields: ["points": [[0, 0], "x"]]))
        }
        let error = try #require(throws: PlanValidationError.self) {
            try declaration.validate(Plan(type: "Path", fields: ["points": [1]]))
        }
        #expect(
            error.description
                == "plan type \"Path\": field \"points\": expected an array of at least 2 items, found [1]")
    }

    @Test func booleanField() throws {
        let declaration = PlanManifest(
            type: "Show", fields: [FieldManifest(name: "visible", type: .boolean, required: true)])
        #expect(throws: Never.self) { try declaration.validate(Plan(type: "Show", fields: ["visible": false])) }
        let error = try #require(throws: PlanValidationError.self) {
            try declaration.validate(Plan(type: "Show", fields: ["visible": 0]))
        }
        #expect(error.description == "plan type \"Show\": field \"visible\": expected a boolean, found 0")
    }

    @Test func planOfAnotherTypeIsRejected() throws {
        let error = try #require(throws: PlanValidationError.self) {
            try tween.validate(Plan(type: "FadeIn", fields: [:]))
        }
        #expect(error.code == .wrongPlanType)
        #expect(error.description == "plan type \"FadeIn\": expected plan type \"Tween\", found \"FadeIn\"")
    }

    @Test func typedPlansAreValidatedThroughTheirFields() throws {
        struct Tween: PlanValue {
            static let planType = "Tween"
            var property: String
            var to: [Double]
            var duration: Double
        }
        let ok = try tween.validate(Plan(Tween(property: "x", to: [1], duration: 1)))
        #expect(ok["timing"] == "easeInOut")
        let error = try #require(throws: PlanValidationError.self) {
            try tween.validate(Plan(Tween(property: "x", to: [1], duration: -2)))
        }
        #expect(error.field == "duration")
    }

    @Test func manyFieldsUseTheIndex() throws {
        let fields = (0..<70).map { FieldManifest(name: "f\($0)", type: .number, defaultValue: .number(Double($0))) }
        let declaration = PlanManifest(type: "Wide", fields: fields)
        let plan = try declaration.validate(Plan(type: "Wide", fields: ["f69": 1, "f3": 2]))
        #expect(plan.fields.count == 70)
        #expect(plan["f69"] == 1)
        #expect(plan["f68"] == 68)
        #expect(plan["f3"] == 2)
    }
}
