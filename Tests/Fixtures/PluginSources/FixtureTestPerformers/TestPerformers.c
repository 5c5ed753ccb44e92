/*
 * FixtureTestPerformers — the test performers of MotionTesting (TestPerformers.swift) as an entry plugin.
 *
 *   plan type            class                    what it does
 *   Record, RecordToo    RecordingPerformer       logs every call
 *   RecordOther          OtherRecordingPerformer  logs every call
 *   SetValue, SetVector  SetValuePerformer        sets "property" of its target to "value" (a number or
 *                                                 1-4 numbers; SetVector is SetValue with a vector, see the
 *                                                 manifest)
 *   Emit                 EmittingPerformer        emits "transaction" as given; a failed emission fails the add
 *   HoldTokens           TokenPerformer           takes "count" tokens (default 1) and terminates each after
 *                                                 "terminateAfterFrames" frame updates (0: at once; -1 or
 *                                                 absent: never)
 *
 * Each call writes one line through host->log(MOTION_LOG_DEBUG, line), exactly as the in-process CallLog:
 *   create C@t | add C@t <plan json> | addNamed C@t <name> <plan json> | removeNamed C@t <name> |
 *   update C@t <frame index> | destroy C@t
 * where C@t is <class name>@<target name> and <plan json> the bytes add_plan received. (The in-process
 * "emitter" and "tokens" lines have no C counterpart: the host hands over nothing.)
 *
 * Manifest: Tests/Fixtures/plugins/test-performers.json. Only motion_plugin_entry is exported.
 */
#include <motion_plugin.h>

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLUGIN_ID "org.motion.fixtures.test-performers"

static const motion_host_v1 *g_host;

typedef enum performer_kind { KIND_RECORDING, KIND_OTHER_RECORDING, KIND_SET_VALUE, KIND_EMITTING, KIND_TOKEN } performer_kind;

/* The classes, by kind, with the plan types each performs (NULL-terminated). */
static const struct performer_class {
    const char *name;
    const char *plan_types[3];
} g_classes[] = {
    [KIND_RECORDING] = {"RecordingPerformer", {"Record", "RecordToo", NULL}},
    [KIND_OTHER_RECORDING] = {"OtherRecordingPerformer", {"RecordOther", NULL, NULL}},
    [KIND_SET_VALUE] = {"SetValuePerformer", {"SetValue", "SetVector", NULL}},
    [KIND_EMITTING] = {"EmittingPerformer", {"Emit", NULL, NULL}},
    [KIND_TOKEN] = {"TokenPerformer", {"HoldTokens", NULL, NULL}},
};
#define CLASS_COUNT (sizeof g_classes / sizeof g_classes[0])

/* A token a TokenPerformer holds, with the frame updates left before it terminates it (<= 0: never). */
typedef struct held_token {
    motion_token token;
    long long frames_left;
} held_token;

typedef struct performer {
    performer_kind kind;
    motion_host_context *ctx;
    char *name; /* "Class@target", as the log names it */
    held_token *tokens;
    size_t token_count, token_capacity;
} performer;

/* Writes one formatted debug line to the host's log. */
static void log_line(const char *format, ...) {
    va_list args;
    va_start(args, format);
    va_list copy;
    va_copy(copy, args);
    int length = vsnprintf(NULL, 0, format, copy);
    va_end(copy);
    if (length >= 0) {
        char *line = malloc((size_t)length + 1);
        if (line != NULL) {
            vsnprintf(line, (size_t)length + 1, format, args);
            g_host->log(MOTION_LOG_DEBUG, line);
            free(line);
        } else {
            g_host->log(MOTION_LOG_ERROR, PLUGIN_ID ": out of memory writing a log line");
        }
    }
    va_end(args);
}

/* Fills error with a formatted message and returns status. */
static motion_status fail(motion_error *error, motion_status status, const char *format, ...) {
    char message[MOTION_ERROR_MESSAGE_CAPACITY];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    motion_error_set(error, status, message);
    return status;
}

/* ---------------------------------------------------------------------------------------------- */
/* Life cycle                                                                                       */

static motion_performer *create_performer(const char *class_name, const char *target_name, motion_host_context *ctx,
                                          motion_error *error) {
    size_t kind = 0;
    while (kind < CLASS_COUNT && (class_name == NULL || strcmp(class_name, g_classes[kind].name) != 0)) kind++;
    if (kind == CLASS_COUNT) {
        fail(error, MOTION_ERR_UNKNOWN_CLASS,
             PLUGIN_ID " has no performer class \"%s\"; it has RecordingPerformer, OtherRecordingPerformer, "
                       "SetValuePerformer, EmittingPerformer, TokenPerformer. To fix, correct the manifest.",
             class_name != NULL ? class_name : "(null)");
        return NULL;
    }
    performer *p = calloc(1, sizeof *p);
    const char *target = target_name != NULL ? target_name : "";
    size_t name_size = strlen(g_classes[kind].name) + 1 + strlen(target) + 1;
    if (p != NULL) p->name = malloc(name_size);
    if (p == NULL || p->name == NULL) {
        free(p);
        fail(error, MOTION_ERR_INTERNAL, PLUGIN_ID ": out of memory creating a %s.", g_classes[kind].name);
        return NULL;
    }
    snprintf(p->name, name_size, "%s@%s", g_classes[kind].name, target);
    p->kind = (performer_kind)kind;
    p->ctx = ctx;
    log_line("create %s", p->name);
    return (motion_performer *)p;
}

/* Tokens still held are left to the host, which terminates and reports them (as the in-process scheduler). */
static void destroy_performer(motion_performer *handle) {
    performer *p = (performer *)handle;
    if (p == NULL) return;
    log_line("destroy %s", p->name);
    free(p->tokens);
    free(p->name);
    free(p);
}

/* ---------------------------------------------------------------------------------------------- */
/* Plans                                                                                            */

/* A plan being performed: its JSON, for the host's plan-field functions (this plugin parses no JSON). */
typedef struct plan_ref {
    const char *json;
    size_t length;
} plan_ref;

/* SetValue / SetVector: {"property": string, "value": number or 1-4 numbers}. */
static motion_status perform_set_value(performer *p, plan_ref plan, const char *type, motion_error *error) {
    char property[256];
    if (g_host->plan_string(plan.json, plan.length, "property", property, sizeof property, NULL) != MOTION_OK) {
        return fail(error, MOTION_ERR_INVALID_PLAN,
                    "%s needs a string \"property\". To fix, name the property to set, e.g. \"opacity\".", type);
    }
    double values[4];
    uint32_t count = 0;
    motion_status read = g_host->plan_numbers(plan.json, plan.length, "value", values, 4, &count);
    if ((read != MOTION_OK && read != MOTION_ERR_BUFFER_TOO_SMALL) || count == 0) {
        return fail(error, MOTION_ERR_INVALID_PLAN,
                    "%s needs a numeric \"value\". To fix, give a number or an array of 1 to 4 numbers.", type);
    }
    if (count > 4) count = 4; /* like the in-process performer, extra components are dropped */
    motion_property_id id = g_host->property_id(p->ctx, property);
    motion_status status = id < 0 ? id : g_host->set_property(p->ctx, id, values, count);
    if (status != MOTION_OK) {
        return fail(error, status, "%s: the host did not set \"%s\" of the target (%s).", type, property,
                    motion_status_name(status));
    }
    return MOTION_OK;
}

/* Emit: {"transaction": object}, emitted as given; without one it does nothing. */
static motion_status perform_emit(performer *p, plan_ref plan, motion_error *error) {
    size_t needed = 0;
    if (g_host->plan_value_json(plan.json, plan.length, "transaction", NULL, 0, &needed) == MOTION_ERR_INVALID_PLAN) return MOTION_OK;
    char *json = malloc(needed + 1);
    if (json == NULL) return fail(error, MOTION_ERR_INTERNAL, "Emit: out of memory reading \"transaction\".");
    g_host->plan_value_json(plan.json, plan.length, "transaction", json, needed + 1, &needed);
    motion_error emitted = {sizeof emitted, MOTION_OK, {0}};
    motion_status status = g_host->emit_transaction(p->ctx, json, needed, &emitted);
    free(json);
    if (status != MOTION_OK) {
        /* The host's own status and message, as the in-process performer rethrows the emitter's error. */
        motion_error_set(error, status, emitted.message[0] != '\0' ? emitted.message : motion_status_name(status));
    }
    return status;
}

/* Reads an optional integer field; absent (or not a number) gives fallback. */
static long long integer_field(plan_ref plan, const char *name, long long fallback) {
    double value;
    if (g_host->plan_number(plan.json, plan.length, name, &value) != MOTION_OK || !isfinite(value)) return fallback;
    if (value > 1e15) return (long long)1e15;
    if (value < -1e15) return (long long)-1e15;
    return (long long)value;
}

/* HoldTokens: {"count": integer (default 1), "terminateAfterFrames": integer (0: at once, -1/absent: never)}. */
static motion_status perform_hold_tokens(performer *p, plan_ref plan, motion_error *error) {
    long long count = integer_field(plan, "count", 1);
    long long after = integer_field(plan, "terminateAfterFrames", -1);
    for (long long i = 0; i < count; i++) {
        motion_token token = 0;
        /* No token (the scheduler is gone): skip, as the in-process performer does. */
        if (g_host->token_generate(p->ctx, &token) != MOTION_OK || token == 0) continue;
        if (after == 0) {
            motion_status status = g_host->token_terminate(p->ctx, token);
            if (status != MOTION_OK) {
                return fail(error, status, "HoldTokens: terminating a token at once failed (%s).",
                            motion_status_name(status));
            }
            continue;
        }
        if (p->token_count == p->token_capacity) {
            size_t capacity = p->token_capacity == 0 ? 4 : p->token_capacity * 2;
            held_token *grown = realloc(p->tokens, capacity * sizeof *grown);
            if (grown == NULL) {
                g_host->token_terminate(p->ctx, token);
                return fail(error, MOTION_ERR_INTERNAL, "HoldTokens: out of memory.");
            }
            p->tokens = grown;
            p->token_capacity = capacity;
        }
        p->tokens[p->token_count++] = (held_token){token, after};
    }
    return MOTION_OK;
}

/* Logs nothing itself: the caller has logged the add. Checks the type is one of the class's. */
static motion_status perform(performer *p, const char *plan_json, size_t length, motion_error *error) {
    plan_ref plan = {plan_json, length};
    char type[128];
    if (g_host->plan_string(plan_json, length, "type", type, sizeof type, NULL) != MOTION_OK) {
        return fail(error, MOTION_ERR_INVALID_PLAN,
                    "the plan is not a JSON object with a \"type\" string. To fix, send {\"type\": \"...\", ...}.");
    }
    const struct performer_class *class = &g_classes[p->kind];
    bool performs = false;
    for (size_t i = 0; class->plan_types[i] != NULL; i++) performs |= strcmp(class->plan_types[i], type) == 0;
    if (!performs) {
        return fail(error, MOTION_ERR_UNKNOWN_PLAN_TYPE, "%s does not perform plan type \"%s\".", class->name, type);
    }
    switch (p->kind) {
    case KIND_SET_VALUE: return perform_set_value(p, plan, type, error);
    case KIND_EMITTING: return perform_emit(p, plan, error);
    case KIND_TOKEN: return perform_hold_tokens(p, plan, error);
    case KIND_RECORDING:
    case KIND_OTHER_RECORDING: return MOTION_OK;
    }
    return MOTION_OK;
}

static motion_status add_plan(motion_performer *handle, const char *plan_json, size_t length, motion_error *error) {
    performer *p = (performer *)handle;
    if (p == NULL || plan_json == NULL || length == 0 || length > INT32_MAX) {
        return fail(error, MOTION_ERR_INVALID_ARGUMENT, "add_plan needs a performer and plan JSON.");
    }
    log_line("add %s %.*s", p->name, (int)length, plan_json);
    return perform(p, plan_json, length, error);
}

static motion_status add_named_plan(motion_performer *handle, const char *name, const char *plan_json, size_t length,
                                    motion_error *error) {
    performer *p = (performer *)handle;
    if (p == NULL || name == NULL || name[0] == '\0' || plan_json == NULL || length == 0 || length > INT32_MAX) {
        return fail(error, MOTION_ERR_INVALID_ARGUMENT, "add_named_plan needs a performer, a non-empty name and plan JSON.");
    }
    log_line("addNamed %s %s %.*s", p->name, name, (int)length, plan_json);
    return perform(p, plan_json, length, error);
}

static motion_status remove_named_plan(motion_performer *handle, const char *name, motion_error *error) {
    performer *p = (performer *)handle;
    if (p == NULL || name == NULL) {
        return fail(error, MOTION_ERR_INVALID_ARGUMENT, "remove_named_plan needs a performer and a name.");
    }
    log_line("removeNamed %s %s", p->name, name);
    return MOTION_OK;
}

/* ---------------------------------------------------------------------------------------------- */
/* Frames (TokenPerformer only)                                                                     */

static void update(motion_performer *handle, const motion_frame *frame) {
    performer *p = (performer *)handle;
    if (p == NULL || frame == NULL || p->kind != KIND_TOKEN) return;
    log_line("update %s %" PRIu64, p->name, frame->index);
    for (size_t i = 0; i < p->token_count; i++) {
        held_token *held = &p->tokens[i];
        if (held->frames_left <= 0) continue;
        held->frames_left--;
        if (held->frames_left == 0) g_host->token_terminate(p->ctx, held->token);
    }
}

static const motion_frames_v1 g_frames = {sizeof(motion_frames_v1), update};

static const void *get_extension(const char *extension_id) {
    if (extension_id != NULL && strcmp(extension_id, MOTION_EXTENSION_FRAMES) == 0) return &g_frames;
    return NULL;
}

/* ---------------------------------------------------------------------------------------------- */
/* Entry                                                                                            */

static const motion_plugin_v1 g_plugin = {
    sizeof(motion_plugin_v1), MOTION_ABI_VERSION, PLUGIN_ID, create_performer, destroy_performer,
    add_plan,                 add_named_plan,     remove_named_plan, get_extension,
};

MOTION_PLUGIN_EXPORT const motion_plugin_v1 *motion_plugin_entry(uint32_t host_abi_version,
                                                                  const motion_host_v1 *host) {
    /* Every function this plugin calls is ABI 1.0's (the last is plan_value_json): a 1.0 host will do. */
    if (!motion_plugin_accepts_host(host_abi_version, host, MOTION_HOST_SIZE_THROUGH(plan_value_json), PLUGIN_ID))
        return NULL;
    g_host = host;
    return &g_plugin;
}
