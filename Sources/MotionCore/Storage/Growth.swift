/// Growth by half for the arrays that hold one element per performer, target or slot.
///
/// The standard library doubles an array's buffer when an append finds it full, so a buffer is a quarter
/// empty on average and up to half empty: 10,000 performers' records took 16,384 records' room (issue 12's
/// memory per running Tween, 640 B at 10,000 against 467 B at 1,000,000, was mostly this). Growing by half
/// leaves a sixth empty on average, a third at most, for about one more copy of each element in all.
extension RangeReplaceableCollection where Self: RandomAccessCollection {
    /// The capacity to reserve before appending to a full buffer of `count` elements: half as many again.
    @inline(__always)
    static func grownCapacity(_ count: Int) -> Int { Swift.max(16, count + count / 2) }
}

extension ContiguousArray {
    /// Appends `element`, first growing a full buffer by half (``RangeReplaceableCollection/grownCapacity(_:)``)
    /// rather than doubling it.
    @inline(__always)
    mutating func appendGrowingByHalf(_ element: Element) {
        if count == capacity { reserveCapacity(Self.grownCapacity(count)) }
        append(element)
    }
}

extension Array {
    /// Appends `element`, first growing a full buffer by half rather than doubling it.
    @inline(__always)
    mutating func appendGrowingByHalf(_ element: Element) {
        if count == capacity { reserveCapacity(Self.grownCapacity(count)) }
        append(element)
    }
}
