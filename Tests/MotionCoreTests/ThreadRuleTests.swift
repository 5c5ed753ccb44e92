import Foundation
import MotionCore
import Testing

/// The thread rule ("a scheduler is used on the thread that created it"), checked at every public entry
/// point of `Scheduler`. In debug builds a call from another thread traps; each case runs in a child
/// process (an exit test) so the trap does not end the test run.
@Suite struct ThreadRuleTests {
    /// The public entry points of `Scheduler` that check the rule, by the name the trap message gives.
    enum EntryPoint: String, CaseIterable, Codable, Sendable {
        case isActive, outstandingTokenCount, tokenHolders, performerDescriptions, performerCount
        case frameUpdatedPerformerCount
        case addActivityObserver = "addActivityObserver(_:)"
        case removeActivityObserver = "removeActivityObserver(_:)"
        case addTracer = "addTracer(_:)"
        case removeTracer = "removeTracer(_:)"
        case forEachPerformer = "forEachPerformer(_:)"
        case performer = "performer(forTarget:className:)"
        case processPendingWork = "processPendingWork()"
        case advanceFrame = "advanceFrame(to:)"

        /// Calls the entry point once.
        func call(on scheduler: Scheduler) {
            let observer = ActivityObserverClosure { _ in }
            let tracer = NoTracer()
            switch self {
            case .isActive: _ = scheduler.isActive
            case .outstandingTokenCount: _ = scheduler.outstandingTokenCount
            case .tokenHolders: _ = scheduler.tokenHolders
            case .performerDescriptions: _ = scheduler.performerDescriptions
            case .performerCount: _ = scheduler.performerCount
            case .frameUpdatedPerformerCount: _ = scheduler.frameUpdatedPerformerCount
            case .addActivityObserver: scheduler.addActivityObserver(observer)
            case .removeActivityObserver: scheduler.removeActivityObserver(observer)
            case .addTracer: scheduler.addTracer(tracer)
            case .removeTracer: scheduler.removeTracer(tracer)
            case .forEachPerformer: scheduler.forEachPerformer { _ in }
            case .performer: _ = scheduler.performer(forTarget: "a", className: "TokenPerformer")
            case .processPendingWork: scheduler.processPendingWork()
            case .advanceFrame: scheduler.advanceFrame(to: 1)
            }
        }
    }

    final class NoTracer: Tracer {
        func trace(_ event: TraceEvent) {}
    }

    @Test(arguments: EntryPoint.allCases)
    func everyEntryPointWorksOnTheSchedulersThread(_ entryPoint: EntryPoint) {
        let scheduler = Scheduler(scene: Scene(targets: ["a"]), registry: InProcessRegistry())
        entryPoint.call(on: scheduler)
        #expect(!scheduler.isActive)
    }

    #if DEBUG
        @Test(arguments: EntryPoint.allCases)
        func anEntryPointCalledFromAnotherThreadTrapsNamingItselfAndTheRule(_ entryPoint: EntryPoint) async throws {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                [entryPoint] in
                let scheduler = Scheduler(scene: Scene(targets: ["a"]), registry: InProcessRegistry())
                nonisolated(unsafe) let unsafeScheduler = scheduler
                let thread = Thread { entryPoint.call(on: unsafeScheduler) }
                thread.start()
                while !thread.isFinished { usleep(1000) }
            }
            let standardError = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
            #expect(standardError.contains("Scheduler.\(entryPoint.rawValue) was called off the scheduler's thread"))
            #expect(standardError.contains("a scheduler is used on the thread that created it. To fix,"))
        }
    #endif

    @Test func commitFromAnotherThreadIsRefusedInEveryBuild() throws {
        let scheduler = Scheduler(scene: Scene(targets: ["a"]), registry: InProcessRegistry())
        nonisolated(unsafe) let unsafeScheduler = scheduler
        nonisolated(unsafe) var failure: CommitError?
        let thread = Thread {
            do { try unsafeScheduler.commit(Transaction()) } catch { failure = error as? CommitError }
        }
        thread.start()
        while !thread.isFinished { usleep(1000) }
        #expect(failure?.code == .wrongThread)
    }
}
