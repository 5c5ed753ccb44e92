// COpenSSL: libcrypto (OpenSSL 3, Debian libssl-dev) for MotionHost's trust checks.
//
// Only the EVP digest interface is used: MotionHost hashes a plugin library's open file descriptor with
// SHA-256 before it dlopens that same descriptor (Sources/MotionHost/Internals/SHA256.swift).
// No shim functions are needed: EVP_MD_CTX_new, EVP_DigestInit_ex, EVP_DigestUpdate, EVP_DigestFinal_ex,
// EVP_MD_CTX_free and EVP_sha256 are plain functions. The module does not link libcrypto: MotionHost loads
// it on first use (dlopen of libcrypto.so.3, the functions found with dlsym) and takes only the types and
// EVP_MAX_MD_SIZE from this header. Any shim added later is prefixed `copenssl_`.
#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H

#include <openssl/evp.h>

#endif
