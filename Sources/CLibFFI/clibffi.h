// CLibFFI: libffi for Swift, plus accessors for its type descriptors.
//
// Why the accessors exist: libffi's `ffi_type_*` descriptors are mutable C globals, and referring to a
// mutable global is an error in Swift 6's strict concurrency. Each accessor returns the address of one
// descriptor; libffi never changes the primitive descriptors after load, so sharing them is safe.
#ifndef CLIBFFI_H
#define CLIBFFI_H

#include <ffi.h>

static inline ffi_type *clibffi_type_void(void) { return &ffi_type_void; }
static inline ffi_type *clibffi_type_double(void) { return &ffi_type_double; }
static inline ffi_type *clibffi_type_sint64(void) { return &ffi_type_sint64; }
static inline ffi_type *clibffi_type_sint32(void) { return &ffi_type_sint32; }
static inline ffi_type *clibffi_type_uint8(void) { return &ffi_type_uint8; }
static inline ffi_type *clibffi_type_pointer(void) { return &ffi_type_pointer; }

/// The default calling convention of this platform (`FFI_DEFAULT_ABI` is a macro Swift may not import).
static inline ffi_abi clibffi_default_abi(void) { return FFI_DEFAULT_ABI; }

#endif
