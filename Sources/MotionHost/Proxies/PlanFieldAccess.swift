import CMotionABI
import CMotionHostSupport
import FoundationEssentials
import Glibc
import MotionCore
import Synchronization

/// The plans an entry performer is being handed right now on this thread (innermost last), so that the
/// host's plan-field functions (`motion_host_v1.plan_number` …) answer from fields the host already holds
/// instead of parsing JSON again. Emissions nest add_plan calls, hence a stack; it is per thread
/// (`pthread_getspecific`), so schedulers on several threads never share one, and no lock is taken.
///
/// Thread rule: safe from any thread; each thread sees only its own stack.
enum PlansInFlight {
    struct Entry {
        /// The buffer's address (or the handle, ``withHandle(_:_:)``), as a number: compared, never
        /// dereferenced.
        let start: UInt
        /// The JSON's length; 0 for a plan by handle, which no JSON call (length > 0) can match.
        let length: Int
        let type: String
        /// The plan, whose fields are read in place (``Plan/subscript(_:)``, ``Plan/forEachField(_:)``): a plan
        /// completed with defaults is never merged into one dictionary for this.
        let plan: Plan
    }

    final class ThreadStack {
        // One thread's own stack, used only by that thread and never re-entrantly within one access.
        @exclusivity(unchecked) var entries: [Entry] = []
        /// Where `motion_plans_v1.read` copies the strings it hands out (the plan's inline strings have no
        /// address of their own): valid until the plan's call returns.
        let texts = TextArena()
        /// The fields `motion_plans_v1.read` hands out that many plans share (a plan type's name, a set of
        /// defaults), made once.
        let keptFields = KeptFields()
    }

    /// Owns each thread's stack: its destructor releases it when the thread ends. The stack is found through
    /// `cmotionhost_current_plans_stack` (a C `_Thread_local`, read with no call), which the destructor clears.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            cmotionhost_set_plans_stack(nil)
            if let pointer { Unmanaged<ThreadStack>.fromOpaque(pointer).release() }
        }
        return key
    }()

    static var stack: ThreadStack {
        if let pointer = cmotionhost_current_plans_stack() { return Unmanaged<ThreadStack>.fromOpaque(pointer).takeUnretainedValue() }
        let stack = ThreadStack()
        let pointer = Unmanaged.passRetained(stack).toOpaque()
        pthread_setspecific(key, pointer)
        cmotionhost_set_plans_stack(pointer)
        return stack
    }

    /// This thread's stack, if it has one (no allocation).
    static var existingStack: ThreadStack? {
        cmotionhost_current_plans_stack().map { Unmanaged<ThreadStack>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Runs `body` with `plan` registered as the plan in `bytes`.
    static func with<R>(_ plan: Plan, bytes: UnsafeBufferPointer<CChar>, _ body: () -> R) -> R {
        guard let start = bytes.baseAddress else { return body() }
        let stack = self.stack
        stack.entries.append(Entry(start: UInt(bitPattern: start), length: bytes.count, type: plan.type, plan: plan))
        defer { stack.entries.removeLast() }
        return body()
    }

    /// Runs `body` with `plan` registered under a handle of its own (`const motion_plan *`, motion/plans.h): a
    /// number never given before in this process (not an address: the next call at the same depth would have
    /// the same one, and a handle kept from this call would read that call's plan). Strings read meanwhile are
    /// freed when it returns.
    static func withHandle<R>(_ plan: Plan, _ body: (OpaquePointer) -> R) -> R {
        let stack = self.stack
        let handle = lastHandle.wrappingAdd(1, ordering: .relaxed).newValue
        let mark = stack.texts.mark
        let depth = stack.entries.count
        stack.entries.append(Entry(start: handle, length: 0, type: plan.type, plan: plan))
        defer {
            // With the JSON buffers motion_plans_v1.json filled for it meanwhile (``registerJSON(_:of:)``).
            if stack.entries.count == depth + 1 { stack.entries.removeLast() } else { stack.entries.removeSubrange(depth...) }
            stack.texts.reset(to: mark)
        }
        return body(OpaquePointer(bitPattern: handle)!)
    }

    /// The last handle ``withHandle(_:_:)`` gave (0: none yet).
    private static let lastHandle = Atomic<UInt>(0)

    /// Registers the buffer `motion_plans_v1.json` filled with the JSON of the plan in entry `index` as that plan
    /// in flight, until the handle's call returns: the plan-field functions (`plan_number` …) then answer for it
    /// from the fields the host holds, as for add_plan's JSON.
    static func registerJSON(_ bytes: UnsafeBufferPointer<CChar>, of index: Int, in stack: ThreadStack) {
        guard let start = bytes.baseAddress, bytes.count > 0 else { return }
        let entry = stack.entries[index]
        stack.entries.append(Entry(start: UInt(bitPattern: start), length: bytes.count, type: entry.type, plan: entry.plan))
    }

    /// The entry of the plan handed over by `handle` on this thread right now, innermost first, or `nil`.
    static func entry(handle: OpaquePointer, in stack: ThreadStack) -> Int? {
        let start = UInt(bitPattern: UnsafeRawPointer(handle))
        var i = stack.entries.count - 1
        while i >= 0 {
            if stack.entries[i].start == start, stack.entries[i].length == 0 { return i }
            i -= 1
        }
        return nil
    }

    /// A member of the plan in `json`: from the fields the host holds if it is a plan in flight on this
    /// thread, else parsed with `JSONParser`.
    static func value(_ json: UnsafePointer<CChar>, _ length: Int, member: String) -> JSONValue? {
        let start = UInt(bitPattern: json)
        if let stack = existingStack {
            // By index, innermost first, without copying entries.
            var i = stack.entries.count - 1
            while i >= 0 {
                if stack.entries[i].start == start, stack.entries[i].length == length {
                    return member == "type" ? .string(stack.entries[i].type) : stack.entries[i].plan[member]
                }
                i -= 1
            }
        }
        return fields(json, length)?[member]
    }

    /// The fields of the JSON object in `json`, parsed with `JSONParser`; `nil` when it is not one (or not
    /// JSON).
    static func fields(_ json: UnsafePointer<CChar>, _ length: Int) -> [String: JSONValue]? {
        guard case .object(let fields)? = try? JSONParser.parse(UnsafeRawBufferPointer(start: json, count: length)) else {
            return nil
        }
        return fields
    }
}

/// One field of a plan named as `name` or `name[index]` (the C ABI's plan-field syntax).
func planField(_ json: UnsafePointer<CChar>?, _ length: Int, _ field: UnsafePointer<CChar>?) -> JSONValue? {
    guard let json, length > 0, let field else { return nil }
    let fieldLength = strlen(field)
    let path = String(cString: field)
    // Most fields are plain names: only a trailing "]" asks for an array element.
    guard fieldLength > 0, field[fieldLength - 1] == CChar(UInt8(ascii: "]")), let open = path.lastIndex(of: "[") else {
        return PlansInFlight.value(json, length, member: path)
    }
    guard let index = Int(path[path.index(after: open)..<path.index(before: path.endIndex)]), index >= 0,
        case .array(let elements)? = PlansInFlight.value(json, length, member: String(path[..<open])), index < elements.count
    else { return nil }
    return elements[index]
}

/// Copies `text` as NUL-terminated UTF-8 into a C buffer, in one `memcpy`-like copy (a byte loop over a
/// `String.UTF8View` cost several hundred instructions per field).
func copy(_ text: UnsafeBufferPointer<UInt8>, to buffer: UnsafeMutablePointer<CChar>?, capacity: Int, lengthOut: UnsafeMutablePointer<Int>?)
    -> motion_status
{
    lengthOut?.pointee = text.count
    guard let buffer, capacity > text.count else { return MOTION_ERR_BUFFER_TOO_SMALL }
    if let source = text.baseAddress, text.count > 0 {
        UnsafeMutableRawPointer(buffer).copyMemory(from: source, byteCount: text.count)
    }
    buffer[text.count] = 0
    return MOTION_OK
}

let hostPlanNumber: @convention(c) (UnsafePointer<CChar>?, Int, UnsafePointer<CChar>?, UnsafeMutablePointer<Double>?) -> motion_status = {
    json, length, field, out in
    guard let out else { return MOTION_ERR_INVALID_ARGUMENT }
    guard case .number(let n)? = planField(json, length, field) else { return MOTION_ERR_INVALID_PLAN }
    out.pointee = n
    return MOTION_OK
}

let hostPlanNumbers:
    @convention(c) (UnsafePointer<CChar>?, Int, UnsafePointer<CChar>?, UnsafeMutablePointer<Double>?, UInt32, UnsafeMutablePointer<UInt32>?) ->
        motion_status = { json, length, field, values, capacity, countOut in
            let numbers: [Double]
            switch planField(json, length, field) {
            case .number(let n)?: numbers = [n]
            case .array(let elements)?:
                let converted = elements.compactMap(\.number)
                guard converted.count == elements.count else { return MOTION_ERR_INVALID_PLAN }
                numbers = converted
            default:
                countOut?.pointee = 0
                return MOTION_ERR_INVALID_PLAN
            }
            countOut?.pointee = UInt32(numbers.count)
            guard let values else { return MOTION_ERR_INVALID_ARGUMENT }
            for (i, n) in numbers.prefix(Int(capacity)).enumerated() { values[i] = n }
            return numbers.count > Int(capacity) ? MOTION_ERR_BUFFER_TOO_SMALL : MOTION_OK
        }

let hostPlanString:
    @convention(c) (UnsafePointer<CChar>?, Int, UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int, UnsafeMutablePointer<Int>?) ->
        motion_status = { json, length, field, buffer, capacity, lengthOut in
            guard case .string(let text)? = planField(json, length, field) else {
                lengthOut?.pointee = 0
                return MOTION_ERR_INVALID_PLAN
            }
            var utf8 = text
            return utf8.withUTF8 { copy($0, to: buffer, capacity: capacity, lengthOut: lengthOut) }
        }

let hostPlanValueJSON:
    @convention(c) (UnsafePointer<CChar>?, Int, UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int, UnsafeMutablePointer<Int>?) ->
        motion_status = { json, length, field, buffer, capacity, lengthOut in
            guard let value = planField(json, length, field) else {
                lengthOut?.pointee = 0
                return MOTION_ERR_INVALID_PLAN
            }
            var bytes: [UInt8] = []
            value.writeJSON(into: &bytes)
            return bytes.withUnsafeBufferPointer { copy($0, to: buffer, capacity: capacity, lengthOut: lengthOut) }
        }
