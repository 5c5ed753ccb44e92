import Foundation
import Glibc
import Synchronization
import Testing

@testable import MotionFiles

/// MotionFiles' replacements for the full-Foundation APIs the host and the CLI used (they import
/// FoundationEssentials only): each gives what the Foundation API gave, checked against Foundation itself.
@Suite struct FoundationEssentialsToolsTests {
    @Test(arguments: [
        ("%.1f ms", 12.345), ("%.2f", 0.005), ("%.2f", -1.0 / 3), ("idle after %.2f s", 1234.5678), ("%.0f", 2.5),
        ("%.10f", .pi), ("%.1f×", 0.85), ("%.2f", 1e300), ("%.2f", -0.0),
    ])
    func cFormatGivesWhatStringFormatGave(format: String, value: Double) {
        #expect(String(cFormat: format, value) == String(format: format, value))
    }

    @Test func cFormatFormatsIntegersAndLongOutput() {
        #expect(String(cFormat: "%04d", 7) == "0007")
        #expect(String(cFormat: "%04d", 12345) == "12345")
        #expect(String(cFormat: "%.0f ns; %.0f ns", 10.0, 20.6) == "10 ns; 21 ns")
        // Longer than the first 128-byte buffer: formatted again into one that fits.
        let long = String(cFormat: "%300.3f|", 1.5)
        #expect(long.utf8.count == 301)
        #expect(long.hasSuffix("1.500|"))
        #expect(long == String(format: "%300.3f|", 1.5))
    }

    @Test(arguments: [
        "  a b  ", "\t1.5\t", "\n x\n", "\u{00A0}y\u{2003}", "\u{2028}z\u{2029}", "\r\n", "", "   ", "\u{85}q\u{0B}", "é\u{301} ",
    ])
    func trimmingWhitespaceTrimsWhatCharacterSetTrimmed(text: String) {
        #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces))
        #expect(text.trimmingWhitespace(includingNewlines: true) == text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func detachedThreadRunsItsBodyUnderItsName() throws {
        let seen = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        try DetachedThread.start(name: "motion test thread name") {
            let comm = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
            seen.withLock { $0 = comm }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        // The kernel keeps the first 15 bytes.
        #expect(seen.withLock { $0 } == "motion test thr\n")
    }

    /// A thread that cannot be made (here: a stack larger than the address space, which `pthread_create` refuses
    /// with `EAGAIN` as it does at the thread limit) is an error the caller handles, not a trap; its body never runs.
    @Test func aThreadThatCannotBeMadeIsAnErrorAndItsBodyDoesNotRun() {
        let ran = Atomic<Bool>(false)
        var failure: ThreadStartFailure?
        do {
            try DetachedThread.start(name: "motion too big", stackBytes: 1 << 60) { ran.store(true, ordering: .relaxed) }
        } catch { failure = error }
        #expect(failure?.name == "motion too big")
        #expect(failure?.errorNumber == EAGAIN)
        #expect(failure?.description == "cannot start the thread motion too big: Resource temporarily unavailable")
        usleep(50_000)
        let didRun = ran.load(ordering: .relaxed)
        #expect(!didRun)
    }

    @Test func threadLockOrdersTheWritesOfManyThreads() {
        final class Counter: @unchecked Sendable {
            let lock = ThreadLock()
            var value = 0
        }
        let counter = Counter()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 { counter.lock.withLock { counter.value += 1 } }
        }
        #expect(counter.lock.withLock { counter.value } == 80_000)
    }

    @Test func standardStreamWritesEveryByte() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let text = String(repeating: "motion ✓\n", count: 1000)
        StandardStream(fileDescriptor: ends[1]).write(text)
        close(ends[1])
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(ends[0], $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes += chunk[..<n]
        }
        #expect(String(decoding: bytes, as: UTF8.self) == text)
    }
}
