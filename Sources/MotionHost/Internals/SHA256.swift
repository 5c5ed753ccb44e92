import COpenSSL
import Glibc

/// SHA-256 of an open file, through libcrypto's EVP digest interface.
///
/// libcrypto is loaded on first use (`dlopen("libcrypto.so.3")`, its EVP functions found with `dlsym`), not
/// linked: only pinned hashes, sealed copies and reloads need it, and a process that lists plugins or runs an
/// unpinned scene does not pay its loading (about 1.4 ms of CPU at every start). COpenSSL's header still
/// gives the types and `EVP_MAX_MD_SIZE`.
enum SHA256 {
    /// Why hashing failed.
    enum Failure: Error, CustomStringConvertible {
        /// Reading the file failed.
        case read(Errno)
        /// The file is longer than the limit given (bytes).
        case tooLarge(Int)
        /// A libcrypto call returned failure (the function's name).
        case libcrypto(String)
        /// libcrypto could not be loaded (the dynamic linker's words).
        case unavailable(String)

        var description: String {
            switch self {
            case .read(let errno): "reading the file failed: \(errno)"
            case .tooLarge(let limit): "the file is longer than the \(limit) bytes hashed at most"
            case .libcrypto(let function): "libcrypto's \(function) failed"
            case .unavailable(let why):
                "libcrypto (OpenSSL 3) cannot be loaded: \(why). To fix, install it (Debian: apt-get install libssl3)"
            }
        }
    }

    /// The SHA-256 of everything in an open file, read from offset 0 with `pread(2)` (the descriptor's
    /// offset is left alone). Wraps `EVP_MD_CTX_new`, `EVP_DigestInit_ex(EVP_sha256())`,
    /// `EVP_DigestUpdate`, `EVP_DigestFinal_ex` and `EVP_MD_CTX_free`.
    /// - Returns: 64 lowercase hexadecimal digits.
    /// - Parameter limit: The most bytes hashed; a longer file throws ``Failure/tooLarge``.
    static func hexDigest(ofFileDescriptor fd: Int32, limit: Int = Int.max) throws(Failure) -> String {
        let crypto = try LibCrypto.get()
        guard let context = crypto.EVP_MD_CTX_new() else { throw .libcrypto("EVP_MD_CTX_new") }
        defer { crypto.EVP_MD_CTX_free(context) }
        guard crypto.EVP_DigestInit_ex(context, crypto.EVP_sha256(), nil) == 1 else { throw .libcrypto("EVP_DigestInit_ex") }
        let chunk = 1 << 16
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        while true {
            let n: Int
            do {
                n = try system_pread(fd, into: buffer, count: chunk, offset: offset)
            } catch {
                throw .read(error)
            }
            if n == 0 { break }
            guard crypto.EVP_DigestUpdate(context, buffer, n) == 1 else { throw .libcrypto("EVP_DigestUpdate") }
            offset += Int64(n)
            if offset > Int64(limit) { throw .tooLarge(limit) }
        }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let finished = digest.withUnsafeMutableBufferPointer {
            crypto.EVP_DigestFinal_ex(context, $0.baseAddress, &length)
        }
        guard finished == 1, length == 32 else { throw .libcrypto("EVP_DigestFinal_ex") }
        return hex(digest[0..<32])
    }

    /// The SHA-256 of a byte buffer (used by tests' fixtures). Same libcrypto, through `EVP_Digest`; traps
    /// when libcrypto cannot be loaded (a test machine without OpenSSL 3).
    /// - Returns: 64 lowercase hexadecimal digits.
    static func hexDigest(of bytes: [UInt8]) -> String {
        let crypto: LibCrypto
        switch LibCrypto.shared {
        case .success(let loaded): crypto = loaded
        case .failure(let failure): fatalError("\(failure)")
        }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        bytes.withUnsafeBytes { input in
            digest.withUnsafeMutableBufferPointer { output in
                _ = crypto.EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, crypto.EVP_sha256(), nil)
            }
        }
        return hex(digest[0..<Int(length)])
    }

    private static func hex(_ bytes: ArraySlice<UInt8>) -> String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// libcrypto's EVP digest functions, found in `libcrypto.so.3` once, on first use. Wraps `dlopen(3)` (`RTLD_NOW |
/// RTLD_LOCAL`) and `dlsym(3)`; the handle stays open for the process's life.
private struct LibCrypto: @unchecked Sendable {
    // @unchecked: C function pointers into a library that is never closed.
    let EVP_MD_CTX_new: @convention(c) () -> OpaquePointer?
    let EVP_MD_CTX_free: @convention(c) (OpaquePointer?) -> Void
    let EVP_sha256: @convention(c) () -> OpaquePointer?
    let EVP_DigestInit_ex: @convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?) -> Int32
    let EVP_DigestUpdate: @convention(c) (OpaquePointer?, UnsafeRawPointer?, Int) -> Int32
    let EVP_DigestFinal_ex: @convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt32>?) -> Int32
    let EVP_Digest:
        @convention(c) (
            UnsafeRawPointer?, Int, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt32>?, OpaquePointer?, OpaquePointer?
        ) -> Int32

    /// The library's soname (OpenSSL 3; Debian's libssl3, which libssl-dev depends on).
    static let soname = "libcrypto.so.3"

    /// Loaded once per process (a `static let` is initialised once, thread-safely).
    static let shared: Result<LibCrypto, SHA256.Failure> = load()

    private static func load() -> Result<LibCrypto, SHA256.Failure> {
        let handle: UnsafeMutableRawPointer
        switch system_dlopen(soname) {
        case .success(let opened): handle = opened
        case .failure(let error): return .failure(.unavailable(error.description))
        }
        var missing: String?
        func symbol<F>(_ name: String, as type: F.Type) -> F? {
            guard let address = dlsym(handle, name) else {
                missing = missing ?? name
                return nil
            }
            return unsafeBitCast(address, to: type)
        }
        let crypto = LibCrypto(
            EVP_MD_CTX_new: symbol("EVP_MD_CTX_new", as: (@convention(c) () -> OpaquePointer?).self) ?? { nil },
            EVP_MD_CTX_free: symbol("EVP_MD_CTX_free", as: (@convention(c) (OpaquePointer?) -> Void).self) ?? { _ in },
            EVP_sha256: symbol("EVP_sha256", as: (@convention(c) () -> OpaquePointer?).self) ?? { nil },
            EVP_DigestInit_ex: symbol(
                "EVP_DigestInit_ex", as: (@convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?) -> Int32).self)
                ?? { _, _, _ in 0 },
            EVP_DigestUpdate: symbol(
                "EVP_DigestUpdate", as: (@convention(c) (OpaquePointer?, UnsafeRawPointer?, Int) -> Int32).self)
                ?? { _, _, _ in 0 },
            EVP_DigestFinal_ex: symbol(
                "EVP_DigestFinal_ex",
                as: (@convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt32>?) -> Int32).self)
                ?? { _, _, _ in 0 },
            EVP_Digest: symbol(
                "EVP_Digest",
                as: (@convention(c) (
                    UnsafeRawPointer?, Int, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt32>?, OpaquePointer?,
                    OpaquePointer?
                ) -> Int32).self) ?? { _, _, _, _, _, _ in 0 })
        if let missing { return .failure(.unavailable("\(soname) has no \(missing)")) }
        return .success(crypto)
    }

    /// The loaded library, or why it could not be loaded.
    static func get() throws(SHA256.Failure) -> LibCrypto { try shared.get() }
}
