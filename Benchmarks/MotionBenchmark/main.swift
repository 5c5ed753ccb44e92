// motion-benchmark: the runtime's speed, measured side by side in one run. Build in release:
//     swift run -c release motion-benchmark
import Foundation

if CommandLine.arguments.contains("--frames-only") {
    print(try RuntimeBenchmarks.frameCost())
    exit(0)
}
print("motion-benchmark — medians of 7 runs after a warm-up; \(ProcessInfo.processInfo.activeProcessorCount) cores\n")

var runtime = Table(header: ["runtime (in-process)", "result"])
runtime.add(["typed Swift plans committed", "\(format(try RuntimeBenchmarks.typedPlansPerSecond())) plans/s"])
runtime.add(["JSON transactions committed (10 plans each)", "\(format(try RuntimeBenchmarks.jsonPlansPerSecond())) plans/s"])
runtime.add(["frame tick, 10,000 frame-updated performers", "\(format(try RuntimeBenchmarks.frameCost(), 1)) ns per performer per frame"])
print(runtime.render())
