import MotionCore

/// Why a plan does not fit its plan type's declaration in a manifest.
///
/// Its ``description`` is one line naming the plan type, the field, what was expected (type, range,
/// unit, allowed values) and the value found, for example
/// `plan type "Tween": field "duration": expected a number in 0...3600 (s), found -1`.
public struct PlanValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem this is. A struct over a private enum, so codes can be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Sendable {
            case wrongPlanType, missingField, wrongType, outOfRange, notAllowed, wrongItemCount, unknownField
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The plan's type is not the declaration's.
        public static let wrongPlanType = Code(.wrongPlanType)
        /// A required field is absent.
        public static let missingField = Code(.missingField)
        /// A field's value has the wrong JSON type (or a fraction where an integer is expected).
        public static let wrongType = Code(.wrongType)
        /// A number (or a vector item) is outside `minimum...maximum`.
        public static let outOfRange = Code(.outOfRange)
        /// A value is not one of the field's `enum` values.
        public static let notAllowed = Code(.notAllowed)
        /// A vector or array has too few or too many items.
        public static let wrongItemCount = Code(.wrongItemCount)
        /// The plan has a field its type does not declare.
        public static let unknownField = Code(.unknownField)

        public var description: String { value.rawValue }
    }

    /// What kind of problem this is.
    public let code: Code
    /// The plan's type.
    public let planType: String
    /// The field concerned, if any.
    public let field: String?
    /// What the field should hold, e.g. `a number in 0...3600 (s)`.
    public let expected: String
    /// What the plan holds there, as compact JSON, or `no value`.
    public let found: String

    /// A plan validation error.
    public init(code: Code, planType: String, field: String?, expected: String, found: String) {
        self.code = code
        self.planType = planType
        self.field = field
        self.expected = expected
        self.found = found
    }

    /// What happened, without the plan type: `field "x": expected ..., found ...`.
    public var message: String {
        let head = field.map { "field \(JSONText.quoted($0, limit: 200)): " } ?? ""
        return "\(head)expected \(expected), found \(found)"
    }

    /// One line: `plan type "T": field "f": expected ..., found ...`.
    public var description: String {
        "plan type \(JSONText.quoted(planType, limit: 200)): \(message)"
    }
}

/// A plan declaration compiled once, when its manifest is read, so that checking a plan against it looks nothing up
/// by name beyond matching each given field to its declaration, copies no declaration and, on the common path,
/// allocates nothing: the defaults to fill in are made once per set of left-out fields and shared.
struct FieldLookup: Sendable {
    /// What checking a value of one field needs: plain values, copied with nothing to retain (its `enum`
    /// values, if any, are in ``enums``).
    struct Check: Sendable {
        let type: FieldType
        let minimum: Double?
        let maximum: Double?
        let itemRange: ClosedRange<Int>
        /// The field's `enum` values' index in ``enums``, or -1.
        let enumIndex: Int
    }

    /// Field index by name (used when there are more fields than a linear scan handles well).
    let index: [String: Int]
    /// The fields' names and their UTF-8 lengths, in manifest order (a length compare first rules most out).
    let names: [String]
    let nameLengths: [Int]
    /// Each field's check, in manifest order.
    let checks: [Check]
    /// The `enum` values of the fields that have them.
    let enums: [[JSONValue]]
    /// Indices of required fields.
    let required: [Int]
    /// Indices of optional fields that have a default.
    let defaulted: [Int]
    /// The defaults a plan gets, by which of ``defaulted`` it leaves out (bit j set: `defaulted[j]` is absent),
    /// made here when there are at most ``maximumDefaultedFields``; `nil` with more (then made per plan).
    let defaultSets: [PlanDefaults]?
    /// Indices of the fields of type `property`, in manifest order.
    let propertyFields: [Int]

    /// With up to 6 defaulted fields, all 64 sets of them are made up front.
    static let maximumDefaultedFields = 6

    init(_ fields: [FieldManifest]) {
        // Up to 8 fields are found by a linear scan (``PlanManifest/validate(_:)``), faster than hashing.
        var index: [String: Int] = [:]
        if fields.count > 8 {
            for (i, field) in fields.enumerated() where index[field.name] == nil { index[field.name] = i }
        }
        self.index = index
        names = fields.map(\.name)
        nameLengths = fields.map(\.name.utf8.count)
        var enums: [[JSONValue]] = []
        checks = fields.map {
            if let values = $0.enumValues { enums.append(values) }
            return Check(
                type: $0.type, minimum: $0.minimum, maximum: $0.maximum, itemRange: $0.itemRange,
                enumIndex: $0.enumValues == nil ? -1 : enums.count - 1)
        }
        self.enums = enums
        required = fields.indices.filter { fields[$0].required }
        let defaulted = fields.indices.filter { !fields[$0].required && fields[$0].defaultValue != nil }
        self.defaulted = defaulted
        propertyFields = fields.indices.filter { fields[$0].type == .property }
        if defaulted.count <= Self.maximumDefaultedFields {
            defaultSets = (0..<(1 << defaulted.count)).map { absent in
                PlanDefaults(
                    defaulted.indices.filter { absent & (1 << $0) != 0 }.map {
                        (key: fields[defaulted[$0]].name, value: fields[defaulted[$0]].defaultValue!)
                    })
            }
        } else {
            defaultSets = nil
        }
    }
}

extension PlanManifest {
    /// Checks a plan against this declaration and fills in defaults.
    ///
    /// Every field the plan gives must be declared and hold a value of the declared type
    /// (an `integer` is a number with no fraction; a `vector` holds `minItems...maxItems` numbers,
    /// 1...4 by default), within `minimum...maximum` and among `enum` when those are declared; every
    /// required field must be present. Optional fields the plan leaves out get their defaults.
    /// - Parameter plan: A plan of this plan type.
    /// - Returns: The plan with defaults filled in (the same plan when there is nothing to fill in).
    /// - Throws: ``PlanValidationError`` naming the plan type, the field, the expected type or range
    ///   and the value found.
    public func validate(_ plan: Plan) throws(PlanValidationError) -> Plan {
        try prepared(plan).plan
    }

    /// ``validate(_:)``, and the value of the plan's field of type `property` (given or by default) when the
    /// declaration has exactly one, for the host's check that the target has it.
    func prepared(_ plan: Plan) throws(PlanValidationError) -> (plan: Plan, property: String?) {
        guard plan.type == type else {
            throw PlanValidationError(
                code: .wrongPlanType, planType: plan.type, field: nil, expected: "plan type \(JSONText.quoted(type))",
                found: JSONText.quoted(plan.type))
        }
        let values = plan.fields
        let fieldCount = fields.count
        let checks = lookup.checks
        let propertyField = lookup.propertyFields.count == 1 ? lookup.propertyFields[0] : -1
        var property: String?
        // Which declared fields the plan gives: a bit mask for the first 64, an array beyond.
        var seenMask: UInt64 = 0
        var seenBeyond: [Bool] = fieldCount > 64 ? [Bool](repeating: false, count: fieldCount) : []
        for (key, value) in values {
            let i = indexOfField(named: key)
            guard i >= 0 else { throw unknownField(key) }
            if let code = checks[i].problem(with: value, enums: lookup.enums) {
                let field = fields[i]
                throw PlanValidationError(
                    code: code, planType: type, field: field.name, expected: field.expectation,
                    found: JSONText.value(value))
            }
            if i == propertyField, case .string(let name) = value { property = name }
            if i < 64 { seenMask |= 1 << UInt64(i) } else { seenBeyond[i] = true }
        }
        @inline(__always) func seen(_ i: Int) -> Bool { i < 64 ? seenMask & (1 << UInt64(i)) != 0 : seenBeyond[i] }
        if values.count == fieldCount { return (plan, property) }
        for i in lookup.required where !seen(i) {
            let field = fields[i]
            throw PlanValidationError(
                code: .missingField, planType: type, field: field.name, expected: field.expectation + " (required)",
                found: "no value")
        }
        if propertyField >= 0, !seen(propertyField), case .string(let name)? = fields[propertyField].defaultValue { property = name }
        let defaults: PlanDefaults
        if let sets = lookup.defaultSets {
            // Which defaulted fields are absent, as a bit set over `lookup.defaulted`: the set made for them.
            var absent = 0
            for (j, i) in lookup.defaulted.enumerated() where !seen(i) { absent |= 1 << j }
            guard absent != 0 else { return (plan, property) }
            defaults = sets[absent]
        } else {
            let members = lookup.defaulted.filter { !seen($0) }.map { (key: fields[$0].name, value: fields[$0].defaultValue!) }
            guard !members.isEmpty else { return (plan, property) }
            defaults = PlanDefaults(members)
        }
        return (Plan(type: type, fields: values, defaults: defaults), property)
    }

    /// The index of the declared field `name`, or -1.
    @inline(__always)
    private func indexOfField(named name: String) -> Int {
        if fields.count <= 8 {
            let length = name.utf8.count
            for i in lookup.nameLengths.indices where lookup.nameLengths[i] == length && lookup.names[i] == name { return i }
            return -1
        }
        return lookup.index[name] ?? -1
    }

    private func unknownField(_ name: String) -> PlanValidationError {
        let names = fields.map(\.name)
        let known = names.isEmpty ? "none: this plan type has no fields" : names.joined(separator: ", ")
        return PlanValidationError(
            code: .unknownField, planType: type, field: name, expected: "one of the declared fields (\(known))",
            found: "an unknown field" + JSONText.suggestion(for: name, among: names))
    }
}

extension FieldLookup.Check {
    /// Why `value` does not fit this field, or `nil` when it does. Allocation-free when it fits.
    /// - Parameter enums: where ``enumIndex`` points.
    func problem(with value: JSONValue, enums: [[JSONValue]]) -> PlanValidationError.Code? {
        switch type {
        case .number, .integer:
            guard case .number(let n) = value, n.isFinite else { return .wrongType }
            if type == .integer && (n != n.rounded(.towardZero) || abs(n) > 9_007_199_254_740_992) { return .wrongType }
            if let minimum, n < minimum { return .outOfRange }
            if let maximum, n > maximum { return .outOfRange }
            if enumIndex >= 0, !enums[enumIndex].contains(value) { return .notAllowed }
            return nil
        case .boolean:
            guard case .bool = value else { return .wrongType }
            return nil
        case .string:
            guard case .string = value else { return .wrongType }
            if enumIndex >= 0, !enums[enumIndex].contains(value) { return .notAllowed }
            return nil
        case .property:
            guard case .string(let name) = value, !name.isEmpty else { return .wrongType }
            return nil
        case .vector:
            guard case .array(let items) = value else { return .wrongType }
            var problem: PlanValidationError.Code?
            for item in items {
                guard case .number(let n) = item, n.isFinite else { return .wrongType }
                if let minimum, n < minimum { problem = .outOfRange }
                if let maximum, n > maximum { problem = .outOfRange }
            }
            if !itemRange.contains(items.count) { return .wrongItemCount }
            return problem
        case .object:
            guard case .object = value else { return .wrongType }
            return nil
        case .array:
            guard case .array(let items) = value else { return .wrongType }
            if !itemRange.contains(items.count) { return .wrongItemCount }
            return nil
        }
    }
}

extension FieldManifest {
    /// Why `value` does not fit this field, or `nil` when it does. Allocation-free when it fits.
    func problem(with value: JSONValue) -> PlanValidationError.Code? {
        FieldLookup.Check(type: type, minimum: minimum, maximum: maximum, itemRange: itemRange, enumIndex: enumValues == nil ? -1 : 0)
            .problem(with: value, enums: enumValues.map { [$0] } ?? [])
    }

    /// What a value of this field must be, e.g. `a number in 0...3600 (s)`,
    /// `one of "linear", "easeIn"`, `a vector of 1...4 numbers`.
    public var expectation: String {
        var text: String
        if let enumValues, type == .string || type == .number || type == .integer {
            text = "one of " + enumValues.map { JSONText.value($0) }.joined(separator: ", ")
        } else {
            switch type {
            case .vector:
                let r = itemRange
                text =
                    "a vector of "
                    + (r.lowerBound == r.upperBound ? "\(r.lowerBound)" : "\(r.lowerBound)...\(r.upperBound)")
                text += r.upperBound == 1 ? " number" : " numbers"
                if minimum != nil || maximum != nil { text += " each" + rangePhrase }
            case .array:
                text = "an array"
                let r = itemRange
                if r.lowerBound > 0 || r.upperBound != Int.max {
                    text +=
                        r.upperBound == Int.max
                        ? " of at least \(r.lowerBound) items" : " of \(r.lowerBound)...\(r.upperBound) items"
                }
            default:
                text = type.phrase + rangePhrase
            }
        }
        if let unit, !unit.isEmpty { text += " (\(unit))" }
        return text
    }

    private var rangePhrase: String {
        switch (minimum, maximum) {
        case (let low?, let high?): " in \(JSONText.number(low))...\(JSONText.number(high))"
        case (let low?, nil): " >= \(JSONText.number(low))"
        case (nil, let high?): " <= \(JSONText.number(high))"
        case (nil, nil): ""
        }
    }
}
