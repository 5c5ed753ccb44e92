import COpenSSL

/// SHA-256 of an open file, through libcrypto's EVP digest interface.
enum SHA256 {
    /// Why hashing failed.
    enum Failure: Error, CustomStringConvertible {
        /// Reading the file failed.
        case read(Errno)
        /// The file is longer than the limit given (bytes).
        case tooLarge(Int)
        /// A libcrypto call returned failure (the function's name).
        case libcrypto(String)

        var description: String {
            switch self {
            case .read(let errno): "reading the file failed: \(errno)"
            case .tooLarge(let limit): "the file is longer than the \(limit) bytes hashed at most"
            case .libcrypto(let function): "libcrypto's \(function) failed"
            }
        }
    }

    /// The SHA-256 of everything in an open file, read from offset 0 with `pread(2)` (the descriptor's
    /// offset is left alone). Wraps `EVP_MD_CTX_new`, `EVP_DigestInit_ex(EVP_sha256())`,
    /// `EVP_DigestUpdate`, `EVP_DigestFinal_ex` and `EVP_MD_CTX_free`.
    /// - Returns: 64 lowercase hexadecimal digits.
    /// - Parameter limit: The most bytes hashed; a longer file throws ``Failure/tooLarge``.
    static func hexDigest(ofFileDescriptor fd: Int32, limit: Int = Int.max) throws(Failure) -> String {
        guard let context = EVP_MD_CTX_new() else { throw .libcrypto("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else { throw .libcrypto("EVP_DigestInit_ex") }
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
            guard EVP_DigestUpdate(context, buffer, n) == 1 else { throw .libcrypto("EVP_DigestUpdate") }
            offset += Int64(n)
            if offset > Int64(limit) { throw .tooLarge(limit) }
        }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let finished = digest.withUnsafeMutableBufferPointer {
            EVP_DigestFinal_ex(context, $0.baseAddress, &length)
        }
        guard finished == 1, length == 32 else { throw .libcrypto("EVP_DigestFinal_ex") }
        return hex(digest[0..<32])
    }

    /// The SHA-256 of a byte buffer (used by tests' fixtures and the discovery cache). Same libcrypto calls.
    /// - Returns: 64 lowercase hexadecimal digits.
    static func hexDigest(of bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        bytes.withUnsafeBytes { input in
            digest.withUnsafeMutableBufferPointer { output in
                _ = EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, EVP_sha256(), nil)
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
