// The JSON parser of the host and the runtime: simdjson (https://simdjson.org, Debian libsimdjson-dev),
// behind plain C functions.
//
// Why this shim exists: simdjson is a C++ library, and Swift here imports C only. This target parses with
// simdjson's DOM parser and flattens the document into an array of items that Swift reads directly; each
// symbol carries the module's name as its prefix (CMotionJSON_), as swift-nio's C shims do.
#ifndef MOTION_JSON_H
#define MOTION_JSON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// `null`.
#define CMotionJSON_KIND_NULL 0u
/// `false`.
#define CMotionJSON_KIND_FALSE 1u
/// `true`.
#define CMotionJSON_KIND_TRUE 2u
/// A number: `payload` holds the bits of the nearest double (integers too).
#define CMotionJSON_KIND_NUMBER 3u
/// A string (or an object's key): `payload` is the address of its UTF-8 bytes (validated, unescaped,
/// NUL-terminated), `count` their number.
#define CMotionJSON_KIND_STRING 4u
/// An array: `count` elements follow; `payload` is the index of the item after the array's last one.
#define CMotionJSON_KIND_ARRAY 5u
/// An object: `count` members follow, each a key (a string item) then its value; `payload` is the index
/// of the item after the object's last one. Duplicate keys are kept (the caller decides).
#define CMotionJSON_KIND_OBJECT 6u

/// One value of a parsed document, in document order (a container comes before what it holds).
typedef struct CMotionJSON_item {
    /// One of the `CMotionJSON_KIND_` values.
    uint32_t kind;
    /// Elements of an array, members of an object, bytes of a string; 0 otherwise.
    uint32_t count;
    /// See the kinds.
    uint64_t payload;
} CMotionJSON_item;

/// The deepest nesting of arrays and objects a document may have (simdjson's default).
#define CMotionJSON_MAX_DEPTH 1024u

/// Parses `length` bytes of UTF-8 JSON (RFC 8259: any value at the top level) with the calling thread's
/// simdjson parser, which keeps its buffers for the thread's next call.
///
/// On success `*items` points at `*count` items (the first is the top-level value) that stay valid, with
/// the strings they point at, until the calling thread's next call to this function.
/// - Returns: 0 on success, else simdjson's error code (`simdjson::error_code`), which says what but not
///   where; `CMotionJSON_error_message` gives its text.
int CMotionJSON_parse(const char *bytes, size_t length, const CMotionJSON_item **items, size_t *count);

/// simdjson's one-line description of an error code returned by `CMotionJSON_parse` (static storage).
const char *CMotionJSON_error_message(int code);

#ifdef __cplusplus
}
#endif

#endif
