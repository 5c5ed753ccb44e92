import CMotionHostSupport
import Dispatch
import FoundationEssentials
import Glibc
import MotionCore

/// The kinds of message between the host and a plugin's sandbox (``SandboxChannel``).
///
/// The host's requests carry the calls of `motion_plugin_v1` (and its extensions) the in-process host makes;
/// the sandbox's requests carry the calls of `motion_host_v1` the plugin makes. Every request but a log line
/// is answered by one ``reply``; while a side waits for its reply it serves the other side's requests, so
/// calls nest as they do in process (an emission from `add_plan` reaching another performer of the plugin).
/// The one exception is ``recreate``: many calls in one request, whose replies come back in ``recreateResults``
/// messages (not answered) before the request's own ``reply``; the sandbox sends them before any other message of
/// its own, so everything it sends stays in the order it did it (``SandboxRecreation``). Such one-way messages carry
/// no queued property writes (the sandbox goes on at once and would overwrite them).
enum SandboxMessageKind: UInt32 {
    // The host's requests.
    case load = 1, create, addPlan, addNamedPlan, removeNamedPlan, destroy, updateMany, update, receiveSample
    /// `add_plan` / `add_named_plan` of a plugin that takes plans by handle (`motion.plan-handles/1`, motion/plans.h):
    /// the plan's type and fields in the wire's binary form (``WireWriter/plan(_:)``), no JSON; the sandbox hands them
    /// to the plugin by handle and answers its `motion.plans/1` calls from them, as the in-process host does.
    case addPlanByHandle = 10, addNamedPlanByHandle
    /// R43's calls to a new sandbox in one request (a reload or restart re-creating an isolated plugin's performers,
    /// ``SandboxRecreation``): a flag saying whether it is the last part, the number of calls, then each call's kind
    /// (`create` or one of the four plan adds) and payload (a byte run: the payload that call has alone). The
    /// sandbox makes them in order as it makes them alone, and gives a performer whose `create` failed none of its
    /// plans; each call's reply is kept and sent with the others in ``recreateResults`` messages, which the host reads
    /// as R43 makes the calls. The part itself is answered by one ``reply`` after its last call's result.
    case recreate = 12
    // The sandbox's requests (the plugin calling the host).
    case log = 20, contextLog, emit, tokenGenerate, tokenTerminate, propertyID, getProperty, setProperty, flushWrites, propertySlot
    /// The answer to the request being waited for.
    case reply = 100
    /// From the sandbox during a ``recreate`` request, not answered: what its calls gave so far, in order (the
    /// number of entries, then each entry: tag 0 and a call's reply payload as a byte run, or tag 1, a performer slot
    /// and a token id, for a `token_generate` the plugin made then, ``SandboxRecreation``). Sent before any other
    /// message of the sandbox's, so the host reads everything the sandbox did in the order it did it.
    case recreateResults = 101
}

/// A received message: its kind, how many bytes of queued property writes precede it in shared memory (from the
/// sandbox), and its payload.
struct SandboxMessage {
    let kind: SandboxMessageKind
    let pendingWriteBytes: Int
    var payload: WireReader
}

/// Builds a message payload: little-endian integers and doubles, strings and byte runs with a 32-bit length.
struct WireWriter {
    var bytes: [UInt8] = []

    init() {}

    /// A writer with room for `capacity` bytes, so that building a plan's request allocates once.
    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    // Appended as typed `UInt8` buffers: `Array.append(contentsOf:)` copies those with one memcpy, where a raw buffer
    // went byte by byte (about 3,000 instructions per Tween plan's request, callgrind).
    mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { append($0) } }
    mutating func i32(_ value: Int32) { u32(UInt32(bitPattern: value)) }
    mutating func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { append($0) } }
    mutating func f64(_ value: Double) { u64(value.bitPattern) }
    mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }
    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { data(UnsafeRawBufferPointer($0)) }
    }
    mutating func data(_ value: UnsafeRawBufferPointer) {
        u32(UInt32(value.count))
        append(value)
    }

    @inline(__always)
    private mutating func append(_ raw: UnsafeRawBufferPointer) {
        guard let start = raw.baseAddress, raw.count > 0 else { return }
        bytes.append(contentsOf: UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: raw.count))
    }

    /// The deepest nesting of arrays and objects ``plan(_:)`` writes (and ``WireReader/plan()`` reads): the JSON
    /// parser's own limit (`CMotionJSON_MAX_DEPTH`), so every plan that came from JSON fits.
    static let maximumPlanDepth = 1024

    /// A plan in the wire's binary form, for a plugin that takes plans by handle: its type (a string), the number of
    /// its fields (32 bits), then each field's name (a string) and value. A value is a tag byte, then: nothing for
    /// null (0), false (1) and true (2); a 64-bit double for a number (3); a string (4); the count (32 bits) and the
    /// elements for an array (5); the count and name–value pairs for an object (6). The fields are the plan's own
    /// (`Plan.fields`, as the in-process host hands them by handle), in no particular order.
    /// - Returns: `false`, with the writer back as it was, for a plan nested deeper than ``maximumPlanDepth``
    ///   (then it goes as JSON).
    mutating func plan(_ plan: Plan) -> Bool {
        let start = bytes.count
        string(plan.type)
        // The fields as given, then the defaults the manifest filled in (no key in both): ``Plan/fields`` would
        // first merge the two into a new dictionary, most of the cost of writing a small plan.
        let (given, defaults) = plan.fieldParts
        u32(UInt32(given.count + defaults.count))
        for (name, value) in given where !field(name, value) {
            bytes.removeSubrange(start...)
            return false
        }
        for (name, value) in defaults where !field(name, value) {
            bytes.removeSubrange(start...)
            return false
        }
        return true
    }

    private mutating func field(_ name: String, _ value: JSONValue) -> Bool {
        string(name)
        return self.value(value, depth: 0)
    }

    private mutating func value(_ value: JSONValue, depth: Int) -> Bool {
        switch value {
        case .null: bytes.append(0)
        case .bool(let flag): bytes.append(flag ? 2 : 1)
        case .number(let number):
            bytes.append(3)
            f64(number)
        case .string(let text):
            bytes.append(4)
            string(text)
        case .array(let items):
            guard depth < Self.maximumPlanDepth else { return false }
            bytes.append(5)
            u32(UInt32(items.count))
            for item in items where !self.value(item, depth: depth + 1) { return false }
        case .object(let members):
            guard depth < Self.maximumPlanDepth else { return false }
            bytes.append(6)
            u32(UInt32(members.count))
            for (name, member) in members {
                string(name)
                guard self.value(member, depth: depth + 1) else { return false }
            }
        }
        return true
    }
}

/// Reads a payload that ``WireWriter`` built. Every read is bounds-checked and returns `nil` past the end or on
/// a malformed value: the sandbox is not trusted, so a bad message is a protocol failure, never a trap.
struct WireReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    private mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, bytes.count - offset >= count else { return nil }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func u32() -> UInt32? {
        guard let slice = take(4) else { return nil }
        return slice.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }
    mutating func i32() -> Int32? { u32().map { Int32(bitPattern: $0) } }
    mutating func u64() -> UInt64? {
        guard let slice = take(8) else { return nil }
        return slice.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
    mutating func f64() -> Double? { u64().map { Double(bitPattern: $0) } }
    mutating func bool() -> Bool? { take(1).map { $0.first! != 0 } }
    mutating func data() -> ArraySlice<UInt8>? {
        guard let count = u32() else { return nil }
        return take(Int(count))
    }
    mutating func string() -> String? { data().map { String(decoding: $0, as: UTF8.self) } }

    /// The place of a plan that ``WireWriter/plan(_:)`` wrote, checked to be one whole (so that ``SandboxPlans`` can
    /// read it in place), and the reader moved past it; `nil` when the bytes are not one.
    mutating func planBytes() -> Range<Int>? {
        let start = offset
        let end: Int? = bytes.withUnsafeBytes { raw in
            var cursor = PlanCursor(UnsafeRawBufferPointer(rebasing: raw[start...]))
            guard cursor.bytes() != nil, let count = cursor.u32() else { return nil }
            for _ in 0..<count {
                guard cursor.bytes() != nil, cursor.skipValue() else { return nil }
            }
            return start + cursor.offset
        }
        guard let end else { return nil }
        offset = end
        return start..<end
    }

    /// Runs `body` with the payload's bytes in `range` (valid during the call).
    func withBytes<R>(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    /// A plan that ``WireWriter/plan(_:)`` wrote, or `nil` when the bytes are not one.
    mutating func plan() -> Plan? {
        guard let type = string(), let count = u32(), Int(count) <= bytes.count - offset else { return nil }
        var fields: [String: JSONValue] = [:]
        fields.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let name = string(), let value = value(depth: 0) else { return nil }
            fields[name] = value
        }
        return Plan(type: type, fields: fields)
    }

    private mutating func value(depth: Int) -> JSONValue? {
        guard let tag = take(1)?.first else { return nil }
        switch tag {
        case 0: return .null
        case 1: return .bool(false)
        case 2: return .bool(true)
        case 3: return f64().map { .number($0) }
        case 4: return string().map { .string($0) }
        case 5:
            // A count is checked against the bytes left (each element takes at least one), so a bad one cannot
            // make the reader reserve memory the message does not have.
            guard depth < WireWriter.maximumPlanDepth, let count = u32(), Int(count) <= bytes.count - offset else { return nil }
            var items: [JSONValue] = []
            items.reserveCapacity(Int(count))
            for _ in 0..<count {
                guard let item = value(depth: depth + 1) else { return nil }
                items.append(item)
            }
            return .array(items)
        case 6:
            guard depth < WireWriter.maximumPlanDepth, let count = u32(), Int(count) <= bytes.count - offset else { return nil }
            var members: [String: JSONValue] = [:]
            members.reserveCapacity(Int(count))
            for _ in 0..<count {
                guard let name = string(), let member = value(depth: depth + 1) else { return nil }
                members[name] = member
            }
            return .object(members)
        default: return nil
        }
    }
}

/// Why a channel stopped: the peer closed it (it died), it did not answer in time, or it sent something that
/// is not a message.
enum ChannelFailure: Error, CustomStringConvertible {
    case closed
    case timedOut(seconds: Double)
    case malformed(String)
    case io(Errno)

    var description: String {
        switch self {
        case .closed: "the sandbox closed its connection"
        case .timedOut(let seconds): "the sandbox did not answer within \(JSONText.number(seconds)) s"
        case .malformed(let what): "the sandbox sent a malformed message (\(what))"
        case .io(let errno): "the connection to the sandbox failed: \(errno)"
        }
    }
}

/// One end of a connection between the host and a sandbox: length-prefixed messages over a stream socket
/// (`socketpair`), a 16-byte header (kind, payload length, bytes of pending property writes, reserved) then the payload.
///
/// Thread rule: one thread at a time (each channel has its one thread on each side). `@unchecked Sendable` so that
/// the host can hand the plugin threads' channel to the thread that serves it, and use it there alone.
final class SandboxChannel: @unchecked Sendable {
    let fd: Int32
    /// The request channel's two rings in shared memory (``SandboxSharedMemory``), when it goes through them instead
    /// of the socket: the waiting side spins briefly, then sleeps on a futex the other side wakes, so a reply that
    /// comes at once costs no system call. `nil` on the plugin threads' channel, which uses its socket.
    private let rings: (send: OpaquePointer, receive: OpaquePointer)?
    private let ringCapacity: Int
    private let spinNanoseconds: UInt64
    /// Asked while a ring wait goes on: whether the other side is gone (then the wait ends as ``ChannelFailure/closed``).
    var isPeerGone: (() -> Bool)?
    /// The longest payload accepted (a plan or an emission is at most 1 MiB of JSON; a margin on top).
    static let maximumPayload = 64 << 20
    /// Received bytes: `[start, end)` is not parsed yet.
    private var input: UnsafeMutableRawPointer
    private var capacity = 1 << 16
    private var start = 0
    private var end = 0
    private var output: [UInt8] = []

    init(
        fd: Int32, rings: (send: OpaquePointer, receive: OpaquePointer)? = nil,
        ringCapacity: Int = 0, spinNanoseconds: UInt64 = 0
    ) {
        self.fd = fd
        self.rings = rings
        self.ringCapacity = ringCapacity
        self.spinNanoseconds = spinNanoseconds
        input = .allocate(byteCount: capacity, alignment: 16)
    }

    deinit { input.deallocate() }

    /// How long one ring wait sleeps before it asks ``isPeerGone`` and the deadline again.
    private static let sliceNanoseconds: UInt64 = 50_000_000

    /// Sends one message, waiting at most `timeout` seconds for room in the ring (`nil`: no limit).
    func send(_ kind: SandboxMessageKind, pendingWriteBytes: Int = 0, _ payload: WireWriter = WireWriter(), timeout: Double? = nil)
        throws(ChannelFailure)
    {
        output.removeAll(keepingCapacity: true)
        let header = (kind.rawValue.littleEndian, UInt32(payload.bytes.count).littleEndian, UInt32(pendingWriteBytes).littleEndian, UInt32(0))
        withUnsafeBytes(of: header) { output.append(contentsOf: $0.assumingMemoryBound(to: UInt8.self)) }
        output.append(contentsOf: payload.bytes)
        if let rings {
            let started = DispatchTime.now().uptimeNanoseconds
            var written = 0
            while written < output.count {
                written += output.withUnsafeBytes { raw in
                    cmotionhost_ring_write(
                        rings.send, ringCapacity, raw.baseAddress! + written, raw.count - written, spinNanoseconds, Int64(Self.sliceNanoseconds))
                }
                guard written < output.count else { break }
                if isPeerGone?() == true { throw .closed }
                if let timeout, Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9 >= timeout { throw .timedOut(seconds: timeout) }
            }
            return
        }
        let failure: Errno? = output.withUnsafeBytes { raw in
            do throws(Errno) {
                try system_sendAll(fd, raw.baseAddress!, count: raw.count)
                return nil
            } catch { return error }
        }
        if let failure { throw failure.rawValue == EPIPE || failure.rawValue == ECONNRESET ? .closed : .io(failure) }
    }

    /// Receives the next message, waiting at most `timeout` seconds for each part of it (`nil`: no limit).
    func receive(timeout: Double?) throws(ChannelFailure) -> SandboxMessage {
        while true {
            if let message = try parse() { return message }
            if start == end {
                start = 0
                end = 0
            }
            if let rings {
                let started = DispatchTime.now().uptimeNanoseconds
                while true {
                    let n = cmotionhost_ring_read(rings.receive, ringCapacity, input + end, capacity - end, spinNanoseconds, Self.sliceNanoseconds)
                    if n > 0 {
                        end += n
                        break
                    }
                    if isPeerGone?() == true { throw .closed }
                    if let timeout, Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9 >= timeout { throw .timedOut(seconds: timeout) }
                }
                continue
            }
            if let timeout {
                let milliseconds = Int32(min(timeout * 1000, Double(Int32.max)).rounded(.up))
                let isReadable: Bool
                do { isReadable = try system_pollReadable(fd, milliseconds: milliseconds) } catch { throw .io(error) }
                if !isReadable { throw .timedOut(seconds: timeout) }
            }
            let n: Int
            do { n = try system_read(fd, into: input + end, count: capacity - end) } catch {
                throw error.rawValue == ECONNRESET ? .closed : .io(error)
            }
            if n == 0 { throw .closed }
            end += n
        }
    }

    private func parse() throws(ChannelFailure) -> SandboxMessage? {
        let available = end - start
        if available >= 16 {
            let header = input + start
            let length = Int(UInt32(littleEndian: header.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
            guard length <= Self.maximumPayload else { throw .malformed("a payload of \(length) bytes") }
            if available >= 16 + length {
                let rawKind = UInt32(littleEndian: header.loadUnaligned(as: UInt32.self))
                guard let kind = SandboxMessageKind(rawValue: rawKind) else { throw .malformed("message kind \(rawKind)") }
                let pending = Int(UInt32(littleEndian: header.loadUnaligned(fromByteOffset: 8, as: UInt32.self)))
                let payload = Array(UnsafeBufferPointer(start: (header + 16).assumingMemoryBound(to: UInt8.self), count: length))
                start += 16 + length
                return SandboxMessage(kind: kind, pendingWriteBytes: pending, payload: WireReader(payload))
            }
            makeRoom(for: 16 + length)
        } else {
            makeRoom(for: 16)
        }
        return nil
    }

    /// Moves the unparsed bytes to the front, and grows the buffer, so that `needed` bytes fit.
    private func makeRoom(for needed: Int) {
        if start > 0, capacity - start < max(needed, 1 << 12) {
            memmove(input, input + start, end - start)
            end -= start
            start = 0
        }
        if capacity - start < needed {
            var grown = capacity
            while grown - start < needed { grown *= 2 }
            let larger = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 16)
            larger.copyMemory(from: input + start, byteCount: end - start)
            input.deallocate()
            input = larger
            end -= start
            start = 0
            capacity = grown
        }
    }
}

/// The memory the host and a sandbox share (a `memfd` both map): the members of an `update_many` call, host to
/// sandbox, and the plugin's queued property writes, sandbox to host.
///
/// Layout: the request channel's two rings (host to sandbox, sandbox to host) of ``ringCapacity`` bytes each, then
/// ``memberCapacity`` 32-bit performer slots, then ``writeBytes`` bytes of queued writes, one entry after another
/// in the order the plugin made them (a message's header says how many bytes of them precede it), each entry
/// starting with a 64-bit tag: the performer's slot + 1, with bit 63 set for a batch by property slot.
/// - A write by id (`set_property`, `set_properties`): ``idWriteSize`` bytes laid out as `motion_property_write`,
///   the tag in its `ctx` field.
/// - A `set_slots` batch (ABI 1.3, motion/slots.h), as the plugin gave it: the tag, the number of writes and of
///   values (32 bits each), then the writes (`motion_slot_write`, 8 bytes each), then the values (8 bytes each):
///   ``slotBatchHeaderSize`` + 8 × (writes + values) bytes. The host applies each where it lies, reading every
///   write and value once and checking what it read (``Scene/setSlotsCheckingEach(_:values:)``).
struct SandboxSharedMemory: @unchecked Sendable {
    // @unchecked: a mapping shared with another process; who touches which part when is the protocol's rule (the
    // rings are lock-free between their one producer and one consumer; the rest only during a request).
    static let memberCapacity = 1 << 18
    static let writeBytes = 3 << 20
    static let idWriteSize = 48
    static let slotBatchHeaderSize = 16
    static let ringCapacity = 4 << 20
    static let ringSize = cmotionhost_ring_header_size() + ringCapacity
    static let headerSize = 2 * ringSize
    static let size = headerSize + memberCapacity * 4 + writeBytes
    /// How long a side spins (pause) for the other's message at most before it sleeps on the futex (a
    /// read spins as long as its thread's recent waits needed, within this: `cmotionhost_ring_next_spin_ns`): above
    /// the tens of µs it takes to wake a process that slept on an idle virtual CPU, so that two processes on two
    /// idle cores keep each other awake; an idle side spins at most this long once before it sleeps.
    static let spinNanoseconds: UInt64 = 100_000

    /// How long a ring read spins next after a wait of `waited` ns with a spin of `budget` ns, at most `limit` ns
    /// (`cmotionhost_ring_next_spin_ns`, cmotionhost.h: twice the wait + 1 µs at once if more, an eighth of the way
    /// down if less; halved after a wait beyond the limit).
    static func nextSpinNanoseconds(budget: UInt64, waited: UInt64, limit: UInt64 = spinNanoseconds) -> UInt64 {
        cmotionhost_ring_next_spin_ns(budget, waited, limit)
    }

    let base: UnsafeMutableRawPointer
    /// The host's requests and replies to the sandbox.
    var hostToSandbox: OpaquePointer { OpaquePointer(base) }
    /// The sandbox's messages to the host.
    var sandboxToHost: OpaquePointer { OpaquePointer(base + Self.ringSize) }
    var members: UnsafeMutablePointer<UInt32> { (base + Self.headerSize).assumingMemoryBound(to: UInt32.self) }
    var writes: UnsafeMutableRawPointer { base + Self.headerSize + Self.memberCapacity * 4 }
}
