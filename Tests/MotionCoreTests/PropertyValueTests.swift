import MotionCore
import Testing

@Suite("Property values")
struct PropertyValueTests {
    @Test("isFinite is false when any component is infinite or NaN, and ignores components past count")
    func finiteness() {
        #expect(PropertyValue([1, 2, 3, 4]).isFinite)
        #expect(PropertyValue(-0.0).isFinite)
        #expect(!PropertyValue(.nan).isFinite)
        #expect(!PropertyValue([1, .infinity]).isFinite)
        #expect(!PropertyValue([1, 2, 3, -.infinity]).isFinite)
        // A buffer of one value: the NaN after it in memory is not a component.
        let memory: [Double] = [5, .nan, .nan, .nan]
        let value = memory.withUnsafeBufferPointer { PropertyValue(UnsafeBufferPointer(rebasing: $0[..<1])) }
        #expect(value.isFinite && value.count == 1 && value[1] == 0)
    }
}
