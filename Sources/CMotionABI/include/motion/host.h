/*
 * motion/host.h — the host's side: motion_host_v1, the functions a plugin calls.
 * Part of the motion plugin ABI; include <motion_plugin.h>, which includes every part and says how they fit.
 */
#ifndef MOTION_ABI_HOST_H
#define MOTION_ABI_HOST_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

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

    /* ---- Since ABI 1.2 (check struct_size: MOTION_STRUCT_HAS_FIELD(host, motion_host_v1, get_extension)) ---- */

    /**
     * [thread-safe] One of the host's optional capabilities, by id, as the plugin's own get_extension
     * offers its: a host-owned struct that begins with `uint32_t struct_size`, valid and unchanged for the
     * life of the process, or NULL when this host does not offer `id` (unknown ids are not an error).
     * Ids are "motion.<name>/<major>"; a struct grows by appending, as every struct of this ABI does.
     * New host functions arrive as host extensions from now on rather than as fields of motion_host_v1.
     *   id: NUL-terminated, caller-owned, read during the call.
     * This host offers MOTION_HOST_EXTENSION_LOG (motion/log.h), since ABI 1.3
     * MOTION_HOST_EXTENSION_PROPERTY_SLOTS (motion/slots.h) and since ABI 1.4 MOTION_HOST_EXTENSION_PLANS
     * (motion/plans.h).
     */
    const void *(*get_extension)(const char *id);
} motion_host_v1;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MOTION_ABI_HOST_H */
