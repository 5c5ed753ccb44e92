import DeviceMotion
import Foundation
import MotionCore
import Testing

/// An exhaustive test harness for a scheduler, in the manner of TCA's `TestStore`: the test commits
/// transactions, moves a test clock (frames run at `frameRate` as it passes), and must account for
/// everything the performers did that outlives the step. A test that ends with
///
/// - a transaction a performer emitted that the test did not assert with ``receiveEmitted(_:by:sourceLocation:)``, or
/// - an is-active token still held (the holders are named),
///
/// fails, with a message that says what happened and how to fix it. The checks run in ``finish(sourceLocation:)``,
/// and when the store goes away without it.
///
/// ```swift
/// @Test func fadeInEmitsATweenAndFinishes() throws {
///     let store = SchedulerTestStore(scene: Scene(targets: ["card"]), registry: registry)
///     try store.commit(Transaction([.add(Plan(type: "FadeIn", fields: ["duration": 0.3]), target: "card")]))
///     store.receiveEmitted(by: PerformerDescription(target: "card", className: "FadePerformer")) { transaction in
///         transaction.operations.count == 1
///     }
///     store.advance(by: .milliseconds(400))  // frames until the tween has ended and released its token
///     store.finish()
/// }
/// ```
///
/// Thread rule: the thread that created it (the scheduler's rule).
public final class SchedulerTestStore {
    /// The scene the scheduler's performers act on.
    public let scene: Scene
    /// The scheduler under test.
    public let scheduler: Scheduler
    /// The test clock: frames run only when the test advances it.
    public let clock: SimulatedClock
    /// Frames per second run as the clock advances.
    public let frameRate: Double
    /// Every event of the scheduler, in order.
    public let tracer = RecordingTracer()
    private var unasserted: [(transaction: Transaction, performer: PerformerDescription)] = []
    private var seenEvents = 0
    private var nextFrame = 0
    private var isFinished = false
    private let sourceLocation: SourceLocation

    /// A store over a new scheduler.
    /// - Parameters:
    ///   - scene: The targets.
    ///   - registry: Where plan types find their performers (an `InProcessRegistry`, a `PluginHost`, ...).
    ///   - clock: The test clock (a fresh one by default; pass a `TestMotionManager`'s or a `RecordingSource`'s
    ///     to pace a recording with the frames).
    ///   - frameRate: Frames per second, > 0 (default 60). Frame *i* runs at *i* / frameRate seconds.
    ///   - sourceLocation: Where failures found when the store goes away are reported.
    public init(
        scene: Scene, registry: any PerformerRegistry, clock: SimulatedClock = SimulatedClock(), frameRate: Double = 60,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        precondition(frameRate > 0 && frameRate.isFinite, "SchedulerTestStore: frameRate must be > 0, not \(frameRate)")
        self.scene = scene
        self.clock = clock
        self.frameRate = frameRate
        self.sourceLocation = sourceLocation
        scheduler = Scheduler(scene: scene, registry: registry)
        scheduler.addTracer(tracer)
    }

    deinit {
        if !isFinished { check(at: sourceLocation) }
    }

    /// Commits a transaction; transactions the performers emit while handling it wait to be asserted.
    /// - Throws: The scheduler's ``CommitError``.
    public func commit(_ transaction: Transaction) throws(CommitError) {
        defer { collect() }
        try scheduler.commit(transaction)
    }

    /// Moves the test clock forward and runs every frame whose time it reaches, in order.
    /// - Parameter duration: How far, ≥ 0.
    /// - Returns: The errors of queued emissions that failed, from every frame run.
    @discardableResult
    public func advance(by duration: Duration) -> [CommitError] {
        clock.advance(by: duration)
        var errors: [CommitError] = []
        while Double(nextFrame) / frameRate <= clock.elapsedSeconds + 1e-9 {
            errors += scheduler.advanceFrame(to: Double(nextFrame) / frameRate)
            nextFrame += 1
        }
        collect()
        return errors
    }

    /// Asserts the oldest emitted transaction not yet asserted: it must come from `performer` and satisfy
    /// `matches`. Records an issue otherwise (and when there is none).
    /// - Parameters:
    ///   - performer: The performer expected to have emitted it.
    ///   - matches: What the transaction must satisfy (by default anything).
    ///   - sourceLocation: Where a failure is reported.
    public func receiveEmitted(
        by performer: PerformerDescription, sourceLocation: SourceLocation = #_sourceLocation,
        _ matches: (Transaction) -> Bool = { _ in true }
    ) {
        guard !unasserted.isEmpty else {
            Issue.record(
                "No emitted transaction is left to assert: \(performer) was expected to emit one. To fix, check that the plan that emits it was committed and its frames ran, or remove this receiveEmitted",
                sourceLocation: sourceLocation)
            return
        }
        let (transaction, emitter) = unasserted.removeFirst()
        if emitter != performer {
            Issue.record(
                "The next emitted transaction came from \(emitter), not \(performer): \(Self.text(transaction)). To fix, assert the emissions in the order they happened",
                sourceLocation: sourceLocation)
        } else if !matches(transaction) {
            Issue.record(
                "The transaction \(performer) emitted does not match: \(Self.text(transaction)). To fix, change what the test expects, or the performer",
                sourceLocation: sourceLocation)
        }
    }

    /// Asserts the oldest emitted transaction not yet asserted equals `expected` and came from `performer`.
    /// - Parameters:
    ///   - expected: The transaction.
    ///   - performer: The performer expected to have emitted it.
    ///   - sourceLocation: Where a failure is reported.
    public func receiveEmitted(
        _ expected: Transaction, by performer: PerformerDescription, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        receiveEmitted(by: performer, sourceLocation: sourceLocation) { $0 == expected }
    }

    /// The emitted transactions not asserted yet, oldest first, with their emitters.
    public var unassertedEmissions: [(transaction: Transaction, performer: PerformerDescription)] { unasserted }

    /// Ends the test: records an issue for every emitted transaction not asserted and for tokens still held
    /// (naming the holders). Called by the store's `deinit` when the test does not call it.
    /// - Parameter sourceLocation: Where failures are reported.
    public func finish(sourceLocation: SourceLocation = #_sourceLocation) {
        isFinished = true
        check(at: sourceLocation)
    }

    private func check(at sourceLocation: SourceLocation) {
        collect()
        if !unasserted.isEmpty {
            let list = unasserted.map { "\($0.performer) emitted \(Self.text($0.transaction))" }.joined(separator: "; ")
            Issue.record(
                "The test ended with \(unasserted.count) emitted transaction(s) not asserted: \(list). To fix, assert each with receiveEmitted(_:by:) (in the order they were emitted)",
                sourceLocation: sourceLocation)
            unasserted.removeAll()
        }
        let holders = scheduler.tokenHolders
        if !holders.isEmpty {
            let list = holders.map { "\($0.performer) holds \($0.tokens)" }.joined(separator: ", ")
            Issue.record(
                "The test ended with is-active tokens still held: \(list). To fix, advance the clock until the performers finish (store.advance(by:)), or end what keeps them running (remove the named plan)",
                sourceLocation: sourceLocation)
        }
    }

    /// Moves new emissions from the tracer to the unasserted list.
    private func collect() {
        let events = tracer.events
        for event in events[seenEvents...] {
            if case .emitted(let transaction, let performer, _) = event { unasserted.append((transaction, performer)) }
        }
        seenEvents = events.count
    }

    private static func text(_ transaction: Transaction) -> String {
        (try? transaction.jsonData()).map { String(decoding: $0, as: UTF8.self) } ?? "\(transaction)"
    }
}
