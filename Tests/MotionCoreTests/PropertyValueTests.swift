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

    @Test("setting a component past count extends the value, so equal values have equal components")
    func settingPastCount() {
        var value = PropertyValue(1)
        value[2] = 5
        #expect(value.count == 3)
        #expect(value.components == [1, 0, 5])
        #expect(value == PropertyValue([1, 0, 5]))
        #expect(value != PropertyValue(1))
        value[4] = 9
        value[-1] = 9
        #expect(value == PropertyValue([1, 0, 5]))
        // Setting within count keeps it.
        value[0] = 2
        #expect(value == PropertyValue([2, 0, 5]))
    }
}
