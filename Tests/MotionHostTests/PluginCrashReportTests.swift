import Foundation
import Testing

@testable import MotionHost

/// ``PluginCrashReport``'s call marks: per thread, nested, with the call and the frame.
@Suite struct PluginCrashReportTests {
    nonisolated(unsafe) private static let first = UnsafePointer(strdup("org.example.first (first.json)")!)
    nonisolated(unsafe) private static let second = UnsafePointer(strdup("org.example.second (second.json)")!)

    @Test func aMarkBelongsToTheThreadThatSetIt() throws {
        // Thread A marks a call and waits, inside it, until thread B has marked another call; each must
        // still see its own mark (a process-wide mark would blame A's crash on B's plugin).
        let aMarked = DispatchSemaphore(value: 0)
        let bMarked = DispatchSemaphore(value: 0)
        let bMayEnd = DispatchSemaphore(value: 0)
        let seen = SeenMarks()
        let a = Thread {
            PluginCrashReport.calling(Self.first, .update, frame: 7) {
                aMarked.signal()
                _ = bMarked.wait(timeout: .now() + 10)
                seen.set(a: PluginCrashReport.currentPlugin, call: PluginCrashReport.currentCall, frame: PluginCrashReport.currentFrame)
                bMayEnd.signal()
            }
            seen.finishedA.signal()
        }
        let b = Thread {
            _ = aMarked.wait(timeout: .now() + 10)
            PluginCrashReport.calling(Self.second, .addPlan) {
                bMarked.signal()
                _ = bMayEnd.wait(timeout: .now() + 10)
                seen.set(b: PluginCrashReport.currentPlugin)
            }
            seen.finishedB.signal()
        }
        a.start()
        b.start()
        try #require(seen.finishedA.wait(timeout: .now() + 20) == .success)
        try #require(seen.finishedB.wait(timeout: .now() + 20) == .success)
        #expect(seen.a == "org.example.first (first.json)")
        #expect(seen.aCall == "update")
        #expect(seen.aFrame == 7)
        #expect(seen.b == "org.example.second (second.json)")
        #expect(PluginCrashReport.currentPlugin == nil)
    }

    @Test func marksNestAndTheOuterOneComesBack() {
        PluginCrashReport.calling(Self.first, .update, frame: 3) {
            PluginCrashReport.calling(Self.second, .addPlan) {
                #expect(PluginCrashReport.currentPlugin == "org.example.second (second.json)")
                #expect(PluginCrashReport.currentCall == "add_plan")
                #expect(PluginCrashReport.currentFrame == nil)
            }
            #expect(PluginCrashReport.currentPlugin == "org.example.first (first.json)")
            #expect(PluginCrashReport.currentCall == "update")
            #expect(PluginCrashReport.currentFrame == 3)
        }
        #expect(PluginCrashReport.currentPlugin == nil)
    }

    @Test func aLoadedLibraryIsFoundByAnAddressInsideIt() throws {
        // libc's strlen: a library that is surely loaded; an address outside every recorded one is not found.
        let name = UnsafePointer(strdup("org.example.libc (libc.json)")!)
        let strlenAddress = try #require(dlsym(nil, "strlen"))  // nil: RTLD_DEFAULT
        #expect(PluginCrashReport.recordLibrary(containing: strlenAddress, name: name))
        #expect(PluginCrashReport.plugin(owning: strlenAddress) == "org.example.libc (libc.json)")
        var local = 0
        let stackAddress = withUnsafePointer(to: &local) { UnsafeRawPointer($0) }
        #expect(PluginCrashReport.plugin(owning: stackAddress) == nil)
    }
}

/// What the two threads saw, behind a lock.
private final class SeenMarks: @unchecked Sendable {
    // @unchecked: every field is behind `lock`.
    private let lock = NSLock()
    private var values: (a: String?, aCall: String?, aFrame: Int?, b: String?) = (nil, nil, nil, nil)
    let finishedA = DispatchSemaphore(value: 0)
    let finishedB = DispatchSemaphore(value: 0)

    func set(a: String?, call: String?, frame: Int?) { lock.withLock { values = (a, call, frame, values.b) } }
    func set(b: String?) { lock.withLock { values.b = b } }
    var a: String? { lock.withLock { values.a } }
    var aCall: String? { lock.withLock { values.aCall } }
    var aFrame: Int? { lock.withLock { values.aFrame } }
    var b: String? { lock.withLock { values.b } }
}
