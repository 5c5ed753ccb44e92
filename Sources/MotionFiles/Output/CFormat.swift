#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension String {
    /// Numbers formatted by C's `printf` rules, as Foundation's `String(format:)` formats them (it hands
    /// `%d`, `%f` and their flags to the C library too), for modules that import FoundationEssentials only.
    /// Wraps `vsnprintf(3)`.
    ///
    /// Only C's own conversions: integers (`%d`, `%ld`, `%04d`), floating point (`%f`, `%.2f`, `%e`, `%g`) and
    /// `%%`; no `%@`, and no Swift `String` arguments (not `CVarArg` without Foundation).
    /// - Parameters:
    ///   - format: A C format string, e.g. `"%.1f ms"`.
    ///   - arguments: One `CVarArg` per conversion, in order (`Int`, `Double`).
    public init(cFormat format: String, _ arguments: any CVarArg...) {
        var capacity = 128
        while true {
            let (text, needed) = unsafe withVaList(arguments) { list in
                unsafe withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { buffer in
                    let needed = unsafe Int(vsnprintf(buffer.baseAddress!, capacity, format, list))
                    return unsafe (needed < capacity ? String(cString: buffer.baseAddress!) : nil, needed)
                }
            }
            if let text {
                self = text
                return
            }
            // Too long for the buffer: format again into one that fits (a va_list is used once, so anew).
            capacity = Swift.max(needed + 1, capacity * 2)
        }
    }
}
