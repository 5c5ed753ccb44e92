import CMotionHostSupport

/// How the waits of one sandbox's request channel went since it started, counted in its two rings
/// (`cmotionhost_ring_statistics`, cmotionhost.h): for `motion-benchmark --profile-plans isolated` to say where a
/// round trip's time goes (how often each side found the other's message at once, caught it spinning, or slept on
/// the futex and had to be woken with a system call).
package struct SandboxWaitStatistics: Sendable {
    /// One side's waits for the other side's messages.
    package struct Side: Sendable {
        /// Messages (or parts of one) read.
        package let reads: UInt64
        /// Of them, read at the first look, with no wait.
        package let ready: UInt64
        /// Waits that ended while spinning.
        package let spun: UInt64
        /// Waits that slept on the futex.
        package let slept: UInt64
        /// Seconds spent spinning and asleep, in all waits.
        package let spinSeconds: Double
        package let sleepSeconds: Double
        /// Futex wakes the other side made for this one while it slept (a system call each).
        package let wakes: UInt64
        /// Waits that began with the other side's last message written from this side's CPU (this side then sleeps
        /// at once: the other is most likely queued behind it).
        package let sameCPU: UInt64
        /// Waits by duration (`CLOCK_MONOTONIC`, first look to bytes seen), in ``bucketBounds``.
        package let waitHistogram: [UInt64]
        /// Sleeps by wake-up latency: from the other side's futex wake to this side running again, in ``bucketBounds``.
        package let wakeHistogram: [UInt64]
        /// Each histogram bucket's upper bound in seconds (the last is unbounded): 1 µs, 2 µs, 4 µs, ... 16.384 ms.
        package static let bucketBounds: [Double] = (0..<Int(CMOTIONHOST_RING_BUCKETS)).map {
            $0 == Int(CMOTIONHOST_RING_BUCKETS) - 1 ? .infinity : Double(1 << $0) * 1e-6
        }

        init(_ counts: cmotionhost_ring_statistics) {
            reads = counts.reads
            ready = counts.ready
            spun = counts.spun
            slept = counts.slept
            spinSeconds = Double(counts.spin_ns) / 1e9
            sleepSeconds = Double(counts.sleep_ns) / 1e9
            wakes = counts.wakes
            sameCPU = counts.same_cpu
            var copy = counts
            waitHistogram = withUnsafeBytes(of: &copy.wait_histogram) { Array($0.bindMemory(to: UInt64.self)) }
            wakeHistogram = withUnsafeBytes(of: &copy.wake_histogram) { Array($0.bindMemory(to: UInt64.self)) }
        }
    }

    /// The plugin's id (the first member's, for a sandbox group).
    package let pluginID: String
    /// The host's waits for the sandbox's replies and requests.
    package let host: Side
    /// The sandbox's waits for the host's requests and replies.
    package let sandbox: Side
}

extension PluginHost {
    /// The wait counts of every running sandbox of this host, in the order they started.
    package func sandboxWaitStatistics() -> [SandboxWaitStatistics] {
        isolatedPlugins.compactMap { plugin in
            plugin.waitCounts.map { SandboxWaitStatistics(pluginID: plugin.pluginID, host: .init($0.host), sandbox: .init($0.sandbox)) }
        }
    }
}

extension IsolatedPlugin {
    /// The counts of the rings of the running sandbox's request channel: the host's reads (sandbox to host) and the
    /// sandbox's (host to sandbox), or `nil` when no sandbox runs.
    var waitCounts: (host: cmotionhost_ring_statistics, sandbox: cmotionhost_ring_statistics)? {
        guard failure == nil, let memory = runningMemory else { return nil }
        var host = cmotionhost_ring_statistics()
        var sandbox = cmotionhost_ring_statistics()
        cmotionhost_ring_get_statistics(memory.sandboxToHost, &host)
        cmotionhost_ring_get_statistics(memory.hostToSandbox, &sandbox)
        return (host, sandbox)
    }
}
