import MotionAnimation
import Testing

/// The Tween frame arithmetic that TweenKit's performer and the benchmark's in-process Tween share.
@Suite struct TweenAnimationTests {
    @Test func aDelayedLinearTweenStartsFromTheValueWhenItsDelayEnds() {
        var tween = TweenAnimation(curve: .linear, from: nil, to: [10, 20], duration: 1, delay: 0.5)
        var reads = 0
        let current: () -> [Double]? = {
            reads += 1
            return [0, 10]
        }
        #expect(tween.advance(to: 2, currentValue: current) == .waiting)  // the first frame fixes the start
        #expect(tween.advance(to: 2.25, currentValue: current) == .waiting)
        #expect(reads == 0 && tween.from == nil)
        #expect(tween.advance(to: 2.5, currentValue: current) == .running)
        #expect(tween.from == [0, 10] && tween.values == [0, 10])
        #expect(tween.advance(to: 3, currentValue: current) == .running)
        #expect(tween.values == [5, 15])
        #expect(tween.advance(to: 3.5, currentValue: current) == .finished)
        #expect(tween.values == [10, 20] && reads == 1)
    }

    @Test func aCurrentValueOfAnotherShapeJumpsToTheEnd() {
        var tween = TweenAnimation(curve: .linear, from: nil, to: [1], duration: 1, delay: 0)
        #expect(tween.advance(to: 0, currentValue: { [3, 4] }) == .running)
        #expect(tween.from == [1] && tween.values == [1])
    }

    @Test func aZeroDurationTweenFinishesOnItsFirstFrameAtItsEnd() {
        var tween = TweenAnimation(curve: .linear, from: [0], to: [7], duration: 0, delay: 0)
        #expect(tween.advance(to: 4, currentValue: { nil }) == .finished)
        #expect(tween.values == [7])
    }
}
