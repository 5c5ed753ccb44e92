#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Opens a shared library with `RTLD_NOW | RTLD_LOCAL`. Wraps `dlopen(3)`.
///
/// Every symbol is bound now (a missing dependency fails here, not at the first call) and none leaks
/// into the global namespace. The handle is never passed to `dlclose`: a library with Swift code must
/// not be unloaded (Documentation/PITFALLS.md).
/// - Returns: The handle, or the `dlerror(3)` text.
func system_dlopen(_ path: String) -> Result<UnsafeMutableRawPointer, DynamicLinkerError> {
    _ = dlerror()  // clear a stale error
    if let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) { return .success(handle) }
    return .failure(DynamicLinkerError(text: system_dlerror() ?? "dlopen failed with no dlerror() text"))
}

/// The dynamic linker's last error text, clearing it. Wraps `dlerror(3)`.
func system_dlerror() -> String? {
    guard let text = dlerror() else { return nil }
    return String(cString: text)
}

/// A `dlerror(3)` message.
struct DynamicLinkerError: Error, CustomStringConvertible {
    var text: String
    var description: String { text }
}
