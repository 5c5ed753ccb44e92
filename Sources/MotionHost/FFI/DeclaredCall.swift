import CLibFFI
import FoundationEssentials
import Glibc
import MotionCore

extension CType {
    /// The libffi descriptor of this C type.
    var ffiType: UnsafeMutablePointer<ffi_type> {
        switch self {
        case .double: clibffi_type_double()
        case .int64: clibffi_type_sint64()
        case .bool: clibffi_type_uint8()
        case .string: clibffi_type_pointer()
        }
    }

    /// What JSON value this C type takes, for messages.
    var jsonDescription: String {
        switch self {
        case .double: "a number"
        case .int64: "a whole number"
        case .bool: "true or false"
        case .string: "a string"
        }
    }
}

/// A plan function a manifest declares, `int32_t fn(void *performer, <fields in declared order>)`,
/// with its libffi call interface prepared once (`ffi_prep_cif`) and called per plan (`ffi_call`).
///
/// Thread rule: the scheduler's thread (it reuses one argument buffer).
final class DeclaredCall {
    /// The call's declaration: symbol, and the plan fields passed in order with their C types.
    let declaration: CallDeclaration
    private let function: @convention(c) () -> Void
    private let cif: UnsafeMutablePointer<ffi_cif>
    // The cif points into this array, so it lives as long as the cif (Documentation/PITFALLS.md).
    private let argumentTypes: UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>
    private let storage: UnsafeMutableRawPointer
    private let argumentPointers: UnsafeMutablePointer<UnsafeMutableRawPointer?>

    /// Prepares the call interface.
    /// - Parameters:
    ///   - symbol: The function's address (from `dlsym`).
    ///   - declaration: The manifest's declaration of the call.
    /// - Returns: `nil` when `ffi_prep_cif` refuses the signature (it does not for the four supported types).
    init?(symbol: UnsafeMutableRawPointer, declaration: CallDeclaration) {
        self.declaration = declaration
        self.function = unsafeBitCast(symbol, to: (@convention(c) () -> Void).self)
        let count = declaration.arguments.count + 1
        argumentTypes = .allocate(capacity: count)
        argumentTypes[0] = clibffi_type_pointer()
        for (i, argument) in declaration.arguments.enumerated() { argumentTypes[i + 1] = argument.ctype.ffiType }
        cif = .allocate(capacity: 1)
        storage = .allocate(byteCount: 8 * count, alignment: 8)
        argumentPointers = .allocate(capacity: count)
        for i in 0..<count { argumentPointers[i] = storage + 8 * i }
        guard ffi_prep_cif(cif, clibffi_default_abi(), UInt32(count), clibffi_type_sint32(), argumentTypes) == FFI_OK else {
            return nil
        }
    }

    deinit {
        argumentTypes.deallocate()
        cif.deallocate()
        storage.deallocate()
        argumentPointers.deallocate()
    }

    /// Calls the function with the plan's fields converted to their declared C types.
    /// - Returns: The function's `motion_status`, or `nil` with `problem` set when a field is absent or of
    ///   the wrong JSON type (the manifest's plan validation normally catches this before).
    func call(performer: UnsafeMutableRawPointer?, plan: Plan, problem: inout String?) -> Int32? {
        let fields = plan.fields
        var strings: [UnsafeMutablePointer<CChar>] = []
        defer { for s in strings { free(s) } }
        storage.storeBytes(of: performer, as: UnsafeMutableRawPointer?.self)
        for (i, argument) in declaration.arguments.enumerated() {
            let slot = storage + 8 * (i + 1)
            let value = fields[argument.field]
            switch (argument.ctype, value) {
            case (.double, .number(let n)?): slot.storeBytes(of: n, as: Double.self)
            case (.int64, .number(let n)?) where n == n.rounded() && abs(n) <= 9.2e18:
                slot.storeBytes(of: Int64(n), as: Int64.self)
            case (.bool, .bool(let b)?): slot.storeBytes(of: b ? 1 : 0, as: UInt8.self)
            case (.string, .string(let s)?):
                guard let copy = strdup(s) else { return nil }
                strings.append(copy)
                slot.storeBytes(of: UnsafePointer(copy), as: UnsafePointer<CChar>.self)
            default:
                problem =
                    "\(declaration.symbol): field \"\(argument.field)\" of plan type \"\(plan.type)\" is \(value?.typeName ?? "absent"); its declared C type \(argument.ctype.rawValue) needs \(argument.ctype.jsonDescription)"
                return nil
            }
        }
        var result: UInt64 = 0  // ffi_arg-sized: integer returns narrower than a register (Documentation/PITFALLS.md)
        ffi_call(cif, function, &result, argumentPointers)
        return Int32(truncatingIfNeeded: result)
    }
}
