/// The interned id of a property name within one ``Scene``, for cheap per-frame access.
///
/// Ids are dense small integers, stable for the life of the scene; the C ABI passes them as
/// `motion_property_id`.
public struct PropertyID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The id as the C ABI carries it (`motion_property_id`, ≥ 0).
    public let rawValue: Int32

    /// An id from its raw value. Only ids returned by ``Scene/propertyID(_:)`` name a property.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static func < (lhs: PropertyID, rhs: PropertyID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "#\(rawValue)" }
}

/// An animatable property's value: a scalar or a small fixed vector of 1 to 4 `Double`s
/// (opacity `[1]`, position `[x, y]`, rotation `[x, y, z]`, colour `[r, g, b, a]`).
///
/// Stored inline (no allocation), so reading and writing one per frame is cheap.
///
/// Thread rule: a value type; safe to use from any thread.
public struct PropertyValue: Hashable, Sendable, CustomStringConvertible {
    /// The most components a property value holds.
    public static let maximumCount = 4

    /// The number of components, 1...4.
    public private(set) var count: Int
    @usableFromInline var c0 = 0.0
    @usableFromInline var c1 = 0.0
    @usableFromInline var c2 = 0.0
    @usableFromInline var c3 = 0.0

    /// A scalar value.
    public init(_ scalar: Double) {
        count = 1
        c0 = scalar
    }

    /// A vector value.
    /// - Parameter components: 1 to 4 components; extra components are dropped, and an empty collection
    ///   gives the scalar 0.
    @inlinable
    public init<C: Collection<Double>>(_ components: C) {
        var value = PropertyValue(0)
        var n = 0
        for v in components {
            guard n < Self.maximumCount else { break }
            value[n] = v
            n += 1
        }
        self.init(count: max(n, 1), value)
    }

    /// A vector value from a buffer of 1 to 4 components (extra components are dropped; an empty buffer
    /// gives the scalar 0). Not generic, and inlinable, so the plugin host's `set_property` builds one
    /// with no call.
    @inlinable
    public init(_ components: UnsafeBufferPointer<Double>) {
        let n = Swift.min(components.count, 4)
        self.init(
            count: Swift.max(n, 1), n > 0 ? components[0] : 0, n > 1 ? components[1] : 0, n > 2 ? components[2] : 0,
            n > 3 ? components[3] : 0)
    }

    @usableFromInline
    init(count: Int, _ c0: Double, _ c1: Double, _ c2: Double, _ c3: Double) {
        self.count = count
        self.c0 = c0
        self.c1 = c1
        self.c2 = c2
        self.c3 = c3
    }

    /// A vector value from an array of 1 to 4 components; see ``init(_:)-(UnsafeBufferPointer<Double>)``.
    public init(_ components: [Double]) {
        self = components.withUnsafeBufferPointer { PropertyValue($0) }
    }

    /// Makes ``count`` cover `index` (0...3), so that a component set there is one of the value's.
    @usableFromInline
    mutating func extend(through index: Int) {
        if index < Self.maximumCount { count = Swift.max(count, index + 1) }
    }

    @usableFromInline
    init(count: Int, _ value: PropertyValue) {
        self = value
        self.count = count
    }

    /// The component at `index` (0-based); components past ``count`` read as 0. Setting a component past
    /// ``count`` extends the value to it (the components between are 0); an index outside 0...3 is ignored.
    @inlinable
    public subscript(index: Int) -> Double {
        get {
            switch index {
            case 0: c0
            case 1: c1
            case 2: c2
            case 3: c3
            default: 0
            }
        }
        set {
            if index >= count { extend(through: index) }
            switch index {
            case 0: c0 = newValue
            case 1: c1 = newValue
            case 2: c2 = newValue
            case 3: c3 = newValue
            default: break
            }
        }
    }

    /// The first component.
    public var scalar: Double { c0 }

    /// Whether every component is finite (neither infinite nor NaN). It tests all four, which is the same
    /// because the ones past ``count`` are always 0.
    @inlinable
    public var isFinite: Bool {
        // x - x is 0 for a finite x and NaN for an infinity or a NaN: one comparison for all four.
        (c0 - c0) + (c1 - c1) + (c2 - c2) + (c3 - c3) == 0
    }

    /// The components as an array of ``count`` elements.
    public var components: [Double] { (0..<count).map { self[$0] } }

    public var description: String { count == 1 ? "\(c0)" : "\(components)" }

    /// Two values are equal when they have the same count and components.
    public static func == (lhs: PropertyValue, rhs: PropertyValue) -> Bool {
        lhs.count == rhs.count && lhs.c0 == rhs.c0 && lhs.c1 == rhs.c1 && lhs.c2 == rhs.c2 && lhs.c3 == rhs.c3
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for i in 0..<count { hasher.combine(self[i]) }
    }
}

extension PropertyValue: ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral, ExpressibleByArrayLiteral {
    public init(floatLiteral value: Double) { self.init(value) }
    public init(integerLiteral value: Int) { self.init(Double(value)) }
    public init(arrayLiteral elements: Double...) { self.init(elements) }
}

extension PropertyValue: Codable {
    /// Decodes a number or an array of 1 to 4 numbers.
    /// - Throws: `DecodingError` for anything else.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let scalar = try? container.decode(Double.self) {
            self.init(scalar)
            return
        }
        let components = try container.decode([Double].self)
        guard (1...Self.maximumCount).contains(components.count) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "A property value has 1 to 4 components, not \(components.count).")
        }
        self.init(components)
    }

    /// Encodes a scalar as a number and a vector as an array.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if count == 1 { try container.encode(c0) } else { try container.encode(components) }
    }
}
