/*
 * motion/core.h — versions, status codes, limits, errors, and the handles both sides pass.
 * Part of the motion plugin ABI; include <motion_plugin.h>, which includes every part and says how they fit.
 */
#ifndef MOTION_ABI_CORE_H
#define MOTION_ABI_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================== */
/* Versions                                                                                       */
/* ============================================================================================== */

/** Major version of this ABI. A plugin and a host of different majors refuse each other. */
#define MOTION_ABI_VERSION_MAJOR 1
/** Minor version of this ABI. Minors only append (see "Versioning" above). */
#define MOTION_ABI_VERSION_MINOR 4
/** The packed version: (MAJOR << 16) | MINOR, a uint32_t. 1.4 is 0x00010004 (written as a literal so
 *  that Swift imports it as a constant; the static assertion below keeps it equal to the formula). */
#define MOTION_ABI_VERSION 65540u
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(MOTION_ABI_VERSION == ((MOTION_ABI_VERSION_MAJOR << 16) | MOTION_ABI_VERSION_MINOR),
               "MOTION_ABI_VERSION must equal (MAJOR << 16) | MINOR");
#endif
/** Major part of a packed version. */
#define MOTION_ABI_VERSION_MAJOR_OF(version) ((uint32_t)(version) >> 16)
/** Minor part of a packed version. */
#define MOTION_ABI_VERSION_MINOR_OF(version) ((uint32_t)(version) & 0xFFFFu)
/** Packs a major and minor version. */
#define MOTION_ABI_VERSION_MAKE(major, minor) ((((uint32_t)(major)) << 16) | ((uint32_t)(minor) & 0xFFFFu))

/**
 * True when the struct at `ptr` (which begins with `uint32_t struct_size`) is large enough to hold
 * `field` of `type`. Read a field appended in a later minor only when this is true.
 */
#define MOTION_STRUCT_HAS_FIELD(ptr, type, field) \
    ((ptr) != NULL && (size_t)(ptr)->struct_size >= offsetof(type, field) + sizeof(((type *)0)->field))

/** Marks a symbol a plugin exports (visibility "default"); build plugins with -fvisibility=hidden. */
#if defined(_WIN32)
#define MOTION_PLUGIN_EXPORT __declspec(dllexport)
#else
#define MOTION_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* ============================================================================================== */
/* Status codes                                                                                   */
/* ============================================================================================== */

/** The result of every fallible call: MOTION_OK (0) or a negative MOTION_ERR_* code. */
typedef int32_t motion_status;

/** Success. */
#define MOTION_OK 0
/** A required pointer was NULL, a length was zero or too large, a name was empty, or a context was not live. */
#define MOTION_ERR_INVALID_ARGUMENT (-1)
/** A plan's JSON is malformed, or a field is missing, mistyped or out of range. The message names the field. */
#define MOTION_ERR_INVALID_PLAN (-2)
/** create_performer was asked for a performer class the plugin does not have. */
#define MOTION_ERR_UNKNOWN_CLASS (-3)
/** The plan's "type" is not one this performer (or, for an emission, any loaded manifest) performs. */
#define MOTION_ERR_UNKNOWN_PLAN_TYPE (-4)
/** token_terminate was called for a token that was already terminated. The call had no effect. */
#define MOTION_ERR_TOKEN_ALREADY_TERMINATED (-5)
/** token_terminate was called for a token this context never generated (including 0). No effect. */
#define MOTION_ERR_UNKNOWN_TOKEN (-6)
/** The scheduler behind this context has gone away (it is shutting down), or the context's performer was
 *  destroyed; the call had no effect. */
#define MOTION_ERR_SCHEDULER_GONE (-7)
/** An emitted transaction was malformed, or one of its operations failed (message names the operation). */
#define MOTION_ERR_EMISSION_FAILED (-8)
/** A property id was never interned, or the target has no value for it (get_property). */
#define MOTION_ERR_UNKNOWN_PROPERTY (-9)
/** get_property: the caller's buffer holds fewer values than the property has; *count_out says how many. */
#define MOTION_ERR_BUFFER_TOO_SMALL (-10)
/** A [scheduler-thread] host function was called from another thread. The call had no effect (for
 *  set_properties: that write had none; see there). */
#define MOTION_ERR_WRONG_THREAD (-11)
/** Anything else: a failure inside the callee (out of memory, a broken invariant). The message says what. */
#define MOTION_ERR_INTERNAL (-12)
/** Since ABI 1.2. An emitted transaction is over MOTION_EMIT_MAX_BYTES or MOTION_EMIT_MAX_OPERATIONS;
 *  nothing of it was done. The message names the cap. */
#define MOTION_ERR_TOO_LARGE (-13)

/**
 * The constant's name for a status code ("MOTION_OK", "MOTION_ERR_INVALID_PLAN", ...), or
 * "MOTION_ERR_UNRECOGNIZED" for a code this header does not define. [thread-safe]
 * Returns a static string: never free it.
 */
static inline const char *motion_status_name(motion_status status) {
    switch (status) {
    case MOTION_OK: return "MOTION_OK";
    case MOTION_ERR_INVALID_ARGUMENT: return "MOTION_ERR_INVALID_ARGUMENT";
    case MOTION_ERR_INVALID_PLAN: return "MOTION_ERR_INVALID_PLAN";
    case MOTION_ERR_UNKNOWN_CLASS: return "MOTION_ERR_UNKNOWN_CLASS";
    case MOTION_ERR_UNKNOWN_PLAN_TYPE: return "MOTION_ERR_UNKNOWN_PLAN_TYPE";
    case MOTION_ERR_TOKEN_ALREADY_TERMINATED: return "MOTION_ERR_TOKEN_ALREADY_TERMINATED";
    case MOTION_ERR_UNKNOWN_TOKEN: return "MOTION_ERR_UNKNOWN_TOKEN";
    case MOTION_ERR_SCHEDULER_GONE: return "MOTION_ERR_SCHEDULER_GONE";
    case MOTION_ERR_EMISSION_FAILED: return "MOTION_ERR_EMISSION_FAILED";
    case MOTION_ERR_UNKNOWN_PROPERTY: return "MOTION_ERR_UNKNOWN_PROPERTY";
    case MOTION_ERR_BUFFER_TOO_SMALL: return "MOTION_ERR_BUFFER_TOO_SMALL";
    case MOTION_ERR_WRONG_THREAD: return "MOTION_ERR_WRONG_THREAD";
    case MOTION_ERR_INTERNAL: return "MOTION_ERR_INTERNAL";
    case MOTION_ERR_TOO_LARGE: return "MOTION_ERR_TOO_LARGE";
    default: return "MOTION_ERR_UNRECOGNIZED";
    }
}

/* ============================================================================================== */
/* Limits                                                                                         */
/* ============================================================================================== */

/** Since ABI 1.2. The most bytes of JSON one emit_transaction call may pass (1 MiB). A longer transaction is
 *  refused with MOTION_ERR_TOO_LARGE before the host parses it. */
#define MOTION_EMIT_MAX_BYTES 1048576u
/** Since ABI 1.2. The most operations one emitted transaction may have. More are refused with
 *  MOTION_ERR_TOO_LARGE before the host parses the transaction (it counts them in one pass over the bytes). */
#define MOTION_EMIT_MAX_OPERATIONS 10000u
/** How deeply plans may nest on the scheduler thread: a performer handling a plan (depth 1, as committed)
 *  emits a transaction whose plan (depth 2) has a performer that emits again, and so on. A plan that would
 *  be performed at depth MOTION_EMIT_MAX_DEPTH + 1 fails with MOTION_ERR_EMISSION_FAILED, naming the chain
 *  (the host's Scheduler.maximumEmissionDepth). */
#define MOTION_EMIT_MAX_DEPTH 32u

/* ============================================================================================== */
/* Errors                                                                                         */
/* ============================================================================================== */

/** Capacity of motion_error.message in bytes, including the terminating NUL. */
#define MOTION_ERROR_MESSAGE_CAPACITY 512

/**
 * An error out-parameter. The caller (always the host) owns it, sets struct_size, status = MOTION_OK
 * and message[0] = '\0' before the call, and reads it only when the call fails.
 * A plugin that fails a call sets `status` to the code it returns and writes a NUL-terminated UTF-8
 * message (truncated to fit) that says what happened and how to fix it, e.g.
 * "Tween: \"duration\" must be >= 0, got -1. To fix, pass a non-negative duration in seconds."
 * The pointer is valid only during the call. Plugins must tolerate NULL (write nothing), although the
 * host never passes NULL. Use motion_error_set to fill it.
 */
typedef struct motion_error {
    uint32_t struct_size; /**< sizeof(motion_error) at the host's build. */
    motion_status status; /**< The failing call's status; MOTION_OK when unused. */
    char message[MOTION_ERROR_MESSAGE_CAPACITY]; /**< NUL-terminated UTF-8, truncated to fit. */
} motion_error;

/**
 * Fills `error` (when not NULL) with `status` and a copy of `message` (NULL means empty), truncated
 * to the capacity and always NUL-terminated. Truncation never splits a UTF-8 sequence. [thread-safe]
 */
static inline void motion_error_set(motion_error *error, motion_status status, const char *message) {
    if (error == NULL) return;
    error->status = status;
    size_t capacity = MOTION_ERROR_MESSAGE_CAPACITY;
    if (error->struct_size != 0 && error->struct_size < offsetof(motion_error, message) + capacity) {
        if (error->struct_size <= offsetof(motion_error, message)) return;
        capacity = error->struct_size - offsetof(motion_error, message);
    }
    size_t n = 0;
    if (message != NULL) {
        while (message[n] != '\0' && n + 1 < capacity) n++;
        if (message[n] != '\0') {
            /* Truncated: step back over UTF-8 continuation bytes so no sequence is split. */
            while (n > 0 && (((unsigned char)message[n]) & 0xC0u) == 0x80u) n--;
        }
        for (size_t i = 0; i < n; i++) error->message[i] = message[i];
    }
    error->message[n] = '\0';
}

/* ============================================================================================== */
/* Handles, property ids, tokens                                                                  */
/* ============================================================================================== */

/**
 * A performer, owned by the plugin. The host never dereferences it; it only passes it back to the
 * plugin's functions, from the create_performer call that returned it until destroy_performer.
 */
typedef struct motion_performer motion_performer;

/**
 * The host's per-performer context, owned by the host: one per performer. Valid from the moment
 * create_performer is entered until destroy_performer returns. A plugin keeps it to call the host
 * back; it must not use it after destroy_performer has returned (join or stop any plugin thread
 * that uses it before returning from destroy_performer). A host that can tell answers a call with a context
 * whose performer was destroyed with MOTION_ERR_SCHEDULER_GONE (a negative id from property_id, "" from
 * target_name) and does nothing. (This one can. In its own process a ctx is a handle that carries a
 * generation of the host's storage for it, which the host reuses for a later performer under a later
 * generation, so a destroyed performer's ctx stays told apart from every later one with no memory kept for
 * it, and a value that is no ctx of the host is answered with MOTION_ERR_INVALID_ARGUMENT, never read. In
 * the sandbox of an isolated plugin a retired ctx is kept for the life of the sandbox.)
 */
typedef struct motion_host_context motion_host_context;

/**
 * An interned property name ("opacity", "position"). Ids are >= 0, interned per scene and stable for
 * the run: intern once (e.g. when a plan arrives) and reuse the id every frame. A negative value
 * returned where an id is expected is a motion_status.
 */
typedef int32_t motion_property_id;

/** An is-active token. 0 is never a valid token. Unique within a scheduler; tokens are numbered
 *  increasingly in the order they are generated. */
typedef uint64_t motion_token;

/** The most components a property value has (opacity 1, position 2, rotation 3, colour 4). */
#define MOTION_PROPERTY_MAX_COMPONENTS 4

/**
 * One property write for motion_host_v1.set_properties (ABI 1.1): what one set_property call says.
 * Caller-owned; the host copies the values. It has no struct_size of its own: set_properties takes the
 * array's stride (write_size), which versions it; fields may only be appended.
 */
typedef struct motion_property_write {
    motion_host_context *ctx;     /**< The performer whose target is written, as passed to create_performer. */
    motion_property_id property;  /**< An id from property_id. */
    uint32_t count;               /**< Components in values, 1...MOTION_PROPERTY_MAX_COMPONENTS. */
    double values[MOTION_PROPERTY_MAX_COMPONENTS]; /**< values[0..count), finite; the rest is ignored. */
} motion_property_write;

/** Log levels for motion_host_v1.log. A newer minor may add levels; hosts treat unknown levels as INFO. */
#define MOTION_LOG_DEBUG 0
#define MOTION_LOG_INFO 1
#define MOTION_LOG_WARNING 2
#define MOTION_LOG_ERROR 3

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MOTION_ABI_CORE_H */
