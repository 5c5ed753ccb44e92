import MotionCore
import Testing

@Suite("Property store: slots and the change log")
struct PropertyStoreTests {
    @Test("a write through a slot is what the property reads, and is logged once per drain with its latest value")
    func slotWritesAreLoggedOncePerDrain() {
        let scene = Scene()
        let card = scene.addTarget("card", properties: ["x": 1])
        let x = scene.propertyID("x")
        let slot = card.slot(for: x)
        card.setScalar(2, at: slot)
        card.setScalar(3, at: slot)
        #expect(card[x] == 3)
        #expect(card.value(at: slot) == 3)
        #expect(scene.drainChanges() == [PropertyChange(target: "card", property: x, value: 3)])
        #expect(scene.drainChanges().isEmpty)
        // The same value again is no change.
        card.setScalar(3, at: slot)
        #expect(scene.drainChanges().isEmpty)
    }

    @Test("slots made interleaved across targets and properties are each found again, by slot, id and name, and by the scene")
    func interleavedSlotsAreFoundAgain() {
        // Each target's slots are a chain in the store (no table keyed by target and property): made in an
        // order that interleaves targets, each must still name its own pair.
        let scene = Scene()
        let targets = (0..<5).map { scene.addTarget(TargetID("t\($0)")) }
        let properties = ["x", "y", "opacity", "scale"].map(scene.propertyID)
        var slots: [[PropertySlot]] = Array(repeating: [], count: targets.count)
        for property in properties {
            for (i, target) in targets.enumerated() { slots[i].append(target.slot(for: property)) }
        }
        #expect(Set(slots.joined()).count == targets.count * properties.count)
        for (i, target) in targets.enumerated() {
            for (j, property) in properties.enumerated() {
                #expect(target.slot(for: property) == slots[i][j])
                target.setScalar(Double(i * 10 + j), at: slots[i][j])
            }
        }
        for (i, target) in targets.enumerated() {
            for (j, property) in properties.enumerated() {
                #expect(target[property] == PropertyValue(Double(i * 10 + j)))
                #expect(scene.value(at: slots[i][j]) == PropertyValue(Double(i * 10 + j)))
            }
            #expect(target.properties.map(\.name) == ["opacity", "scale", "x", "y"])
            #expect(target["y"] == PropertyValue(Double(i * 10 + 1)))
        }
        // A write by id finds the same slot.
        targets[3].setValue(PropertyValue(-1), for: properties[2])
        #expect(scene.value(at: slots[3][2]) == PropertyValue(-1))
        #expect(targets[2][properties[2]] == PropertyValue(22))
    }

    @Test("thousands of targets are each found by name, in the order added, and a name added again returns its target")
    func manyTargetsAreFoundByName() {
        // The scene's name table grows from 16 buckets by rehashing: every name must survive each growth.
        let scene = Scene()
        let names = (0..<5000).map { TargetID("target \($0)") }
        for (i, name) in names.enumerated() { scene.addTarget(name, properties: ["x": PropertyValue(Double(i))]) }
        #expect(scene.targets.map(\.id) == names)
        #expect(names.indices.allSatisfy { scene.target(names[$0])?["x"] == PropertyValue(Double($0)) })
        #expect(scene.target("target 5000") == nil)
        #expect(scene.target("Target 1") == nil)
        #expect(scene.target("") == nil)
        let again = scene.addTarget("target 42", properties: ["y": 1])
        #expect(again === scene.target("target 42"))
        #expect(scene.targets.count == 5000)
        #expect(again["x"] == 42 && again["y"] == 1)
    }

    @Test("a slot made before the target has a value reads nil until written, and the target reports no property")
    func slotWithoutValue() {
        let scene = Scene()
        let card = scene.addTarget("card")
        let opacity = scene.propertyID("opacity")
        let slot = card.slot(for: opacity)
        #expect(card.value(at: slot) == nil)
        #expect(card[opacity] == nil)
        #expect(!card.hasProperty(named: "opacity"))
        #expect(card.slot(for: opacity) == slot)
        card.setScalar(0.5, at: slot)
        #expect(card.hasProperty(named: "opacity"))
        #expect(card.properties.map(\.name) == ["opacity"])
    }

    @Test("a property's component count may change: vector, scalar, vector again, all through one slot")
    func componentCountChanges() {
        let scene = Scene()
        let card = scene.addTarget("card", properties: ["position": [1, 2]])
        let position = scene.propertyID("position")
        let other = scene.addTarget("other", properties: ["position": [7, 8]])
        let slot = card.slot(for: position)
        card.setScalar(5, at: slot)
        #expect(card[position] == PropertyValue(5))
        #expect(card[position]?.count == 1)
        // Growing past the slot's first room moves it; the neighbour's value stays.
        card.setValue([1, 2, 3, 4], at: slot)
        #expect(card[position] == [1, 2, 3, 4])
        #expect(other[position] == [7, 8])
        card.setValue([9, 9], for: position)
        #expect(card[position] == [9, 9])
        #expect(card[position]?[2] == 0)
        #expect(scene.drainChanges() == [PropertyChange(target: "card", property: position, value: [9, 9])])
    }

    @Test("changes are drained in the order they first happened, across targets and properties")
    func drainOrder() {
        let scene = Scene()
        let a = scene.addTarget("a", properties: ["x": 0, "y": 0])
        let b = scene.addTarget("b", properties: ["x": 0])
        let (x, y) = (scene.propertyID("x"), scene.propertyID("y"))
        b.setValue(1, for: x)
        a.setValue(2, for: y)
        a.setValue(3, for: x)
        b.setValue(4, for: x)
        var seen: [String] = []
        scene.drainChanges { target, property, value in
            seen.append("\(target.id.name).\(scene.propertyName(property)!)=\(value)")
        }
        #expect(seen == ["b.x=4.0", "a.y=2.0", "a.x=3.0"])
    }

    @Test("a value set while the changes are drained is recorded for the next drain")
    func writeDuringDrain() {
        let scene = Scene()
        let card = scene.addTarget("card", properties: ["x": 0])
        let slot = card.slot(for: scene.propertyID("x"))
        card.setScalar(1, at: slot)
        var first: [PropertyValue] = []
        scene.drainChanges { target, _, value in
            first.append(value)
            target.setScalar(2, at: slot)
        }
        #expect(first == [1])
        #expect(scene.drainChanges().map(\.value) == [2])
    }

    @Test("a new property set while the changes are drained (the store grows) loses none of the drain's changes")
    func newPropertyDuringDrain() {
        let scene = Scene()
        let x = scene.propertyID("x")
        // 16 slots fill the store's first capacity; the drain's body then makes more, which grows it.
        let targets = (0..<16).map { scene.addTarget(TargetID("t\($0)"), properties: ["x": 0]) }
        for (i, target) in targets.enumerated() { target.setValue(PropertyValue(Double(i + 1)), for: x) }
        var drained: [String] = []
        scene.drainChanges { target, _, value in
            drained.append("\(target.id.name)=\(value)")
            target.setValue(value, forName: "y\(target.id.name)")
        }
        #expect(drained == (0..<16).map { "t\($0)=\(Double($0 + 1))" })
        let next = scene.drainChanges()
        #expect(next.map(\.target.name) == (0..<16).map { "t\($0)" })
        #expect(next.map(\.value) == (0..<16).map { PropertyValue(Double($0 + 1)) })
    }

    @Test("a target added while the changes are drained gets its values recorded for the next drain")
    func targetAddedDuringDrain() {
        let scene = Scene()
        let card = scene.addTarget("card", properties: ["x": 0])
        card.setValue(1, forName: "x")
        var drained: [String] = []
        scene.drainChanges { target, _, _ in
            drained.append(target.id.name)
            let added = scene.addTarget(TargetID("added by \(target.id.name)"), properties: ["x": 0])
            added.setValue(2, forName: "x")
        }
        #expect(drained == ["card"])
        #expect(scene.drainChanges() == [PropertyChange(target: "added by card", property: scene.propertyID("x"), value: 2)])
    }

    @Test("a drain inside a drain's body hands out what was recorded meanwhile, and loses nothing of either")
    func drainInsideDrain() {
        let scene = Scene()
        let a = scene.addTarget("a", properties: ["x": 0])
        let b = scene.addTarget("b", properties: ["x": 0])
        let x = scene.propertyID("x")
        a.setValue(1, for: x)
        b.setValue(1, for: x)
        var outer: [String] = []
        var inner: [String] = []
        scene.drainChanges { target, _, _ in
            outer.append(target.id.name)
            if target.id.name == "a" {
                a.setValue(2, for: x)
                scene.drainChanges { target, _, value in inner.append("\(target.id.name)=\(value)") }
                a.setValue(3, for: x)
            }
        }
        #expect(outer == ["a", "b"])
        #expect(inner == ["a=2.0"])
        #expect(scene.drainChanges().map(\.value) == [3])
    }

    @Test("initial values are not changes; slots stay valid as the store grows to thousands of targets")
    func growth() {
        let scene = Scene()
        let x = scene.propertyID("x")
        var slots: [(Target, PropertySlot)] = []
        for i in 0..<3000 {
            let target = scene.addTarget(TargetID("t\(i)"), properties: ["x": PropertyValue(Double(i))])
            slots.append((target, target.slot(for: x)))
        }
        #expect(scene.drainChanges().isEmpty)
        #expect(scene.propertySlotCount == 3000)
        for (i, (target, slot)) in slots.enumerated() where i % 2 == 0 { target.setScalar(-Double(i) - 1, at: slot) }
        let changes = scene.drainChanges()
        #expect(changes.count == 1500)
        #expect(changes.last == PropertyChange(target: "t2998", property: x, value: -2999))
        #expect(slots[1].0[x] == 1)
        scene.setScalar(42, at: slots[7].1)
        #expect(slots[7].0[x] == 42)
    }

    @Test("a slot of another target is refused: it traps rather than write the wrong target")
    func otherTargetsSlotTraps() async {
        await #expect(processExitsWith: .failure) {
            let scene = Scene()
            let a = scene.addTarget("a", properties: ["x": 0])
            let b = scene.addTarget("b", properties: ["x": 0])
            a.setScalar(1, at: b.slot(for: scene.propertyID("x")))
        }
    }
}
