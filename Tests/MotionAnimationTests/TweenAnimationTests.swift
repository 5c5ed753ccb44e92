import MotionAnimation
import Testing

/// The Tween frame arithmetic that TweenKit's performer and the benchmark's in-process Tween share.
@Suite struct TweenAnimationTests {
    /// One frame of `tweens`: what it wrote, by key.
    private func frame(_ tweens: TweenAnimations, at time: Double, current: (Int64) -> [Double]? = { _ in nil }) -> [Int64: [Double]] {
        var written: [Int64: [Double]] = [:]
        tweens.advance(to: time, currentValue: current) { key, value in
            written[key] = value.array
            return true
        }
        return written
    }

    @Test func aDelayedLinearTweenStartsFromTheValueWhenItsDelayEnds() {
        let tweens = TweenAnimations()
        tweens.add(key: 3, curve: .linear, from: nil, to: [10, 20], duration: 1, delay: 0.5)
        var reads = 0
        let current: (Int64) -> [Double]? = { key in
            reads += 1
            return key == 3 ? [0, 10] : nil
        }
        #expect(frame(tweens, at: 2, current: current).isEmpty)  // the first frame fixes the start
        #expect(frame(tweens, at: 2.25, current: current).isEmpty)
        #expect(reads == 0)
        #expect(frame(tweens, at: 2.5, current: current) == [3: [0, 10]])
        #expect(frame(tweens, at: 3, current: current) == [3: [5, 15]])
        #expect(frame(tweens, at: 3.5, current: current) == [3: [10, 20]])
        #expect(reads == 1 && tweens.isEmpty)
    }

    @Test func finishedNamesEachStoppedTweenOnceAfterItsLastWrite() {
        let tweens = TweenAnimations()
        tweens.add(key: 1, curve: .linear, from: [0], to: [1], duration: 2, delay: 0)
        tweens.add(key: 2, curve: .linear, from: [0], to: [1], duration: 1, delay: 0)
        tweens.add(key: 3, curve: .linear, from: [0], to: [1], duration: 1, delay: 0)
        // Key 3 is added again without looking for the one running there: both run, as the caller asked.
        tweens.add(key: 3, curve: .linear, from: [0], to: [2], duration: 3, delay: 0, replacingExisting: false)
        var events: [String] = []
        func frame(at time: Double) {
            tweens.advance(to: time, currentValue: { _ in nil }) { key, value in
                events.append("write \(key) \(value.c0)")
                return key != 1 || time < 1.5  // key 1's write fails at 1.5: it stops there
            } finished: { key in
                events.append("finished \(key)")
            }
        }
        frame(at: 0)
        frame(at: 1)
        #expect(
            events == [
                "write 1 0.0", "write 2 0.0", "write 3 0.0", "write 3 0.0", "write 1 0.5", "write 2 1.0", "finished 2", "write 3 1.0", "finished 3",
                "write 3 0.6666666666666666",
            ])
        events.removeAll()
        frame(at: 1.5)
        #expect(events == ["write 1 0.75", "finished 1", "write 3 1.0"])
        #expect(tweens.keys == [3])
    }

    @Test func aCurrentValueOfAnotherShapeJumpsToTheEnd() {
        let tweens = TweenAnimations()
        tweens.add(key: 0, curve: .linear, from: nil, to: [1], duration: 1, delay: 0)
        #expect(frame(tweens, at: 0, current: { _ in [3, 4] }) == [0: [1]])
        #expect(tweens.count == 1)
    }

    @Test func aZeroDurationTweenFinishesOnItsFirstFrameAtItsEnd() {
        let tweens = TweenAnimations()
        tweens.add(key: 0, curve: .linear, from: [0], to: [7], duration: 0, delay: 0)
        #expect(frame(tweens, at: 4) == [0: [7]])
        #expect(tweens.isEmpty)
    }

    @Test func aNewTweenOnAKeyReplacesTheRunningOneAndFinishedOnesLeaveTheOthersInOrder() {
        let tweens = TweenAnimations()
        tweens.add(key: 1, curve: .easeInOut, from: [0], to: [1], duration: 10, delay: 0)
        tweens.add(key: 2, curve: .linear, from: [0], to: [1], duration: 0.5, delay: 0)
        tweens.add(key: 3, curve: .cubicBezier(try! CubicBezier(x1: 0.3, y1: 1.4, x2: 0.6, y2: 1)), from: [0], to: [1], duration: 2, delay: 0)
        tweens.add(key: 1, curve: .linear, from: [5], to: [6], duration: 1, delay: 0)
        #expect(tweens.keys == [2, 3, 1])
        _ = frame(tweens, at: 0)
        let half = frame(tweens, at: 0.5)
        #expect(half[2] == [1] && half[1] == [5.5])
        // The custom curve overshoots: its value passes 1 before the end.
        let custom = try! CubicBezier(x1: 0.3, y1: 1.4, x2: 0.6, y2: 1)
        #expect(half[3] == [custom.value(at: 0.25)])
        #expect(tweens.keys == [3, 1])
        tweens.remove(key: 3)
        #expect(tweens.keys == [1])
    }

    @Test(arguments: [TimingCurve.linear, .easeIn, .easeOut, .easeInOut])
    func everyFrameIsTheCurvesValueBitForBit(curve: TimingCurve) {
        let tweens = TweenAnimations()
        tweens.add(key: 0, curve: curve, from: [-3], to: [997], duration: 0.4, delay: 0.05)
        var time = 0.0
        _ = frame(tweens, at: time)
        while !tweens.isEmpty {
            time += 1.0 / 60
            let elapsed = time - 0.05
            guard let written = frame(tweens, at: time)[0]?.first else {
                #expect(elapsed < 0)
                continue
            }
            let expected = interpolate(from: -3, to: 997, fraction: curve.value(at: elapsed / 0.4))
            #expect(written.bitPattern == expected.bitPattern, "at \(time)")
        }
    }

    @Test func aWriteThatFailsStopsItsTweenOnly() {
        let tweens = TweenAnimations()
        tweens.add(key: 1, curve: .linear, from: [0], to: [1], duration: 1, delay: 0)
        tweens.add(key: 2, curve: .linear, from: [0], to: [1], duration: 1, delay: 0)
        var writes: [Int64] = []
        tweens.advance(to: 0, currentValue: { _ in nil }) { key, _ in
            writes.append(key)
            return key != 1
        }
        #expect(writes == [1, 2])
        #expect(tweens.keys == [2])
    }

    /// Scalar tweens take one 56-byte record, vectors two: finishing, removing and growing move them whole, in
    /// order, and a moved vector keeps every component.
    @Test func scalarAndVectorTweensKeepTheirOrderAndComponentsAsOthersFinish() {
        let tweens = TweenAnimations()
        for key in Int64(0)..<40 {
            // Every third a vector of 2, 3 or 4 components (0: 2, 3: 3, 6: 4, 9: 2, ...); every fifth finishes at 1.
            let count = key % 3 == 0 ? Int(2 + key / 3 % 3) : 1
            let to = (0..<count).map { Double(key) * 10 + Double($0) }
            tweens.add(key: key, curve: .linear, from: Array(repeating: 0, count: count), to: to, duration: key % 5 == 0 ? 1 : 2, delay: 0)
        }
        #expect(tweens.count == 40 && tweens.keys == Array(0..<40))
        #expect(tweens.componentCount(key: 3) == 3 && tweens.componentCount(key: 4) == 1 && tweens.componentCount(key: 6) == 4)
        _ = frame(tweens, at: 0)
        let end = frame(tweens, at: 1)
        let stopped = Set((Int64(0)..<40).filter { $0 % 5 == 0 })
        #expect(tweens.keys == (0..<40).filter { !stopped.contains($0) })
        #expect(end[15] == [150, 151, 152, 153])  // a stopped vector's last write is its `to`
        tweens.remove(key: 7)
        tweens.add(key: 99, curve: .linear, from: nil, to: [1, 2, 3], duration: 1, delay: 0)
        let later = frame(tweens, at: 1.5, current: { $0 == 99 ? [7, 8, 9] : nil })
        // Moved by the compaction, halfway (to / 2 + 0 / 2) plus a quarter of the rest: 3/4 of `to`.
        #expect(later[3] == [22.5, 23.25, 24])
        #expect(later[9] == [67.5, 68.25])
        #expect(later[8] == [60] && later[7] == nil)
        #expect(later[99] == [7, 8, 9])  // its first frame: read from the property, then at its start
        #expect(tweens.count == 32 && tweens.componentCount(key: 99) == 3 && tweens.componentCount(key: 7) == nil)
    }

    @Test func aTweenRemovedByHandleWritesNothingMoreAndTheOthersKeepTheirOrderAndHandles() {
        let tweens = TweenAnimations()
        let handles = (1...4).map { tweens.add(key: Int64($0), curve: .linear, from: [0], to: [Double($0)], duration: 2, delay: 0) }
        _ = frame(tweens, at: 0)
        tweens.remove(handles[1])
        #expect(tweens.keys == [1, 3, 4] && tweens.count == 3 && !tweens.hasNoRemovedRecords)
        // The pass drops the removed record, moving the two after it; their handles still name them.
        #expect(frame(tweens, at: 1) == [1: [0.5], 3: [1.5], 4: [2]])
        #expect(tweens.hasNoRemovedRecords)
        tweens.remove(handles[3])
        #expect(frame(tweens, at: 1.5) == [1: [0.75], 3: [2.25]])
        tweens.remove(handles[0])
        #expect(tweens.keys == [3])
        // A new tween gets a dropped record's handle only: key 2's or key 4's (dropped by the passes), not key 1's,
        // whose record waits for the next pass (an add that looks for a tween to replace would scan and drop it).
        let next = tweens.add(key: 5, curve: .linear, from: [0], to: [1], duration: 1, delay: 0, replacingExisting: false)
        #expect(next != handles[0] && Set([handles[1], handles[3]]).contains(next))
        #expect(frame(tweens, at: 2) == [3: [3], 5: [0]])
        tweens.remove(next)
        #expect(tweens.isEmpty)
    }

    @Test func aFinishedTweensHandleIsGivenOutAgainOnlyAfterItStopped() {
        let tweens = TweenAnimations()
        let short = tweens.add(key: 1, curve: .linear, from: [0], to: [1], duration: 0, delay: 0)
        let long = tweens.add(key: 2, curve: .linear, from: [0], to: [1], duration: 10, delay: 0)
        #expect(tweens.add(key: 3, curve: .linear, from: [0], to: [1], duration: 10, delay: 0) != short)
        var finished: [Int64] = []
        tweens.advance(to: 0, currentValue: { _ in nil }, write: { _, _ in true }) { finished.append($0) }
        #expect(finished == [1])
        let reused = tweens.add(key: 4, curve: .linear, from: [0], to: [1], duration: 10, delay: 0)
        #expect(reused == short)
        tweens.remove(long)
        tweens.remove(reused)
        #expect(tweens.keys == [3])
    }

    /// A handle names its record's unit: removing vectors (two units each) and scalars by handle, a frame's pass and
    /// a compaction move the others, a vector's two units together, and each handle still stops its own tween.
    @Test func handlesFollowScalarAndVectorTweensMovedByPassesAndCompactions() {
        let tweens = TweenAnimations()
        var handles: [Int64: TweenHandle] = [:]
        for key in Int64(0)..<12 {
            // 0, 3, 6 and 9 are vectors of 3 components; `to` is key × 10 plus the component's index.
            let count = key % 3 == 0 ? 3 : 1
            let to = (0..<count).map { Double(key) * 10 + Double($0) }
            handles[key] = tweens.add(
                key: key, curve: .linear, from: Array(repeating: 0, count: count), to: to, duration: 2, delay: 0, replacingExisting: false)
        }
        _ = frame(tweens, at: 0)
        // A vector and a scalar removed ahead of the others: the pass moves each later tween down 3 units.
        tweens.remove(handles[0]!)
        tweens.remove(handles[1]!)
        #expect(tweens.keys == Array(2..<12) && tweens.count == 10)
        let half = frame(tweens, at: 1)
        #expect(half.keys.sorted() == Array(2..<12) && tweens.hasNoRemovedRecords)
        #expect(half[3] == [15, 15.5, 16] && half[9] == [45, 45.5, 46] && half[4] == [20])
        tweens.remove(handles[3]!)
        tweens.remove(handles[4]!)
        #expect(tweens.keys == [2, 5, 6, 7, 8, 9, 10, 11])
        // The sixth removal outnumbers the 4 running tweens: its compaction moves the vectors on 6 and 9 down.
        for key: Int64 in [2, 5, 7] { tweens.remove(handles[key]!) }
        #expect(!tweens.hasNoRemovedRecords)
        tweens.remove(handles[8]!)
        #expect(tweens.hasNoRemovedRecords && tweens.keys == [6, 9, 10, 11])
        #expect(tweens.componentCount(key: 6) == 3 && tweens.componentCount(key: 10) == 1)
        let next = tweens.add(key: 20, curve: .linear, from: [0, 0], to: [1, 2], duration: 1, delay: 0, replacingExisting: false)
        #expect(Set([0, 1, 2, 3, 4, 5, 7, 8].map { handles[$0]! }).contains(next))
        #expect(frame(tweens, at: 1.5) == [6: [45, 45.75, 46.5], 9: [67.5, 68.25, 69], 10: [75], 11: [82.5], 20: [0, 0]])
        tweens.remove(handles[9]!)
        tweens.remove(next)
        #expect(tweens.keys == [6, 10, 11])
        tweens.remove(handles[6]!)
        #expect(frame(tweens, at: 2) == [10: [100], 11: [110]])
        #expect(tweens.isEmpty && tweens.hasNoRemovedRecords)
    }

    /// Tearing down n running tweens by handle, in the order a scheduler destroys its performers (the order they
    /// were made), in reverse, and interleaved with frames, visits O(n) records: removals are marked and dropped by
    /// one pass, never found by a scan each (which made tearing down 1,000,000 TweenKit Tweens quadratic).
    @Test(arguments: ["creation order", "reverse order", "with frames between"])
    func tearingDown100000RunningTweensVisitsEachRecordAFewTimes(order: String) {
        let n = 100_000
        let tweens = TweenAnimations()
        let handles = (0..<n).map {
            tweens.add(key: Int64($0), curve: .easeInOut, from: [0], to: [1], duration: 10, delay: 0, replacingExisting: false)
        }
        tweens.advance(to: 0, currentValue: { _ in nil }) { _, _ in true }
        let before = tweens.recordsVisited
        #expect(before == n)
        var frames = 0
        for (i, handle) in (order == "reverse order" ? handles.reversed() : handles).enumerated() {
            tweens.remove(handle)
            if order == "with frames between", i % 10_000 == 9_999 {
                tweens.advance(to: Double(i) / 1e5, currentValue: { _ in nil }) { _, _ in true }
                frames += 1
            }
        }
        #expect(tweens.isEmpty && tweens.hasNoRemovedRecords)
        // Each compaction visits the buffer and halves it at least (2n in all), each frame visits it once.
        #expect(tweens.recordsVisited - before <= 2 * n + frames * n)
        #expect(tweens.recordsVisited - before >= n)
    }
}
