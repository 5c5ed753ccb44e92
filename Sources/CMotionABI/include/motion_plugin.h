/*
 * motion_plugin.h — the versioned C ABI between a motion host and its performer plugins.
 *
 * This header is the specification. Everything a plugin author or a host author needs to know is
 * written next to the declaration it concerns: which thread may call a function, who owns every
 * pointer and for how long, what every status code means, and how structs grow between versions.
 *
 * ----------------------------------------------------------------------------------------------
 * Vocabulary (after the Material Motion Runtime)
 *   plan         data that says what a target should do, e.g. {"type":"Tween","property":"opacity",...}
 *   target       a named object of a scene with animatable properties (vectors of doubles)
 *   performer    the object that fulfils plans of one or more types for one target; here it lives
 *                inside the plugin and is addressed through an opaque `motion_performer *`
 *   transaction  an ordered list of operations (add, addNamed, removeNamed) committed as a unit
 *   is-active token
 *                taken by a continuous performer while it works; the scheduler is active while any
 *                token is outstanding, and a performer holding one receives per-frame updates
 *   scheduler thread
 *                the one thread on which the host's scheduler runs; the host calls every plugin
 *                function on it (except those marked [thread-safe])
 *
 * ----------------------------------------------------------------------------------------------
 * Thread rules (written next to every function, in the manner of CLAP)
 *   [thread-safe]       may be called from any thread, concurrently.
 *   [scheduler-thread]  must be called on the scheduler thread only. Plugin functions so marked are
 *                       only ever called by the host on that thread. Host functions so marked return
 *                       MOTION_ERR_WRONG_THREAD (or a negative id) when called from another thread.
 *   Host functions are reentrant on the scheduler thread: a plugin may call them from inside
 *   create_performer, add_plan, add_named_plan, remove_named_plan, destroy_performer, and from the
 *   frames and device-motion callbacks.
 *
 * ----------------------------------------------------------------------------------------------
 * Versioning
 *   MOTION_ABI_VERSION = (MAJOR << 16) | MINOR. The host passes its version to the entry function and
 *   the plugin states the version it was built against in motion_plugin_v1.abi_version.
 *   - Majors must match. A plugin refuses a host of another major (log + return NULL); a host refuses
 *     a plugin of another major and names both versions. So that a refusal can always be said, every
 *     major keeps the first fields of motion_host_v1 as they are: struct_size, abi_version, log.
 *   - Minors only append: a newer minor may add fields at the END of a struct, new extensions, new
 *     status codes and new log levels. It never removes, reorders or retypes a field.
 *   - Every struct begins with `uint32_t struct_size`, set by the writer to sizeof(the struct) as
 *     compiled against its copy of this header. A reader reads only the fields the size covers
 *     (see MOTION_STRUCT_HAS_FIELD) and treats missing fields as absent (NULL / 0). A reader must
 *     also accept a struct_size larger than it knows: the extra tail is ignored.
 *   - Unknown status codes from a newer peer are treated as failures (any value < 0 is an error).
 *   History: 1.0 the first version. 1.1 appends motion_frames_v1.update_many (optional; a 1.0
 *   plugin's struct_size does not cover it, and the host then calls update per performer) and
 *   motion_host_v1.set_properties (a 1.0 host's struct_size does not cover it: use set_property).
 *   1.2 adds the status MOTION_ERR_TOO_LARGE and the caps on an emitted transaction it reports
 *   (MOTION_EMIT_MAX_BYTES, MOTION_EMIT_MAX_OPERATIONS); no struct changes. A 1.0 or 1.1 plugin that
 *   meets the code treats it, as every unknown code, as a failure.
 *
 * ----------------------------------------------------------------------------------------------
 * Memory ownership
 *   No allocation ever crosses the boundary: nothing allocated by one side is freed by the other.
 *   Every `const char *` and byte buffer passed as an argument is owned by the caller and valid only
 *   for the duration of the call: copy what you keep. Strings are UTF-8 and NUL-terminated, except
 *   the JSON buffers, which come with an explicit length and are NOT NUL-terminated.
 *   Errors are reported through a host-owned `motion_error` the plugin writes into.
 *
 * ----------------------------------------------------------------------------------------------
 * Two ways to write a plugin
 *   1. Entry plugins export exactly one symbol, `motion_plugin_entry`, which returns a static
 *      motion_plugin_v1 (a vtable). Plans arrive as JSON. Optional capabilities are reached through
 *      get_extension (MOTION_EXTENSION_FRAMES, MOTION_EXTENSION_DEVICE_MOTION).
 *   2. Declarative C plugins export plain functions that their manifest names; the host validates each
 *      plan against the manifest and calls the plan function with the plan's fields as typed C
 *      arguments through libffi. No JSON is parsed in C. See "Declarative C performers" below.
 *   The manifest (manifests/<name>.json) describes the plugin either way; the host reads it before
 *   it loads the library, and validates every plan against it before a plugin sees the plan.
 *
 * ----------------------------------------------------------------------------------------------
 * Life cycle of an entry plugin, as seen by the plugin
 *   1. motion_plugin_entry(host_abi_version, host)       once per process, scheduler thread
 *   2. plugin->get_extension(id)                          any time after 1, any thread
 *   3. plugin->create_performer(class, target, ctx, err)  once per (scheduler, target, class)
 *   4. plugin->add_plan / add_named_plan / remove_named_plan, frames update, device-motion receive,
 *      interleaved, all on the scheduler thread
 *   5. plugin->destroy_performer(performer)               when the performer's scheduler goes away
 *   The library is never unloaded (dlclose is never called), so static data lives for the process.
 *
 * ----------------------------------------------------------------------------------------------
 * Worked example: a complete entry plugin in C with one class, "Setter", and one plan type,
 * "Set" ({"type":"Set","property":"opacity","value":0.5}); it is Examples/Plugins/Setter/Setter.c. The
 * host has validated the plan against the manifest before add_plan sees it, and reads its fields for the
 * plugin (plan_string, plan_number), so the plugin parses no JSON.
 *
 *   #include <motion_plugin.h>
 *   #include <stdlib.h>
 *   #include <string.h>
 *
 *   static const motion_host_v1 *g_host;
 *   typedef struct setter { motion_host_context *ctx; } setter;
 *
 *   static motion_performer *create(const char *class_name, const char *target,
 *                                   motion_host_context *ctx, motion_error *error) {
 *       (void)target;
 *       if (strcmp(class_name, "Setter") != 0) {
 *           motion_error_set(error, MOTION_ERR_UNKNOWN_CLASS, "org.example.setter has no class of that name");
 *           return NULL;
 *       }
 *       setter *s = calloc(1, sizeof *s);
 *       if (s == NULL) { motion_error_set(error, MOTION_ERR_INTERNAL, "out of memory"); return NULL; }
 *       s->ctx = ctx;
 *       return (motion_performer *)s;
 *   }
 *   static void destroy(motion_performer *p) { free(p); }
 *   static motion_status add(motion_performer *p, const char *json, size_t length, motion_error *error) {
 *       setter *s = (setter *)p;
 *       char property[128]; double value;
 *       if (g_host->plan_string(json, length, "property", property, sizeof property, NULL) != MOTION_OK ||
 *           g_host->plan_number(json, length, "value", &value) != MOTION_OK) {
 *           motion_error_set(error, MOTION_ERR_INVALID_PLAN, "Set needs \"property\" and \"value\"");
 *           return MOTION_ERR_INVALID_PLAN;
 *       }
 *       motion_property_id id = g_host->property_id(s->ctx, property);
 *       if (id < 0) { motion_error_set(error, id, "cannot intern the property"); return id; }
 *       return g_host->set_property(s->ctx, id, &value, 1);
 *   }
 *   static motion_status add_named(motion_performer *p, const char *name, const char *json,
 *                                  size_t length, motion_error *error) {
 *       (void)name; return add(p, json, length, error);
 *   }
 *   static motion_status remove_named(motion_performer *p, const char *name, motion_error *error) {
 *       (void)p; (void)name; (void)error; return MOTION_OK;
 *   }
 *   static const void *get_extension(const char *id) { (void)id; return NULL; }
 *
 *   static const motion_plugin_v1 g_plugin = {
 *       sizeof(motion_plugin_v1), MOTION_ABI_VERSION, "org.example.setter",
 *       create, destroy, add, add_named, remove_named, get_extension,
 *   };
 *
 *   MOTION_PLUGIN_EXPORT const motion_plugin_v1 *motion_plugin_entry(uint32_t host_abi_version,
 *                                                                     const motion_host_v1 *host) {
 *       // ABI 1.0's functions are all it calls, so a 1.0 host will do; another major is refused, logged.
 *       if (!motion_plugin_accepts_host(host_abi_version, host, MOTION_HOST_SIZE_THROUGH(plan_value_json),
 *                                       "org.example.setter"))
 *           return NULL;
 *       g_host = host;
 *       return &g_plugin;
 *   }
 *
 * Its manifest (Examples/Plugins/setter.json):
 *   {"manifestVersion":1, "id":"org.example.setter", "name":"Setter", "version":"1.0.0",
 *    "abiVersion":"1.0", "library":"libSetter.so", "summary":"Sets a property.",
 *    "performers":[{"class":"Setter", "interface":"entry", "capabilities":[],
 *      "plans":[{"type":"Set", "summary":"Sets one property to a value.",
 *                "fields":[{"name":"property","type":"string","required":true},
 *                          {"name":"value","type":"number","required":true}]}]}]}
 */
#ifndef MOTION_PLUGIN_H
#define MOTION_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h> /* snprintf, in motion_plugin_accepts_host */

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================== */
/* Versions                                                                                       */
/* ============================================================================================== */

/** Major version of this ABI. A plugin and a host of different majors refuse each other. */
#define MOTION_ABI_VERSION_MAJOR 1
/** Minor version of this ABI. Minors only append (see "Versioning" above). */
#define MOTION_ABI_VERSION_MINOR 2
/** The packed version: (MAJOR << 16) | MINOR, a uint32_t. 1.2 is 0x00010002 (written as a literal so
 *  that Swift imports it as a constant; the static assertion below keeps it equal to the formula). */
#define MOTION_ABI_VERSION 65538u
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
 * that uses it before returning from destroy_performer). A host that can tell (this one keeps a retired
 * context for the life of the process) answers a call with a context whose performer was destroyed with
 * MOTION_ERR_SCHEDULER_GONE (a negative id from property_id, "" from target_name) and does nothing.
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

/* ============================================================================================== */
/* The host's side                                                                                */
/* ============================================================================================== */

/**
 * The host's interface, passed to motion_plugin_entry (and to a declarative plugin's create
 * function). The pointer and every function pointer in it are valid for the life of the process.
 * The host fills every field its struct_size covers; none is NULL.
 */
typedef struct motion_host_v1 {
    uint32_t struct_size; /**< sizeof(motion_host_v1) at the host's build. */
    uint32_t abi_version; /**< MOTION_ABI_VERSION the host was built against. */

    /**
     * [thread-safe] Writes one line to the host's log.
     * level: MOTION_LOG_*. message: NUL-terminated UTF-8, caller-owned, valid during the call (the host
     * copies it); NULL is ignored. The function has no context argument, so the host cannot tell which
     * plugin called: begin the message with your plugin id ("org.example.setter: ..."). Callable before
     * any performer exists, e.g. from motion_plugin_entry to say why it refuses. (This host attributes a
     * line logged on the thread it is calling the plugin on to that call: an entry's refusal quotes the
     * line the entry logged, not another thread's. A line from a thread of the plugin's own is not
     * attributed.)
     */
    void (*log)(int32_t level, const char *message);

    /**
     * [thread-safe] Emits a transaction on behalf of the performer of `ctx` (composition).
     *   json/length: a UTF-8 transaction, caller-owned, valid during the call, need not be NUL-terminated:
     *     {"operations":[{"op":"add","target":"card","plan":{"type":"Tween",...}},
     *                    {"op":"addNamed","target":"card","name":"drag","plan":{...}},
     *                    {"op":"removeNamed","target":"card","name":"drag"}]}
     *   error: caller-owned, may be NULL; filled on failure.
     * Limits (ABI 1.2), checked first, before the JSON is parsed: at most MOTION_EMIT_MAX_BYTES bytes and
     * MOTION_EMIT_MAX_OPERATIONS operations, else MOTION_ERR_TOO_LARGE and nothing is done (a 1.0/1.1 host
     * has no caps).
     * On the scheduler thread the transaction is performed synchronously, depth-first, before this
     * returns (also from inside add_plan), and the result reflects it: MOTION_ERR_EMISSION_FAILED
     * (malformed JSON, a plan failing its manifest, a failing operation, an emission cycle or the depth
     * bound), or MOTION_ERR_UNKNOWN_PLAN_TYPE. Operations before a failing one stay applied (and count as
     * applied: the host traces them and their performers act on them); the failing one and those after it
     * are not applied.
     *   Depth and cycles: an emission made while a performer handles a plan nests inside that plan's
     *   handling. A cycle is a plan of a type being performed on a target again inside its own handling
     *   (A on "card" emits B, B emits A on "card"); it fails at once, naming the chain of plan types. An
     *   emission nested deeper than MOTION_EMIT_MAX_DEPTH fails the same way. Neither overflows a stack.
     *   The error is the performer's to handle: a performer that gets an error status here and returns
     *   MOTION_OK (from add_plan, a frames update ...) has handled it, and its own operation succeeds; one
     *   that returns the error fails its operation with the emission's message.
     * From any other thread the transaction is checked against the limits, copied and queued, applied in
     * order at the scheduler's next turn, and MOTION_OK means only "queued". A queued transaction that
     * fails when applied fails alone (its operations before the failing one stay applied): the host
     * reports it (motion-host writes an "error" line in the timeline and on standard error) and goes on.
     * MOTION_ERR_SCHEDULER_GONE: the scheduler, or the performer of ctx, is gone; nothing was done.
     * MOTION_ERR_INVALID_ARGUMENT: ctx, json NULL or length 0.
     */
    motion_status (*emit_transaction)(motion_host_context *ctx, const char *json, size_t length,
                                      motion_error *error);

    /**
     * [thread-safe] Generates an is-active token for the performer of `ctx`. On MOTION_OK writes a
     * token (never 0) to *token_out; the scheduler is active from this moment, and the performer
     * receives frames updates (MOTION_EXTENSION_FRAMES) while it holds at least one token.
     * A performer may hold several tokens. Each must be terminated exactly once; tokens still held
     * when the performer is destroyed are terminated by the host (and reported).
     * MOTION_ERR_SCHEDULER_GONE: no token (*token_out set to 0). MOTION_ERR_INVALID_ARGUMENT:
     * ctx or token_out NULL.
     */
    motion_status (*token_generate)(motion_host_context *ctx, motion_token *token_out);

    /**
     * [thread-safe] Terminates a token of the performer of `ctx`. Callable from any thread (e.g. a
     * plugin's worker thread); the resulting idle transition is delivered on the scheduler thread.
     * MOTION_OK: terminated. MOTION_ERR_TOKEN_ALREADY_TERMINATED: the second (or later) terminate of one
     * token; nothing changes, the host does not trap. MOTION_ERR_UNKNOWN_TOKEN: never generated
     * through this ctx (or 0). MOTION_ERR_SCHEDULER_GONE: the scheduler (or the performer) has gone; the
     * host has already terminated the token itself.
     * The host remembers the last 1024 tokens terminated through each ctx: a second terminate of an older
     * one reports MOTION_ERR_UNKNOWN_TOKEN instead of MOTION_ERR_TOKEN_ALREADY_TERMINATED (still no effect).
     */
    motion_status (*token_terminate)(motion_host_context *ctx, motion_token token);

    /**
     * [scheduler-thread] Interns a property name and returns its id (>= 0), stable for the run.
     * name: NUL-terminated UTF-8, caller-owned, valid during the call. Interning does not create a
     * value on the target. Returns MOTION_ERR_INVALID_ARGUMENT (NULL or empty name, NULL ctx) or
     * MOTION_ERR_WRONG_THREAD as a negative id.
     */
    motion_property_id (*property_id)(motion_host_context *ctx, const char *name);

    /**
     * [scheduler-thread] Reads the current value of a property of the performer's target.
     * values: caller-owned buffer of `capacity` doubles; count_out: caller-owned, always written when
     * not NULL with the property's number of components (0 on failure other than BUFFER_TOO_SMALL).
     * MOTION_OK: values[0..count) written. MOTION_ERR_BUFFER_TOO_SMALL: capacity < count, nothing
     * written to values, *count_out says how many are needed. MOTION_ERR_UNKNOWN_PROPERTY: id not
     * interned, or the target has no value for it. MOTION_ERR_INVALID_ARGUMENT: ctx or count_out
     * NULL, or values NULL with capacity > 0. MOTION_ERR_WRONG_THREAD.
     */
    motion_status (*get_property)(motion_host_context *ctx, motion_property_id id, double *values,
                                  uint32_t capacity, uint32_t *count_out);

    /**
     * [scheduler-thread] Sets a property of the performer's target to `count` values (the host copies
     * them; values is caller-owned, valid during the call). The host records the change for this
     * frame's timeline. Sets the value even if the target had none before.
     * MOTION_ERR_UNKNOWN_PROPERTY: id not interned. MOTION_ERR_INVALID_ARGUMENT: ctx or values NULL,
     * count outside 1...MOTION_PROPERTY_MAX_COMPONENTS, or a non-finite value. MOTION_ERR_WRONG_THREAD.
     */
    motion_status (*set_property)(motion_host_context *ctx, motion_property_id id, const double *values,
                                  uint32_t count);

    /**
     * [thread-safe] The name of the performer's target: NUL-terminated UTF-8, host-owned, valid as
     * long as ctx is. Returns "" for a NULL ctx.
     */
    const char *(*target_name)(motion_host_context *ctx);

    /*
     * Plan fields, read by the host, so that a C plugin needs no JSON parser of its own.
     *
     * plan_json/length: a plan as add_plan or add_named_plan received it (caller-owned, valid during the
     * call; any UTF-8 JSON object works, but the plan the host is passing in the current call is answered
     * without parsing: the host already holds its fields). field: NUL-terminated; a top-level member name,
     * optionally followed by one array index, e.g. "to" or "transactions[2]".
     * Every function is [thread-safe] and returns MOTION_OK; MOTION_ERR_INVALID_PLAN when the JSON is not an
     * object or the field is absent or of another JSON type; MOTION_ERR_INVALID_ARGUMENT for a NULL pointer.
     */

    /** [thread-safe] A number field into *out (a boolean is not a number: MOTION_ERR_INVALID_PLAN; read it
     *  with plan_value_json, which gives "true" or "false"). */
    motion_status (*plan_number)(const char *plan_json, size_t length, const char *field, double *out);

    /**
     * [thread-safe] A number or an array of numbers (a vector) into values[0..capacity). *count_out
     * (always written when not NULL) is the number of components; MOTION_ERR_BUFFER_TOO_SMALL when it
     * exceeds capacity (the first capacity are copied).
     */
    motion_status (*plan_numbers)(const char *plan_json, size_t length, const char *field, double *values,
                                  uint32_t capacity, uint32_t *count_out);

    /**
     * [thread-safe] A string field, copied into buffer (caller-owned) as NUL-terminated UTF-8. *length_out
     * (always written when not NULL) is its byte length without the NUL; MOTION_ERR_BUFFER_TOO_SMALL when
     * length_out + 1 > capacity (nothing useful is copied: call again with a larger buffer).
     */
    motion_status (*plan_string)(const char *plan_json, size_t length, const char *field, char *buffer,
                                 size_t capacity, size_t *length_out);

    /**
     * [thread-safe] Any field's value as compact JSON (an object, e.g. a transaction to emit, an array, a
     * scalar), copied into buffer as for plan_string.
     */
    motion_status (*plan_value_json)(const char *plan_json, size_t length, const char *field, char *buffer,
                                     size_t capacity, size_t *length_out);

    /**
     * [scheduler-thread, checked per write] Since ABI 1.1 (check struct_size with MOTION_STRUCT_HAS_FIELD).
     * Applies `count` property writes in order, each exactly as
     * set_property(w.ctx, w.property, w.values, w.count) would, in one call: a plugin that updates many
     * performers in update_many may queue their writes and hand them over at once.
     *   writes: caller-owned array of `count` writes, each `write_size` bytes apart, valid during the call.
     *   write_size: sizeof(motion_property_write) at the caller's build (the array's stride, a multiple of
     *     its alignment, 8). A later minor may append fields to motion_property_write; the host reads only
     *     what write_size covers.
     *   failed_index_out: caller-owned, may be NULL; written only when the result is not MOTION_OK.
     * Ordering rule for a plugin that queues: the host sees a write only when set_properties is called, so
     * hand the queue over before any other host call of your own that reads or depends on properties
     * (get_property, set_property, emit_transaction, token_generate, token_terminate) and before
     * returning from the plugin function in which the writes were made (update_many, update, add_plan …).
     * Each write is checked as set_property checks, in this order: ctx not NULL, count in
     * 1...MOTION_PROPERTY_MAX_COMPONENTS, values finite (MOTION_ERR_INVALID_ARGUMENT); the ctx's performer
     * still exists (MOTION_ERR_SCHEDULER_GONE); the ctx's scheduler runs on the calling thread
     * (MOTION_ERR_WRONG_THREAD; writes may belong to performers of several
     * schedulers, so this is per write); the id was interned (MOTION_ERR_UNKNOWN_PROPERTY). A write that
     * fails a check is skipped; the writes after it are still applied.
     * Returns MOTION_OK when every write was applied (also for count 0, whatever writes is). Otherwise the
     * status of the first skipped write, with *failed_index_out set to its index; or
     * MOTION_ERR_INVALID_ARGUMENT with *failed_index_out = 0 and nothing applied when writes is NULL (count
     * > 0), write_size is smaller than the ABI 1.1 motion_property_write or not a multiple of 8, or
     * count * write_size overflows (also a count of 2^63 or more).
     */
    motion_status (*set_properties)(const motion_property_write *writes, size_t count, size_t write_size,
                                    size_t *failed_index_out);
} motion_host_v1;

/* ============================================================================================== */
/* The plugin's side                                                                              */
/* ============================================================================================== */

/**
 * The plugin's interface, returned by motion_plugin_entry. The struct, its plugin_id and its
 * functions must stay valid for the life of the process (a static const struct is the norm).
 * All fields are required (non-NULL).
 */
typedef struct motion_plugin_v1 {
    uint32_t struct_size; /**< sizeof(motion_plugin_v1) at the plugin's build. */
    uint32_t abi_version; /**< MOTION_ABI_VERSION the plugin was built against. */
    /** Reverse-DNS id, NUL-terminated; must equal the manifest's "id" (the host refuses a mismatch). */
    const char *plugin_id;

    /**
     * [scheduler-thread] Creates a performer of `class_name` (a "class" of the manifest) for the target
     * named `target_name`. Both strings are host-owned and valid only during the call (the target
     * name stays available through host->target_name(ctx)). ctx is host-owned and valid until
     * destroy_performer returns; keep it to call the host back. The host calls this at most once per
     * (scheduler, target, class), before the performer's first plan.
     * Returns the plugin-owned performer, or NULL with `error` filled: MOTION_ERR_UNKNOWN_CLASS for a
     * class the plugin does not know, MOTION_ERR_INTERNAL otherwise. (NULL without an error status is
     * reported by the host as MOTION_ERR_INTERNAL.)
     */
    motion_performer *(*create_performer)(const char *class_name, const char *target_name,
                                          motion_host_context *ctx, motion_error *error);

    /**
     * [scheduler-thread] Destroys a performer. Called once, when its scheduler goes away. The plugin
     * may still call the host with the performer's ctx during this call (e.g. to terminate its tokens);
     * after it returns, neither the performer pointer nor the ctx is used again by anyone. Tokens still
     * held are terminated by the host.
     */
    void (*destroy_performer)(motion_performer *performer);

    /**
     * [scheduler-thread] Hands the performer a plan. plan_json/length: UTF-8 `{"type":"Tween", ...}`,
     * host-owned, NOT NUL-terminated, valid only during the call. The host has already validated it
     * against the manifest (field types, ranges) and filled in defaults, and sends only plan types the
     * manifest lists for this performer's class. The performer may emit transactions and generate or
     * terminate tokens before returning.
     * Returns MOTION_OK, or an error with `error` filled: MOTION_ERR_INVALID_PLAN (the message names the
     * field), MOTION_ERR_UNKNOWN_PLAN_TYPE, MOTION_ERR_EMISSION_FAILED (an emission it needed failed),
     * MOTION_ERR_INTERNAL. A failed add leaves the performer usable.
     */
    motion_status (*add_plan)(motion_performer *performer, const char *plan_json, size_t length,
                              motion_error *error);

    /**
     * [scheduler-thread] Hands the performer a named plan. name: non-empty, case-sensitive,
     * NUL-terminated, host-owned, valid during the call. plan_json as for add_plan. Re-adding a name
     * the performer holds is preceded by remove_named_plan for it (the runtime's add, remove, add), so
     * a performer never holds two plans of one name. Returns as add_plan.
     */
    motion_status (*add_named_plan)(motion_performer *performer, const char *name, const char *plan_json,
                                    size_t length, motion_error *error);

    /**
     * [scheduler-thread] Removes the named plan `name` (host-owned, valid during the call). The host
     * calls it only for a name this performer holds. What removal means is the performer's to define
     * (e.g. a spring stops steering towards that destination and releases its token). Returns
     * MOTION_OK, or an error with `error` filled (MOTION_ERR_INTERNAL).
     */
    motion_status (*remove_named_plan)(motion_performer *performer, const char *name, motion_error *error);

    /**
     * [thread-safe] Returns the plugin's implementation of an optional extension, or NULL if it has
     * none. extension_id: NUL-terminated, host-owned, valid during the call (MOTION_EXTENSION_*). The
     * returned struct is plugin-owned, begins with struct_size and must stay valid for the life of
     * the process. The host asks once per extension after the entry call, before creating performers.
     */
    const void *(*get_extension)(const char *extension_id);
} motion_plugin_v1;

/* ============================================================================================== */
/* Extension: frames                                                                              */
/* ============================================================================================== */

/** Id of the per-frame update extension; get_extension returns a `const motion_frames_v1 *`. */
#define MOTION_EXTENSION_FRAMES "motion.frames/1"

/** One frame of the host's frame clock. Host-owned, valid only during the update call. */
typedef struct motion_frame {
    uint32_t struct_size; /**< sizeof(motion_frame) at the host's build. */
    uint64_t index;       /**< Frame number, 0 for the clock's first frame, +1 per frame. */
    double time;          /**< Seconds since the clock started (the scene's time). */
    double delta;         /**< Seconds since the previous frame (0 on frame 0); >= 0. */
} motion_frame;

/**
 * The frames extension, plugin-owned, valid for the life of the process.
 *
 * The host updates performers in one order (the order in which they first took a token). update is
 * required; update_many (ABI 1.1) is optional and, when present, is called instead of update for each
 * run of the plugin's performers that come one after another in that order (a run may be of one), which
 * in the common case is one call per plugin per frame instead of one per performer. A plugin that sets
 * update_many must give it exactly the effect of calling update for each performer in turn.
 */
typedef struct motion_frames_v1 {
    uint32_t struct_size; /**< sizeof(motion_frames_v1) at the plugin's build. */
    /**
     * [scheduler-thread] Called once per frame for each performer of the plugin that holds at least
     * one is-active token at the start of that frame. The performer typically sets properties and,
     * when done, terminates its token (it then receives no more frames until it takes another).
     * performer: as returned by create_performer. frame: host-owned, valid during the call only.
     */
    void (*update)(motion_performer *performer, const motion_frame *frame);
    /**
     * [scheduler-thread] Since ABI 1.1; optional: NULL (or a struct_size that does not cover it) makes
     * the host call update per performer, exactly as a 1.0 host does.
     * Updates `count` (>= 1) performers for one frame, in the order given, as `count` calls of update
     * would. performers: a host-owned array of `count` performers of this plugin, each holding at least
     * one is-active token when the call begins; valid during the call only (do not keep the array; the
     * performers in it are yours as always). frame: as for update.
     * Inside the call each performer may set properties, emit transactions, and take or end tokens exactly
     * as in update; a performer whose last token ends during the call (even by another performer's doing)
     * is still updated in this call. A plugin that queues property writes for set_properties must hand
     * them over as set_properties says (before its other host calls and before returning).
     */
    void (*update_many)(motion_performer *const *performers, size_t count, const motion_frame *frame);
} motion_frames_v1;

/* ============================================================================================== */
/* Extension: device motion                                                                       */
/* ============================================================================================== */

/** Id of the device-motion extension; get_extension returns a `const motion_device_motion_v1 *`. */
#define MOTION_EXTENSION_DEVICE_MOTION "motion.device-motion/1"

/** motion_device_motion_sample.magnetic_field_accuracy (CMMagneticFieldCalibrationAccuracy). */
#define MOTION_MAGNETIC_FIELD_ACCURACY_UNCALIBRATED (-1)
#define MOTION_MAGNETIC_FIELD_ACCURACY_LOW 0
#define MOTION_MAGNETIC_FIELD_ACCURACY_MEDIUM 1
#define MOTION_MAGNETIC_FIELD_ACCURACY_HIGH 2

/** motion_device_motion_sample.reference_frame (CMAttitudeReferenceFrame raw values). */
#define MOTION_REFERENCE_FRAME_X_ARBITRARY_Z_VERTICAL 1
#define MOTION_REFERENCE_FRAME_X_ARBITRARY_CORRECTED_Z_VERTICAL 2
#define MOTION_REFERENCE_FRAME_X_MAGNETIC_NORTH_Z_VERTICAL 4
#define MOTION_REFERENCE_FRAME_X_TRUE_NORTH_Z_VERTICAL 8

/**
 * One device-motion sample, mirroring Core Motion's CMDeviceMotion field by field, in its units and
 * conventions. Host-owned, valid only during the receive call.
 */
typedef struct motion_device_motion_sample {
    uint32_t struct_size; /**< sizeof(motion_device_motion_sample) at the host's build. */
    uint32_t reserved;    /**< 0; keeps the doubles 8-byte aligned. */
    double timestamp;     /**< s, monotonic (CMLogItem.timestamp). */
    /** Attitude quaternion (x, y, z, w), rotating device axes into the reference frame (CMQuaternion). */
    double attitude_x, attitude_y, attitude_z, attitude_w;
    double gravity_x, gravity_y, gravity_z; /**< g, device axes (CMDeviceMotion.gravity). */
    double user_acceleration_x, user_acceleration_y, user_acceleration_z; /**< g (userAcceleration). */
    double rotation_rate_x, rotation_rate_y, rotation_rate_z; /**< rad/s, device axes (rotationRate). */
    double magnetic_field_x, magnetic_field_y, magnetic_field_z; /**< µT (magneticField.field). */
    int32_t magnetic_field_accuracy; /**< MOTION_MAGNETIC_FIELD_ACCURACY_* (magneticField.accuracy). */
    int32_t reference_frame;         /**< MOTION_REFERENCE_FRAME_* the attitude is expressed in. */
    double heading; /**< degrees clockwise from north in [0, 360), or -1 when unknown (CMDeviceMotion.heading). */
} motion_device_motion_sample;

/** The device-motion extension, plugin-owned, valid for the life of the process. */
typedef struct motion_device_motion_v1 {
    uint32_t struct_size; /**< sizeof(motion_device_motion_v1) at the plugin's build. */
    /**
     * [scheduler-thread] Called with each new sample for every live performer of the plugin, whether
     * or not it holds a token. A performer that reacts (e.g. tilts its target) sets properties here.
     */
    void (*receive)(motion_performer *performer, const motion_device_motion_sample *sample);
} motion_device_motion_v1;

/* ============================================================================================== */
/* Entry                                                                                          */
/* ============================================================================================== */

/** Name of the one symbol an entry plugin exports. */
#define MOTION_PLUGIN_ENTRY_SYMBOL "motion_plugin_entry"

/**
 * The entry point of an entry plugin (its only exported symbol). Called once per process on the
 * scheduler thread, after dlopen(RTLD_NOW | RTLD_LOCAL), before anything else.
 *   host_abi_version: the host's MOTION_ABI_VERSION (also in host->abi_version).
 *   host: host-owned, valid for the life of the process; keep it. Check host->struct_size before
 *     using a field appended after 1.0 (MOTION_STRUCT_HAS_FIELD).
 * Returns the plugin's interface, or NULL to refuse (wrong major, missing prerequisite): log the
 * reason through host->log first. Must not call any host function other than log.
 */
typedef const motion_plugin_v1 *(*motion_plugin_entry_fn)(uint32_t host_abi_version, const motion_host_v1 *host);

/**
 * The entry point's declaration (see motion_plugin_entry_fn). Declared with default visibility, so a
 * plugin built with -fvisibility=hidden still exports it; a host never calls it by name (it dlsyms it).
 */
MOTION_PLUGIN_EXPORT const motion_plugin_v1 *motion_plugin_entry(uint32_t host_abi_version, const motion_host_v1 *host);

/**
 * The size a motion_host_v1 must have for its `field`, and every field before it, to be there: pass
 * the last host function a plugin calls to motion_plugin_accepts_host.
 */
#define MOTION_HOST_SIZE_THROUGH(field) (offsetof(motion_host_v1, field) + sizeof(((motion_host_v1 *)0)->field))

/**
 * [scheduler-thread; from motion_plugin_entry] The checks every entry begins with: whether a plugin built
 * against this header can use `host`.
 * Returns true when `host` is not NULL, the major of `host_abi_version` is MOTION_ABI_VERSION_MAJOR, and
 * host->struct_size is at least `host_size_needed`. Otherwise it logs one line through host->log (when
 * the host's struct_size covers log) that begins with `plugin_id`, names both versions (or both sizes)
 * and says how to fix it, and returns false: return NULL from the entry then. It reads only struct_size
 * and log, which every major keeps in place (see Versioning).
 *   host_size_needed: MOTION_HOST_SIZE_THROUGH(the last field the plugin calls). A plugin that calls
 *     ABI 1.0's functions only passes MOTION_HOST_SIZE_THROUGH(plan_value_json), and a 1.0 host will do;
 *     sizeof(motion_host_v1) demands this header's minor.
 *   plugin_id: NUL-terminated, caller-owned, read during the call.
 */
static inline bool motion_plugin_accepts_host(uint32_t host_abi_version, const motion_host_v1 *host,
                                              size_t host_size_needed, const char *plugin_id) {
    if (host == NULL) return false;
    char message[384];
    if (MOTION_ABI_VERSION_MAJOR_OF(host_abi_version) != MOTION_ABI_VERSION_MAJOR) {
        snprintf(message, sizeof message,
                 "%s: refusing to load: the host offers ABI %u.%u but this plugin was built against ABI %u.%u; majors "
                 "must match. To fix, rebuild the plugin against the host's motion_plugin.h.",
                 plugin_id, (unsigned)MOTION_ABI_VERSION_MAJOR_OF(host_abi_version),
                 (unsigned)MOTION_ABI_VERSION_MINOR_OF(host_abi_version), (unsigned)MOTION_ABI_VERSION_MAJOR,
                 (unsigned)MOTION_ABI_VERSION_MINOR);
    } else if ((size_t)host->struct_size < host_size_needed) {
        snprintf(message, sizeof message,
                 "%s: refusing to load: the host's motion_host_v1 is %u bytes (the host says ABI %u.%u), smaller "
                 "than the %zu this plugin needs for the host functions it calls. To fix, use a conforming host "
                 "of an ABI minor that has them.",
                 plugin_id, (unsigned)host->struct_size, (unsigned)MOTION_ABI_VERSION_MAJOR_OF(host_abi_version),
                 (unsigned)MOTION_ABI_VERSION_MINOR_OF(host_abi_version), host_size_needed);
    } else {
        return true;
    }
    /* Only a field the host's size covers is read (a malformed host may be too small even for log). */
    if ((size_t)host->struct_size >= MOTION_HOST_SIZE_THROUGH(log) && host->log != NULL)
        host->log(MOTION_LOG_ERROR, message);
    return false;
}

/* ============================================================================================== */
/* Declarative C performers                                                                       */
/* ============================================================================================== */
/*
 * A performer class whose manifest entry has "interface": "functions" needs no entry symbol and no JSON
 * parsing. The manifest names plain exported C functions; the host resolves them with dlsym when it
 * loads the library, validates every plan against the manifest, converts its fields to C values and
 * calls the plan's function through libffi (the call interface is prepared once per plan type).
 * All are called on the scheduler thread.
 *
 *   "functions": {"create": "level_create", "destroy": "level_destroy", "update": "level_update"}
 *
 *   create (required):   void *create(const char *target_name, const motion_host_v1 *host,
 *                                     motion_host_context *ctx);
 *       Returns the plugin-owned performer, or NULL to refuse (log why through host->log).
 *       target_name: host-owned, valid during the call. host: valid for the process. ctx: as for
 *       create_performer (valid until destroy returns). Keep host and ctx to set properties,
 *       emit transactions and take tokens.
 *   destroy (required):  void destroy(void *performer);
 *       As destroy_performer.
 *   update (optional):   void update(void *performer, double time, double delta);
 *       As motion_frames_v1.update (time and delta in seconds): called once per frame while the
 *       performer holds at least one is-active token.
 *   plan function, one per plan type, named by the plan's "call":
 *       "call": {"symbol": "level_set", "arguments": [{"field": "level", "type": "double"}, ...]}
 *       int32_t fn(void *performer, <one argument per listed field, in the listed order>);
 *       Returns a motion_status (MOTION_OK, or MOTION_ERR_INVALID_PLAN for a value it rejects).
 *       Argument C types:
 *         "double" -> double                    (JSON number)
 *         "int64"  -> int64_t                   (JSON integer)
 *         "bool"   -> bool (C99 _Bool, passed as a uint8) (JSON boolean)
 *         "string" -> const char * (UTF-8, NUL-terminated, host-owned, valid during the call only)
 *       A field absent from the plan takes its manifest default; a field with neither value nor
 *       default must be "required".
 *
 * Named plans reach a declarative performer's plan function like regular ones (it has no name
 * argument), and removing a named plan calls nothing.
 *
 * Example: manifest "call": {"symbol":"level_set","arguments":[{"field":"property","type":"string"},
 *   {"field":"level","type":"double"},{"field":"steps","type":"int64"},{"field":"clamp","type":"bool"}]}
 *   MOTION_PLUGIN_EXPORT int32_t level_set(void *performer, const char *property, double level,
 *                                          int64_t steps, bool clamp);
 */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MOTION_PLUGIN_H */
