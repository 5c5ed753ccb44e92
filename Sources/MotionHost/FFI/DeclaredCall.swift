import CLibFFI
import Foundation
import MotionCore

/// A C type a manifest may declare for a plan function's parameter.
public enum DeclaredCType: String, Sendable, CaseIterable {
    /// `double`, from a JSON number.
    case double
    /// `int64_t`, from a JSON number with no fraction.
    case int64
    /// C99 `bool` (passed as `uint8_t`), from a JSON boolean.
    case bool
    /// `const char *` (UTF-8, NUL-terminated, valid during the call), from a JSON string.
    case string

    var ffiType: UnsafeMutablePointer<ffi_type> {
        switch self {
        case .double: clibffi_type_double()
        case .int64: clibffi_type_sint64()
        case .bool: clibffi_type_uint8()
        case .string: clibffi_type_pointer()
        }
    }
}

/// A plan function a manifest declares, `int32_t fn(void *performer, <fields in declared order>)`,
/// with its libffi call interface prepared once (`ffi_prep_cif`) and called per plan (`ffi_call`).
///
/// Thread rule: the scheduler's thread (it reuses one argument buffer). `@unchecked Sendable` is not
/// claimed: the type stays on one thread.
final class DeclaredCall {
    /// The plan fields passed, in order, and their C types.
    let arguments: [(field: String, type: DeclaredCType)]
    let symbolName: String
    private let function: @convention(c) () -> Void
    private let cif: UnsafeMutablePointer<ffi_cif>
    // The cif points into this array, so it lives as long as the cif (PITFALLS.md).
    private let argumentTypes: UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>
    private let storage: UnsafeMutableRawPointer
    private let argumentPointers: UnsafeMutablePointer<UnsafeMutableRawPointer?>

    /// Prepares the call interface.
    /// - Parameters:
    ///   - symbol: The function's address (from `dlsym`).
    ///   - symbolName: Its name, for messages.
    ///   - arguments: The plan fields to pass after the performer pointer, in order, with their C types.
    /// - Throws: ``DeclarationError`` when `ffi_prep_cif` refuses the signature.
    init(symbol: UnsafeMutableRawPointer, symbolName: String, arguments: [(field: String, type: DeclaredCType)]) throws(DeclarationError) {
        self.arguments = arguments
        self.symbolName = symbolName
        self.function = unsafeBitCast(symbol, to: (@convention(c) () -> Void).self)
        let count = arguments.count + 1
        argumentTypes = .allocate(capacity: count)
        argumentTypes[0] = clibffi_type_pointer()
        for (i, argument) in arguments.enumerated() { argumentTypes[i + 1] = argument.type.ffiType }
        cif = .allocate(capacity: 1)
        storage = .allocate(byteCount: 8 * count, alignment: 8)
        argumentPointers = .allocate(capacity: count)
        for i in 0..<count { argumentPointers[i] = storage + 8 * i }
        let status = ffi_prep_cif(cif, clibffi_default_abi(), UInt32(count), clibffi_type_sint32(), argumentTypes)
        guard status == FFI_OK else {
            argumentTypes.deallocate()
            cif.deallocate()
            storage.deallocate()
            argumentPointers.deallocate()
            throw DeclarationError(message: "\(symbolName): libffi could not prepare the call (ffi_prep_cif status \(status.rawValue))")
        }
    }

    deinit {
        argumentTypes.deallocate()
        cif.deallocate()
        storage.deallocate()
        argumentPointers.deallocate()
    }

    /// Calls the function with the plan's fields converted to their declared C types.
    /// - Returns: The function's `motion_status`.
    /// - Throws: ``DeclarationError`` when a field is absent or of the wrong JSON type (the manifest's
    ///   validation normally catches this before).
    func call(performer: UnsafeMutableRawPointer?, plan: Plan) throws(DeclarationError) -> Int32 {
        let fields = plan.fields
        var strings: [UnsafeMutablePointer<CChar>] = []
        defer { for s in strings { free(s) } }
        storage.storeBytes(of: performer, as: UnsafeMutableRawPointer?.self)
        for (i, argument) in arguments.enumerated() {
            let slot = storage + 8 * (i + 1)
            let value = fields[argument.field]
            switch (argument.type, value) {
            case (.double, .number(let n)?): slot.storeBytes(of: n, as: Double.self)
            case (.int64, .number(let n)?) where n == n.rounded() && abs(n) <= 9.2e18:
                slot.storeBytes(of: Int64(n), as: Int64.self)
            case (.bool, .bool(let b)?): slot.storeBytes(of: b ? 1 : 0, as: UInt8.self)
            case (.string, .string(let s)?):
                let copy = strdup(s)!
                strings.append(copy)
                slot.storeBytes(of: UnsafePointer(copy), as: UnsafePointer<CChar>.self)
            default:
                throw DeclarationError(
                    message:
                        "\(symbolName): field \"\(argument.field)\" of plan type \"\(plan.type)\" is \(value?.typeName ?? "absent"); the declared C type \(argument.type.rawValue) needs \(argument.type.jsonDescription)"
                )
            }
        }
        var result: UInt64 = 0  // ffi_arg-sized: integer returns narrower than a register (PITFALLS.md)
        ffi_call(cif, function, &result, argumentPointers)
        return Int32(truncatingIfNeeded: result)
    }
}

extension DeclaredCType {
    var jsonDescription: String {
        switch self {
        case .double: "a number"
        case .int64: "a whole number"
        case .bool: "true or false"
        case .string: "a string"
        }
    }
}

/// A declarative C performer's declaration that cannot be used: a missing symbol, an unsupported
/// signature, a field of the wrong type.
public struct DeclarationError: Error, CustomStringConvertible, Sendable {
    /// One line naming the symbol and what is wrong.
    public let message: String
    public var description: String { message }
}
