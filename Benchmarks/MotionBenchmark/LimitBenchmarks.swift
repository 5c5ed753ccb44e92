import CTweenLimit
import Foundation
import MotionCore

/// The hand-written limit of the Tween frame tick (Benchmarks/TweenLimit, plain C over a structure of arrays,
/// bit for bit the runtime's results: PluginBoundaryTests' TweenLimitTests), measured like the runtime's sides.
enum LimitBenchmarks {
    /// `count` running tweens in the C loop, the benchmark's Tween (0 → 1000 over 3000 s, easeInOut); returns a
    /// function that runs `frames` frames and checks that every tween moved on every frame.
    static func runningTweens(count: Int) throws -> (Int) throws -> Void {
        guard let tweens = ctweenlimit_create(count) else { throw BenchmarkError("out of memory for \(count) tweens") }
        for i in 0..<count { ctweenlimit_set(tweens, i, 0, 1000, 3000, 0, CTWEENLIMIT_EASE_IN_OUT) }
        let box = TweensBox(tweens)
        var time = 0.0
        _ = ctweenlimit_frame(tweens, time)
        return { frames in
            var changes = 0
            for _ in 0..<frames {
                time += 1.0 / 60
                changes += ctweenlimit_frame(box.tweens, time)
            }
            guard changes == frames * count, ctweenlimit_running(box.tweens) == count else {
                throw BenchmarkError("the C loop moved \(changes) of \(frames * count) values")
            }
        }
    }

    /// Owns the C tweens for as long as the runner that uses them.
    final class TweensBox {
        let tweens: OpaquePointer
        init(_ tweens: OpaquePointer) { self.tweens = tweens }
        deinit { ctweenlimit_destroy(tweens) }
    }

    /// Bytes the process's heap hands out now (`mallinfo2`: `uordblks` + `hblkhd`): unlike the resident set,
    /// exact to the byte, so a breakdown of small structures adds up.
    static func heapBytes() -> Int {
        Int(ctweenlimit_heap_bytes())
    }

    /// This process's resident set size, bytes; `field` `RssAnon` for its anonymous memory alone, `RssFile` for the
    /// rest (the pages of files it maps, its code among them, and shared memory).
    ///
    /// Read from `/proc/self/smaps_rollup` (`Rss`, `Anonymous`), which the kernel counts by walking the page tables
    /// when it is read: exact to the page. `/proc/self/status`'s `VmRSS`, `RssAnon` and `RssFile`, read before, are
    /// counters the kernel updates in per-CPU batches and reads without summing them exactly: at 10,000 Tweens two
    /// runs of one build gave 494.0 and 487.4 resident bytes per Tween, each 46–52 bytes more than its anonymous and
    /// file parts added up.
    static func residentBytes(_ field: String = "VmRSS") -> Int {
        guard let rollup = try? String(contentsOfFile: "/proc/self/smaps_rollup", encoding: .utf8) else { return 0 }
        func kilobytes(_ name: String) -> Int {
            guard let line = rollup.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return 0 }
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        let (resident, anonymous) = (kilobytes("Rss"), kilobytes("Anonymous"))
        switch field {
        case "RssAnon": return anonymous * 1024
        case "RssFile": return (resident - anonymous) * 1024
        default: return resident * 1024
        }
    }
}
