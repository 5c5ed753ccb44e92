import CMotionABI
import Foundation
import Testing

@testable import MotionHost

/// The host's plan-field functions (`motion_host_v1.plan_number` …), which spare C plugins a JSON parser.
@Suite struct PlanFieldAccessTests {
    let host = HostInterface.table.pointee
    let plan = #"{"type":"Sequence","by":[1,2.5],"on":true,"name":"card","transactions":[{"operations":[]},{"x":1}]}"#

    /// The NUL-terminated text in a C buffer.
    func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func call<R>(_ body: (UnsafePointer<CChar>, Int) -> R) -> R {
        plan.withCString { body($0, strlen($0)) }
    }

    @Test func numbersBooleansAndVectorsAreRead() {
        var number = 0.0
        #expect(call { host.plan_number($0, $1, "on", &number) } == MOTION_ERR_INVALID_PLAN)  // a boolean is not a number
        #expect(call { host.plan_number($0, $1, "by[1]", &number) } == MOTION_OK)
        #expect(number == 2.5)
        var values = [Double](repeating: 0, count: 4)
        var count: UInt32 = 0
        #expect(call { host.plan_numbers($0, $1, "by", &values, 4, &count) } == MOTION_OK)
        #expect(count == 2 && Array(values.prefix(2)) == [1, 2.5])
        #expect(call { host.plan_numbers($0, $1, "by", &values, 1, &count) } == MOTION_ERR_BUFFER_TOO_SMALL)
        #expect(count == 2)
        #expect(call { host.plan_number($0, $1, "name", &number) } == MOTION_ERR_INVALID_PLAN)
        #expect(call { host.plan_number($0, $1, "missing", &number) } == MOTION_ERR_INVALID_PLAN)
        #expect(call { host.plan_number($0, $1, "by[9]", &number) } == MOTION_ERR_INVALID_PLAN)
    }

    @Test func stringsAndNestedValuesAreCopiedWithTheirLength() {
        var buffer = [CChar](repeating: 0, count: 64)
        var length = 0
        #expect(call { host.plan_string($0, $1, "type", &buffer, 64, &length) } == MOTION_OK)
        #expect(text(buffer) == "Sequence" && length == 8)
        #expect(call { host.plan_string($0, $1, "name", &buffer, 4, &length) } == MOTION_ERR_BUFFER_TOO_SMALL)
        #expect(length == 4)
        #expect(call { host.plan_value_json($0, $1, "transactions[0]", &buffer, 64, &length) } == MOTION_OK)
        #expect(text(buffer) == #"{"operations":[]}"#)
        #expect(call { host.plan_value_json($0, $1, "transactions", nil, 0, &length) } == MOTION_ERR_BUFFER_TOO_SMALL)
        #expect(length == #"[{"operations":[]},{"x":1}]"#.utf8.count)
    }

    @Test func badInputIsAnErrorStatusNotACrash() {
        var number = 0.0
        #expect("not json".withCString { host.plan_number($0, 8, "x", &number) } == MOTION_ERR_INVALID_PLAN)
        #expect(host.plan_number(nil, 0, "x", &number) == MOTION_ERR_INVALID_PLAN)
        #expect(call { host.plan_number($0, $1, nil, &number) } == MOTION_ERR_INVALID_PLAN)
        #expect(call { host.plan_number($0, $1, "by[0]", nil) } == MOTION_ERR_INVALID_ARGUMENT)
    }
}
