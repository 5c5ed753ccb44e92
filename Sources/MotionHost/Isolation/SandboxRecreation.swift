import MotionCore

/// R43's calls to an isolated plugin's new sandbox (a reload or a restart re-creating its performers) made as one
/// request instead of a round trip each: 1,000 running Tweens were 1,000 `create` and 1,000 plan requests, each
/// waited for, plus a `slot()` and a `token_generate` call of the plugin's per performer, back to the host.
///
/// Before ``Scheduler/recreatePerformers(of:)`` runs, the host asks the scheduler what it will call
/// (``Scheduler/recreationOutline(of:)``: every performer's `create`, then each new performer's plans, in order) and
/// sends those calls in one ``SandboxMessageKind/recreate`` request (in parts of at most ``partBytes``, each sent
/// when the sandbox has made the one before). The sandbox makes them one after another exactly as it makes them
/// alone, and keeps their replies; it gives a performer whose `create` failed none of its plans, as R43 does. Then
/// R43 runs as always, and each of its calls to the new sandbox takes the next reply instead of sending a request
/// (``IsolatedPlugin/batchedReply(_:slot:member:)``): so R43 decides, reports and traces everything as before (a
/// failed `create` keeps the old performer, a refused plan is dropped and reported, named plans by name).
///
/// Everything else the sandbox sends meanwhile stays in order with those replies: it sends the replies it kept
/// (``SandboxMessageKind/recreateResults``) before any other message, and the host reads the next message only
/// once it has used every reply before it, so the plugin's calls of the host during one of R43's calls (a log line,
/// an emission, a property read) are answered while R43 makes that call, as in process. Its writes reach the host
/// before its reply does. Two of its calls need no round trip here: `slot()` of a property the plan names (the
/// request carries the slots, which never change) and `token_generate`, which the sandbox answers with an id of its
/// own (bit 63 set, ``RecreationBatch/tokenBit``) and lists with the replies; the host takes the scheduler's token
/// for it when it reads that entry, in the same place among R43's calls, and terminates the scheduler's token when
/// the plugin terminates its id (``BatchTokens``).
///
/// A sandbox that dies, hangs or sends something that does not fit mid-batch fails as it would in any call (the
/// plugin timeout applies to each message); replies that do not match R43's calls fail the sandbox as malformed.
final class SandboxRecreation {
    /// About the bytes of calls in one part of the request (a part ends after the call that reaches it).
    static let partBytes = 64 << 10
    /// The most bytes of parts sent and not yet made by the sandbox: a quarter of the ring, so sending never waits for
    /// room (while the host would wait, the sandbox may be waiting for the host's answer to one of its calls).
    static let windowBytes = SandboxSharedMemory.ringCapacity / 4

    /// One part of the request being written: whether it is the last, the number of calls, then each call's kind and
    /// payload.
    struct Part {
        var bytes = WireWriter(capacity: SandboxRecreation.partBytes + 4096)
        var count: UInt32 = 0

        init() {
            bytes.bool(false)
            bytes.u32(0)
        }

        mutating func add(_ kind: SandboxMessageKind, _ payload: WireWriter) {
            bytes.u32(kind.rawValue)
            payload.bytes.withUnsafeBytes { bytes.data($0) }
            count += 1
        }

        /// The part's bytes, with its flag and count filled in.
        func closed(isLast: Bool) -> WireWriter {
            var closed = bytes
            closed.bytes[0] = isLast ? 1 : 0
            closed.bytes.withUnsafeMutableBytes { $0.storeBytes(of: count.littleEndian, toByteOffset: 1, as: UInt32.self) }
            return closed
        }
    }

    /// One of R43's calls, as the batch expects it.
    struct Call {
        let slot: UInt32
        /// `nil` for a `create`.
        let plan: Plan?
        let name: String?
        /// Why the call's request could not be made (the plan's JSON encoding failed): R43 gets it thrown, and
        /// the sandbox never sees the call, as in process.
        let problem: (any Error)?
    }

    /// What the sandbox sent, in order, not used yet.
    enum Entry {
        case reply(WireReader)
        case token(slot: UInt32, id: UInt64)
    }

    var calls: [Call] = []
    var position = 0
    var parts: [WireWriter] = []
    var partsSent = 0
    var partsEnded = 0
    /// The bytes of the parts sent and not ended yet.
    var bytesInFlight = 0
    var entries: [Entry] = []
    var entryIndex = 0
    /// Performers whose `create` failed: R43 gives them no plans, and the sandbox made none.
    var failedSlots: Set<UInt32> = []

    /// The next call R43 makes, past those of performers whose `create` failed.
    func nextCall() -> Call? {
        while position < calls.count, calls[position].plan != nil, failedSlots.contains(calls[position].slot) { position += 1 }
        return position < calls.count ? calls[position] : nil
    }
}

/// The tokens an isolated plugin took during a recreation batch (``SandboxRecreation``): the sandbox's id of each, and
/// the scheduler's id the host took for it once it read the entry.
///
/// Thread rule: behind a lock; the scheduler's thread adds, either channel's thread translates.
struct BatchTokens {
    /// The scheduler's token for each of the sandbox's ids (0 when the scheduler gave none).
    var ids: [UInt64: UInt64] = [:]
    /// Ids the plugin terminated (from a thread of its own) before the host had read them: their tokens end as soon as
    /// they are taken, as the scheduler ends a token terminated before its generation was seen.
    var terminatedEarly: Set<UInt64> = []

    /// The scheduler's id for a token id the plugin gave back: `id` itself when it is not the sandbox's; `nil` when it
    /// is one the host has not read yet (then noted as terminated early).
    mutating func schedulerID(terminating id: UInt64) -> UInt64? {
        guard id & RecreationBatch.tokenBit != 0 else { return id }
        if let known = ids[id] { return known }
        terminatedEarly.insert(id)
        return nil
    }
}

extension IsolatedPlugin {
    /// Sends R43's calls for `outline`'s performers (of the plugin `member`) to this sandbox as one request, to be
    /// answered as ``Scheduler/recreatePerformers(of:)`` makes them (``SandboxRecreation``). Nothing is sent when
    /// there is nothing to re-create, or when a plan must be prepared again (its class's preparation changed: R43
    /// then makes its calls one by one).
    /// - Returns: Whether a batch was started; then ``endRecreation()`` must follow R43.
    func beginRecreation(_ outline: [PerformerRecreationOutline], member: Int) -> Bool {
        guard !outline.isEmpty, failure == nil, isRunning, !outline.contains(where: { $0.plans.contains { $0.plan == nil } }) else {
            return false
        }
        let batch = SandboxRecreation()
        recreation = batch
        let firstSlot = UInt32(slotCount)
        let byHandle = members[member].takesPlansByHandle
        // Parts of about ``SandboxRecreation/partBytes`` each, sent as they are made (the sandbox starts on the
        // creates while the plans are written), as many at a time as ``SandboxRecreation/windowBytes`` allows.
        var part = SandboxRecreation.Part()
        func add(_ kind: SandboxMessageKind, _ payload: WireWriter) {
            part.add(kind, payload)
            guard part.bytes.bytes.count >= SandboxRecreation.partBytes else { return }
            batch.parts.append(part.closed(isLast: false))
            part = SandboxRecreation.Part()
            sendRecreationParts(member: member)
        }
        for (offset, performer) in outline.enumerated() {
            let slot = firstSlot + UInt32(offset)
            batch.calls.append(SandboxRecreation.Call(slot: slot, plan: nil, name: nil, problem: nil))
            add(
                .create,
                IsolatedPerformer.createRequest(
                    plugin: self, member: member, slot: slot, className: performer.performerClass.name, target: performer.target))
        }
        for (offset, performer) in outline.enumerated() {
            let slot = firstSlot + UInt32(offset)
            for case let (plan?, name) in performer.plans {
                do {
                    let (kind, payload) = try IsolatedPerformer.planRequest(
                        plan, named: name, slot: slot, byHandle: byHandle, target: performer.target, withSlots: true)
                    batch.calls.append(SandboxRecreation.Call(slot: slot, plan: plan, name: name, problem: nil))
                    add(kind, payload)
                } catch {
                    batch.calls.append(SandboxRecreation.Call(slot: slot, plan: plan, name: name, problem: error))
                }
            }
        }
        batch.parts.append(part.closed(isLast: true))
        sendRecreationParts(member: member)
        return recreation != nil
    }

    /// Drops a batch R43 refused to start (called at the wrong moment: it made none of the calls); the sandbox is
    /// then ended by the caller, its performers never having been the host's.
    func abandonRecreation() { recreation = nil }
}
