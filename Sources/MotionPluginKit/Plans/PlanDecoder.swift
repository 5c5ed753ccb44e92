/// A `Decoder` over a parsed `PlanJSON` value: decodes `Decodable` plan types with the same rules as
/// Foundation's JSONDecoder (numbers to any numeric type when exactly representable, keys as written,
/// unknown keys ignored) and throws `DecodingError`s whose coding paths name the field.
struct PlanDecoder: Decoder {
    let value: PlanJSON
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(value: PlanJSON, codingPath: [any CodingKey] = []) {
        self.value = value
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else {
            throw DecodingError.typeMismatch(
                [String: Any].self,
                .init(codingPath: codingPath, debugDescription: "expected an object, found \(value.kind)."))
        }
        return KeyedDecodingContainer(KeyedContainer<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw DecodingError.typeMismatch(
                [Any].self, .init(codingPath: codingPath, debugDescription: "expected an array, found \(value.kind)."))
        }
        return UnkeyedContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(value: value, codingPath: codingPath)
    }
}

/// An index key for array elements in coding paths.
private struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

/// Converts one JSON value to the primitive types `Decodable` asks for.
enum Primitive {
    static func mismatch(_ type: Any.Type, _ value: PlanJSON, _ path: [any CodingKey]) -> DecodingError {
        if case .null = value {
            return .valueNotFound(type, .init(codingPath: path, debugDescription: "expected \(type), found null."))
        }
        return .typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(type), found \(value.kind)."))
    }

    static func bool(_ value: PlanJSON, _ path: @autoclosure () -> [any CodingKey]) throws -> Bool {
        guard case .bool(let bool) = value else { throw mismatch(Bool.self, value, path()) }
        return bool
    }

    static func string(_ value: PlanJSON, _ path: @autoclosure () -> [any CodingKey]) throws -> String {
        guard case .string(let string) = value else { throw mismatch(String.self, value, path()) }
        return string
    }

    static func double(_ value: PlanJSON, _ path: @autoclosure () -> [any CodingKey]) throws -> Double {
        guard case .number(let number) = value else { throw mismatch(Double.self, value, path()) }
        return number
    }

    static func float(_ value: PlanJSON, _ path: @autoclosure () -> [any CodingKey]) throws -> Float {
        let number = try double(value, path())
        let float = Float(number)
        guard float.isFinite else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: path(), debugDescription: "The number \(number) does not fit in Float."))
        }
        return float
    }

    static func integer<T: BinaryInteger & FixedWidthInteger>(
        _ value: PlanJSON, _ path: @autoclosure () -> [any CodingKey]
    ) throws -> T {
        guard case .number(let number) = value else { throw mismatch(T.self, value, path()) }
        guard let exact = T(exactly: number) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: path(),
                    debugDescription: "The number \(number) is not an integer that fits in \(T.self)."))
        }
        return exact
    }

    static func decode<T: Decodable>(_ type: T.Type, _ value: PlanJSON, _ path: @autoclosure () -> [any CodingKey])
        throws -> T
    {
        // Fast paths for the types plans are made of; everything else decodes itself.
        if T.self == Double.self { return try double(value, path()) as! T }
        if T.self == String.self { return try string(value, path()) as! T }
        if T.self == [Double].self {
            guard case .array(let elements) = value else { throw mismatch([Double].self, value, path()) }
            var numbers: [Double] = []
            numbers.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                numbers.append(try double(element, path() + [IndexKey(intValue: index)]))
            }
            return numbers as! T
        }
        return try T(from: PlanDecoder(value: value, codingPath: path()))
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [(key: String, value: PlanJSON)]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.compactMap { Key(stringValue: $0.key) } }

    func contains(_ key: Key) -> Bool { find(key) != nil }

    private func find(_ key: Key) -> PlanJSON? {
        let name = key.stringValue
        for member in members.reversed() where member.key == name { return member.value }
        return nil
    }

    private func require(_ key: Key) throws -> PlanJSON {
        guard let value = find(key) else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "No value for key \"\(key.stringValue)\"."))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try require(key) { return true }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try Primitive.bool(require(key), codingPath + [key])
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try Primitive.string(require(key), codingPath + [key])
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try Primitive.double(require(key), codingPath + [key])
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try Primitive.float(require(key), codingPath + [key])
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try Primitive.integer(require(key), codingPath + [key])
    }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        try Primitive.integer(require(key), codingPath + [key])
    }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try Primitive.integer(require(key), codingPath + [key])
    }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try Primitive.integer(require(key), codingPath + [key])
    }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try Primitive.integer(require(key), codingPath + [key])
    }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try Primitive.integer(require(key), codingPath + [key])
    }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try Primitive.integer(require(key), codingPath + [key])
    }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try Primitive.integer(require(key), codingPath + [key])
    }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try Primitive.integer(require(key), codingPath + [key])
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try Primitive.integer(require(key), codingPath + [key])
    }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try Primitive.decode(type, require(key), codingPath + [key])
    }

    // decodeIfPresent: absent or null is nil (as JSONDecoder).
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        guard let value = find(key), !value.isNull else { return nil }
        return try Primitive.double(value, codingPath + [key])
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let value = find(key), !value.isNull else { return nil }
        return try Primitive.string(value, codingPath + [key])
    }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let value = find(key), !value.isNull else { return nil }
        return try Primitive.bool(value, codingPath + [key])
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = find(key), !value.isNull else { return nil }
        return try Primitive.decode(type, value, codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try PlanDecoder(value: require(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try PlanDecoder(value: require(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        PlanDecoder(value: .object(members), codingPath: codingPath)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        PlanDecoder(value: find(key) ?? .null, codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [PlanJSON]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(elements: [PlanJSON], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next(_ type: Any.Type) throws -> (PlanJSON, [any CodingKey]) {
        let path = codingPath + [IndexKey(intValue: currentIndex)]
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type, .init(codingPath: path, debugDescription: "The array has only \(elements.count) elements."))
        }
        defer { currentIndex += 1 }
        return (elements[currentIndex], path)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex].isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        let (value, path) = try next(type)
        return try Primitive.bool(value, path)
    }
    mutating func decode(_ type: String.Type) throws -> String {
        let (value, path) = try next(type)
        return try Primitive.string(value, path)
    }
    mutating func decode(_ type: Double.Type) throws -> Double {
        let (value, path) = try next(type)
        return try Primitive.double(value, path)
    }
    mutating func decode(_ type: Float.Type) throws -> Float {
        let (value, path) = try next(type)
        return try Primitive.float(value, path)
    }
    mutating func decode(_ type: Int.Type) throws -> Int { try integer() }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer() }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }

    private mutating func integer<T: BinaryInteger & FixedWidthInteger>() throws -> T {
        let (value, path) = try next(T.self)
        return try Primitive.integer(value, path)
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, path) = try next(type)
        return try Primitive.decode(type, value, path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let (value, path) = try next([String: Any].self)
        return try PlanDecoder(value: value, codingPath: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (value, path) = try next([Any].self)
        return try PlanDecoder(value: value, codingPath: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (value, path) = try next(Any.self)
        return PlanDecoder(value: value, codingPath: path)
    }
}

private struct SingleValueContainer: SingleValueDecodingContainer {
    let value: PlanJSON
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { value.isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try Primitive.bool(value, codingPath) }
    func decode(_ type: String.Type) throws -> String { try Primitive.string(value, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try Primitive.double(value, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try Primitive.float(value, codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try Primitive.integer(value, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try Primitive.integer(value, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try Primitive.integer(value, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try Primitive.integer(value, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try Primitive.integer(value, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try Primitive.integer(value, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try Primitive.integer(value, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try Primitive.integer(value, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try Primitive.integer(value, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try Primitive.integer(value, codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try Primitive.decode(type, value, codingPath) }
}

extension PlanJSON {
    var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}
