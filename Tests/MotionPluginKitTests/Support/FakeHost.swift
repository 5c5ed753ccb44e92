import CMotionABI
import Foundation
import Synchronization

/// A minimal host written for these tests: C callbacks (`@convention(c)`) that keep their state in a
/// `FakeContext` reached through the `motion_host_context *` (one per performer). It records what
/// plugins do (tokens, properties, emissions, log lines) so tests can assert it.
///
/// There is one host interface per process: plugins keep the host pointer of their first entry call.
enum FakeHost {
    /// `@unchecked Sendable`: allocated once, never written after initialization, never freed.
    struct Interface: @unchecked Sendable {
        let pointer: UnsafePointer<motion_host_v1>
    }

    static let interface: Interface = {
        let host = UnsafeMutablePointer<motion_host_v1>.allocate(capacity: 1)
        host.initialize(
            to: motion_host_v1(
                struct_size: UInt32(MemoryLayout<motion_host_v1>.size),
                abi_version: MOTION_ABI_VERSION,
                log: { level, message in
                    guard let message else { return }
                    FakeHost.logLines.withLock { $0.append((level, String(cString: message))) }
                },
                emit_transaction: { context, json, length, error in
                    guard let context = FakeContext.from(context), let json, length > 0 else {
                        return MOTION_ERR_INVALID_ARGUMENT
                    }
                    let text = String(decoding: UnsafeRawBufferPointer(start: json, count: length), as: UTF8.self)
                    return context.emit(text, error: error)
                },
                token_generate: { context, tokenOut in
                    guard let context = FakeContext.from(context), let tokenOut else {
                        return MOTION_ERR_INVALID_ARGUMENT
                    }
                    let token = FakeHost.nextToken.add(1, ordering: .relaxed).newValue
                    context.state.withLock { _ = $0.activeTokens.insert(token) }
                    tokenOut.pointee = token
                    return MOTION_OK
                },
                token_terminate: { context, token in
                    guard let context = FakeContext.from(context) else { return MOTION_ERR_INVALID_ARGUMENT }
                    return context.state.withLock { state in
                        if state.activeTokens.remove(token) != nil {
                            state.terminatedTokens.insert(token)
                            return MOTION_OK
                        }
                        if state.terminatedTokens.contains(token) {
                            state.repeatedTerminates += 1
                            return MOTION_ERR_TOKEN_ALREADY_TERMINATED
                        }
                        return MOTION_ERR_UNKNOWN_TOKEN
                    }
                },
                property_id: { context, name in
                    guard FakeContext.from(context) != nil, let name, name.pointee != 0 else {
                        return MOTION_ERR_INVALID_ARGUMENT
                    }
                    return FakeHost.intern(String(cString: name))
                },
                get_property: { context, id, values, capacity, countOut in
                    guard let context = FakeContext.from(context), let countOut else {
                        return MOTION_ERR_INVALID_ARGUMENT
                    }
                    guard let stored = context.state.withLock({ $0.properties[id] }) else {
                        countOut.pointee = 0
                        return MOTION_ERR_UNKNOWN_PROPERTY
                    }
                    countOut.pointee = UInt32(stored.count)
                    guard stored.count <= Int(capacity) else { return MOTION_ERR_BUFFER_TOO_SMALL }
                    guard let values else { return MOTION_ERR_INVALID_ARGUMENT }
                    for (index, value) in stored.enumerated() { values[index] = value }
                    return MOTION_OK
                },
                set_property: { context, id, values, count in FakeHost.setProperty(context, id, values, count) },
                target_name: { context in
                    guard let context = FakeContext.from(context) else { return UnsafePointer(FakeHost.emptyName) }
                    return UnsafePointer(context.cTargetName.pointer)
                },
                plan_number: { json, length, field, out in
                    guard let out else { return MOTION_ERR_INVALID_ARGUMENT }
                    guard let number = FakePlanFields.value(json, length, field) as? NSNumber,
                        number.objCType.pointee != CChar(UInt8(ascii: "c"))  // booleans are NSNumbers of type "c"
                    else { return MOTION_ERR_INVALID_PLAN }
                    out.pointee = number.doubleValue
                    return MOTION_OK
                },
                plan_numbers: { json, length, field, values, capacity, countOut in
                    let value = FakePlanFields.value(json, length, field)
                    let numbers: [Double]
                    if let number = value as? NSNumber {
                        numbers = [number.doubleValue]
                    } else if let array = value as? [Any], case let converted = array.compactMap({ ($0 as? NSNumber)?.doubleValue }),
                        converted.count == array.count
                    {
                        numbers = converted
                    } else {
                        countOut?.pointee = 0
                        return MOTION_ERR_INVALID_PLAN
                    }
                    countOut?.pointee = UInt32(numbers.count)
                    for (i, n) in numbers.prefix(Int(capacity)).enumerated() { values?[i] = n }
                    return numbers.count > Int(capacity) ? MOTION_ERR_BUFFER_TOO_SMALL : MOTION_OK
                },
                plan_string: { json, length, field, buffer, capacity, lengthOut in
                    guard let text = FakePlanFields.value(json, length, field) as? String else {
                        lengthOut?.pointee = 0
                        return MOTION_ERR_INVALID_PLAN
                    }
                    return FakePlanFields.copy(Array(text.utf8), buffer, capacity, lengthOut)
                },
                plan_value_json: { json, length, field, buffer, capacity, lengthOut in
                    guard let value = FakePlanFields.value(json, length, field),
                        let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys])
                    else {
                        lengthOut?.pointee = 0
                        return MOTION_ERR_INVALID_PLAN
                    }
                    return FakePlanFields.copy(Array(data), buffer, capacity, lengthOut)
                },
                set_properties: { writes, count, _, failedIndexOut in
                    FakeHost.setPropertiesCalls.add(1, ordering: .relaxed)
                    guard count > 0 else { return MOTION_OK }
                    guard let writes else { return MOTION_ERR_INVALID_ARGUMENT }
                    var first = MOTION_OK
                    for index in 0..<count {
                        var write = writes[index]
                        let status = withUnsafePointer(to: &write.values) { tuple in
                            tuple.withMemoryRebound(to: Double.self, capacity: 4) { values in
                                FakeHost.setProperty(write.ctx, write.property, values, write.count, batched: true)
                            }
                        }
                        if status != MOTION_OK, first == MOTION_OK {
                            first = status
                            failedIndexOut?.pointee = index
                        }
                    }
                    return first
                },
                // This fake host offers one host extension, plans by handle (FakePlans; the real host's extensions
                // are tested in MotionHostTests).
                get_extension: { id in
                    guard let id, strcmp(id, MOTION_HOST_EXTENSION_PLANS) == 0 else { return nil }
                    return UnsafeRawPointer(FakePlans.table.pointer)
                }))
        return Interface(pointer: UnsafePointer(host))
    }()

    /// `set_property` and each write of `set_properties`: checks as the real host does, then records.
    static func setProperty(
        _ context: OpaquePointer?, _ id: Int32, _ values: UnsafePointer<Double>?, _ count: UInt32, batched: Bool = false
    ) -> motion_status {
        guard let context = FakeContext.from(context), let values, (1...4).contains(count) else {
            return MOTION_ERR_INVALID_ARGUMENT
        }
        guard FakeHost.name(of: id) != nil else { return MOTION_ERR_UNKNOWN_PROPERTY }
        let copied = Array(UnsafeBufferPointer(start: values, count: Int(count)))
        guard copied.allSatisfy(\.isFinite) else { return MOTION_ERR_INVALID_ARGUMENT }
        context.state.withLock {
            $0.properties[id] = copied
            $0.writes += 1
            if batched { $0.batchedWrites += 1 }
        }
        return MOTION_OK
    }

    /// How many times a plugin called `set_properties` in this process.
    static let setPropertiesCalls = Atomic<Int>(0)
    /// The same host as it would be built against ABI 1.0: its struct_size ends before `set_properties`.
    static let version10Interface: Interface = {
        let host = UnsafeMutablePointer<motion_host_v1>.allocate(capacity: 1)
        host.initialize(to: interface.pointer.pointee)
        host.pointee.struct_size = UInt32(MemoryLayout<motion_host_v1>.offset(of: \.set_properties)!)
        host.pointee.set_properties = nil
        return Interface(pointer: UnsafePointer(host))
    }()

    /// A host whose struct ends before `plan_value_json`, the last ABI 1.0 function: too small for the
    /// C plugins, which call it.
    static let truncatedInterface: Interface = {
        let host = UnsafeMutablePointer<motion_host_v1>.allocate(capacity: 1)
        host.initialize(to: interface.pointer.pointee)
        host.pointee.struct_size = UInt32(MemoryLayout<motion_host_v1>.offset(of: \.plan_value_json)!)
        return Interface(pointer: UnsafePointer(host))
    }()

    /// A malformed host whose struct_size covers only struct_size and abi_version, not even `log`.
    static let tinyInterface: Interface = {
        let host = UnsafeMutablePointer<motion_host_v1>.allocate(capacity: 1)
        host.initialize(to: interface.pointer.pointee)
        host.pointee.struct_size = 8
        return Interface(pointer: UnsafePointer(host))
    }()

    static let logLines = Locked<[(Int32, String)]>([])
    static let nextToken = Atomic<UInt64>(0)
    private static let names = Locked<[String]>([])
    nonisolated(unsafe) private static let emptyName = strdup("")!

    /// Interns a property name: its id is its index in the table.
    static func intern(_ name: String) -> Int32 {
        names.withLock { names in
            if let index = names.firstIndex(of: name) { return Int32(index) }
            names.append(name)
            return Int32(names.count - 1)
        }
    }

    /// The name of an interned id.
    static func name(of id: Int32) -> String? {
        names.withLock { id >= 0 && Int(id) < $0.count ? $0[Int(id)] : nil }
    }

    /// The log lines containing `text`.
    static func logLines(containing text: String) -> [(level: Int32, message: String)] {
        logLines.withLock { $0.filter { $0.1.contains(text) } }.map { (level: $0.0, message: $0.1) }
    }
}

/// The host's state for one performer, reached through its `motion_host_context *`.
final class FakeContext: Sendable {
    struct State {
        var properties: [Int32: [Double]] = [:]
        var activeTokens: Set<UInt64> = []
        var terminatedTokens: Set<UInt64> = []
        var repeatedTerminates = 0
        var emitted: [String] = []
        var writes = 0
        /// Of `writes`, those that came through `set_properties`.
        var batchedWrites = 0
        var isDestroyed = false
        var usesAfterDestroy = 0
    }

    /// A C string owned by the context. `@unchecked Sendable`: written once, freed in deinit.
    struct CString: @unchecked Sendable {
        let pointer: UnsafeMutablePointer<CChar>
    }

    /// Handles an emitted transaction like a host would (e.g. hands its plans to other performers).
    typealias Router = @Sendable (_ transactionJSON: String) -> (motion_status, String)

    let targetName: String
    let cTargetName: CString
    let state = Locked(State())
    let router = Locked<Router?>(nil)

    init(target: String) {
        targetName = target
        cTargetName = CString(pointer: strdup(target)!)
    }

    deinit { free(cTargetName.pointer) }

    /// The `motion_host_context *` for this context (not retained: the test keeps the context alive).
    var handle: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }

    static func from(_ handle: OpaquePointer?) -> FakeContext? {
        guard let handle else { return nil }
        let context = Unmanaged<FakeContext>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
        context.state.withLock { state in
            if state.isDestroyed { state.usesAfterDestroy += 1 }
        }
        return context
    }

    /// Marks the context as freed by the host (after destroy_performer returned): any later call with it
    /// is counted in `usesAfterDestroy` (a real host would have freed it: a use-after-free).
    func markDestroyed() { state.withLock { $0.isDestroyed = true } }

    func emit(_ json: String, error: UnsafeMutablePointer<motion_error>?) -> motion_status {
        state.withLock { $0.emitted.append(json) }
        guard let route = router.withLock({ $0 }) else { return MOTION_OK }
        let (status, message) = route(json)
        if status != MOTION_OK { motion_error_set(error, status, message) }
        return status
    }

    /// The current value of a property, by name.
    func value(_ name: String) -> [Double]? {
        let id = FakeHost.intern(name)
        return state.withLock { $0.properties[id] }
    }

    /// Sets a property, by name, as a scene's initial value would.
    func setValue(_ values: [Double], for name: String) {
        let id = FakeHost.intern(name)
        state.withLock { $0.properties[id] = values }
    }

    var activeTokenCount: Int { state.withLock { $0.activeTokens.count } }
    var terminatedTokenCount: Int { state.withLock { $0.terminatedTokens.count } }
    var emitted: [String] { state.withLock { $0.emitted } }
}

/// The fake host's plan-field functions: `JSONSerialization`, field `name` or `name[index]`.
enum FakePlanFields {
    static func value(_ json: UnsafePointer<CChar>?, _ length: Int, _ field: UnsafePointer<CChar>?) -> Any? {
        guard let json, let field,
            let object = (try? JSONSerialization.jsonObject(with: Data(bytes: json, count: length))) as? [String: Any]
        else { return nil }
        let path = String(cString: field)
        guard path.hasSuffix("]"), let open = path.lastIndex(of: "[") else { return object[path] }
        guard let index = Int(path[path.index(after: open)..<path.index(before: path.endIndex)]),
            let array = object[String(path[..<open])] as? [Any], array.indices.contains(index)
        else { return nil }
        return array[index]
    }

    static func copy(_ bytes: [UInt8], _ buffer: UnsafeMutablePointer<CChar>?, _ capacity: Int, _ lengthOut: UnsafeMutablePointer<Int>?)
        -> motion_status
    {
        lengthOut?.pointee = bytes.count
        guard let buffer, capacity > bytes.count else { return MOTION_ERR_BUFFER_TOO_SMALL }
        for (i, byte) in bytes.enumerated() { buffer[i] = CChar(bitPattern: byte) }
        buffer[bytes.count] = 0
        return MOTION_OK
    }
}

/// The fake host's plans extension (`motion.plans/1`, motion/plans.h): a plan by handle is JSON text the test
/// holds (``Plugin/add(byHandle:to:)``), its fields read with `JSONSerialization`.
enum FakePlans {
    /// `@unchecked Sendable`: allocated once, never written after initialization, never freed.
    struct Table: @unchecked Sendable {
        let pointer: UnsafePointer<motion_plans_v1>
    }

    /// The plans in flight by handle address, and the layouts made.
    private static let state = Locked<(plans: [UInt: String], layouts: [[String]], texts: [UnsafeMutablePointer<CChar>])>(([:], [], []))
    /// How many `read` and `json` calls plugins made in this process.
    static let reads = Atomic<Int>(0)
    static let jsonCalls = Atomic<Int>(0)

    static let table: Table = {
        let table = UnsafeMutablePointer<motion_plans_v1>.allocate(capacity: 1)
        table.initialize(
            to: motion_plans_v1(
                struct_size: UInt32(MemoryLayout<motion_plans_v1>.size),
                layout: { names, count in
                    guard let names, count > 0 else { return MOTION_ERR_INVALID_ARGUMENT }
                    let copied = (0..<count).map { String(cString: names[$0]!) }
                    return FakePlans.state.withLock { state in
                        state.layouts.append(copied)
                        return Int32(state.layouts.count - 1)
                    }
                },
                read: { plan, layout, fields, count in
                    FakePlans.reads.add(1, ordering: .relaxed)
                    guard let fields, let (json, names) = FakePlans.lookup(plan, layout), count <= names.count,
                        let object = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any]
                    else { return MOTION_ERR_INVALID_ARGUMENT }
                    for i in 0..<count { fields[i] = FakePlans.field(object[names[i]]) }
                    return MOTION_OK
                },
                json: { plan, buffer, capacity, lengthOut in
                    FakePlans.jsonCalls.add(1, ordering: .relaxed)
                    guard let (json, _) = FakePlans.lookup(plan, 0) else { return MOTION_ERR_INVALID_ARGUMENT }
                    return FakePlanFields.copy(Array(json.utf8), buffer, capacity, lengthOut)
                }))
        return Table(pointer: UnsafePointer(table))
    }()

    /// The JSON behind a handle and the names of a layout (layout 0 is made first by any plugin's first read).
    private static func lookup(_ plan: OpaquePointer?, _ layout: Int32) -> (String, [String])? {
        guard let plan else { return nil }
        return state.withLock { state in
            guard let json = state.plans[UInt(bitPattern: UnsafeRawPointer(plan))] else { return nil }
            let names = state.layouts.indices.contains(Int(layout)) ? state.layouts[Int(layout)] : []
            return (json, names)
        }
    }

    /// One JSONSerialization value as a `motion_plan_field` (a string copied until the plan's call returns).
    private static func field(_ value: Any?) -> motion_plan_field {
        var field = motion_plan_field()
        switch value {
        case nil: field.kind = MOTION_PLAN_FIELD_ABSENT
        case is NSNull: field.kind = MOTION_PLAN_FIELD_NULL
        case let number as NSNumber where isBoolean(number):
            field.kind = MOTION_PLAN_FIELD_BOOLEAN
            field.values.0 = number.boolValue ? 1 : 0
        case let number as NSNumber:
            field.kind = MOTION_PLAN_FIELD_NUMBER
            field.count = 1
            field.values.0 = number.doubleValue
        case let text as String:
            let copy = strdup(text)!
            state.withLock { $0.texts.append(copy) }
            field.kind = MOTION_PLAN_FIELD_STRING
            field.text = UnsafePointer(copy)
            field.length = strlen(copy)
        case let items as [Any] where items.count <= 4 && items.allSatisfy({ ($0 as? NSNumber).map { !isBoolean($0) } ?? false }):
            field.kind = MOTION_PLAN_FIELD_NUMBERS
            field.count = UInt32(items.count)
            withUnsafeMutableBytes(of: &field.values) { raw in
                for (i, item) in items.enumerated() { raw.storeBytes(of: (item as! NSNumber).doubleValue, toByteOffset: i * 8, as: Double.self) }
            }
        default: field.kind = MOTION_PLAN_FIELD_OTHER
        }
        return field
    }

    /// Whether JSONSerialization made `number` from `true` or `false` (its Objective-C type is "c").
    private static func isBoolean(_ number: NSNumber) -> Bool { number.objCType.pointee == CChar(UInt8(ascii: "c")) }

    /// Runs `body` with `json` in flight under a handle of its own.
    static func withHandle<R>(_ json: String, _ body: (OpaquePointer) -> R) -> R {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1) { byte in
            let address = UInt(bitPattern: byte.baseAddress!)
            state.withLock { $0.plans[address] = json }
            defer {
                state.withLock { state in
                    state.plans[address] = nil
                    for text in state.texts { free(text) }
                    state.texts.removeAll()
                }
            }
            return body(OpaquePointer(byte.baseAddress!))
        }
    }
}

/// A value behind an `NSLock` (a pthread mutex, which the Thread Sanitizer sees; `Synchronization.Mutex` is a futex it
/// cannot see, so `.ci/tsan` reported the fake host's tables, touched by plugin threads and tests at once, as races:
/// Documentation/PITFALLS.md).
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, which it may change, under the lock.
    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
