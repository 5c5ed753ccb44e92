/*
 * CPerformers — performers in plain C against motion_plugin.h only (the entry/vtable path).
 *
 *   class Nudger,    plan Nudge:    moves a property by an offset over a duration, frame by frame,
 *                                   holding an is-active token while it moves.
 *   class Sequencer, plan Sequence: emits the transactions its plan lists, in order (composition).
 *
 * Manifest: manifests/cperformers.json. Only motion_plugin_entry is exported (-fvisibility=hidden).
 * Plan fields are read through the host (motion_host_v1.plan_string, plan_numbers, plan_value_json): the
 * host has validated the plan against the manifest and holds its fields, so this plugin parses no JSON.
 */
#include <motion_plugin.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLUGIN_ID "org.motion.cperformers"
#define MAX_COMPONENTS 4

static const motion_host_v1 *g_host;

/* ---------------------------------------------------------------------------------------------- */
/* Performers                                                                                      */

typedef enum performer_kind { KIND_NUDGER = 1, KIND_SEQUENCER = 2 } performer_kind;

/* One running nudge. */
typedef struct nudge {
    motion_property_id property;
    double from[MAX_COMPONENTS];
    double by[MAX_COMPONENTS];
    uint32_t count;
    double duration; /* s */
    double elapsed;  /* s */
    bool started;    /* false until its first frame */
} nudge;

typedef struct performer {
    performer_kind kind;
    motion_host_context *ctx;
    /* Nudger only */
    nudge *nudges;
    size_t nudge_count, nudge_capacity;
    motion_token token; /* 0 when none is held */
} performer;

static void log_message(int32_t level, const char *format_prefix, const char *detail) {
    char line[MOTION_ERROR_MESSAGE_CAPACITY];
    snprintf(line, sizeof line, PLUGIN_ID ": %s%s", format_prefix, detail);
    g_host->log(level, line);
}

static void release_token(performer *p) {
    if (p->token == 0) return;
    motion_status status = g_host->token_terminate(p->ctx, p->token);
    if (status != MOTION_OK) log_message(MOTION_LOG_WARNING, "token_terminate failed: ", motion_status_name(status));
    p->token = 0;
}

static motion_performer *create_performer(const char *class_name, const char *target_name, motion_host_context *ctx,
                                          motion_error *error) {
    (void)target_name;
    performer_kind kind;
    if (class_name != NULL && strcmp(class_name, "Nudger") == 0) {
        kind = KIND_NUDGER;
    } else if (class_name != NULL && strcmp(class_name, "Sequencer") == 0) {
        kind = KIND_SEQUENCER;
    } else {
        char message[MOTION_ERROR_MESSAGE_CAPACITY];
        snprintf(message, sizeof message,
                 PLUGIN_ID " has no performer class \"%s\"; it has Nudger, Sequencer. To fix, correct the manifest.",
                 class_name != NULL ? class_name : "(null)");
        motion_error_set(error, MOTION_ERR_UNKNOWN_CLASS, message);
        return NULL;
    }
    performer *p = calloc(1, sizeof *p);
    if (p == NULL) {
        motion_error_set(error, MOTION_ERR_INTERNAL, PLUGIN_ID ": out of memory");
        return NULL;
    }
    p->kind = kind;
    p->ctx = ctx;
    return (motion_performer *)p;
}

static void destroy_performer(motion_performer *handle) {
    performer *p = (performer *)handle;
    if (p == NULL) return;
    release_token(p);
    free(p->nudges);
    free(p);
}

/* A plan being added: its JSON, as add_plan received it, for the host's plan-field functions. */
typedef struct plan_ref {
    const char *json;
    size_t length;
} plan_ref;

/* Nudge: {"type":"Nudge","property":"x","by":[10],"duration":0.25} */
static motion_status add_nudge(performer *p, plan_ref plan, motion_error *error) {
    nudge n;
    memset(&n, 0, sizeof n);
    n.duration = 0.25;
    char property[256];
    size_t property_length = 0;
    if (g_host->plan_string(plan.json, plan.length, "property", property, sizeof property, &property_length) != MOTION_OK ||
        property_length == 0) {
        motion_error_set(error, MOTION_ERR_INVALID_PLAN, "Nudge: \"property\" must be a non-empty string.");
        return MOTION_ERR_INVALID_PLAN;
    }
    if (g_host->plan_numbers(plan.json, plan.length, "by", n.by, MAX_COMPONENTS, &n.count) != MOTION_OK || n.count == 0 ||
        !isfinite(n.by[0])) {
        motion_error_set(error, MOTION_ERR_INVALID_PLAN, "Nudge: \"by\" must be 1 to 4 finite numbers.");
        return MOTION_ERR_INVALID_PLAN;
    }
    double duration;
    motion_status found = g_host->plan_number(plan.json, plan.length, "duration", &duration);
    if (found == MOTION_OK) {
        if (!isfinite(duration) || duration < 0) {
            motion_error_set(error, MOTION_ERR_INVALID_PLAN, "Nudge: \"duration\" must be a number >= 0 (seconds).");
            return MOTION_ERR_INVALID_PLAN;
        }
        n.duration = duration;
    }
    n.property = g_host->property_id(p->ctx, property);
    if (n.property < 0) {
        motion_error_set(error, n.property, "Nudge: the host cannot intern the property.");
        return n.property;
    }
    if (p->nudge_count == p->nudge_capacity) {
        size_t capacity = p->nudge_capacity == 0 ? 4 : p->nudge_capacity * 2;
        nudge *grown = realloc(p->nudges, capacity * sizeof *grown);
        if (grown == NULL) {
            motion_error_set(error, MOTION_ERR_INTERNAL, "Nudge: out of memory.");
            return MOTION_ERR_INTERNAL;
        }
        p->nudges = grown;
        p->nudge_capacity = capacity;
    }
    if (p->token == 0) {
        motion_status status = g_host->token_generate(p->ctx, &p->token);
        if (status != MOTION_OK) {
            p->token = 0;
            motion_error_set(error, status, "Nudge: the host gave no is-active token.");
            return status;
        }
    }
    p->nudges[p->nudge_count++] = n;
    return MOTION_OK;
}

/* Sequence: {"type":"Sequence","transactions":[{"operations":[...]}, ...]} */
static motion_status add_sequence(performer *p, plan_ref plan, motion_error *error) {
    /* The host writes the field's JSON; its first byte says whether it is an array. */
    char head[2] = {0, 0};
    size_t length = 0;
    motion_status status = g_host->plan_value_json(plan.json, plan.length, "transactions", head, sizeof head, &length);
    if (status == MOTION_ERR_BUFFER_TOO_SMALL) {
        char *whole = malloc(length + 1);
        if (whole == NULL) {
            motion_error_set(error, MOTION_ERR_INTERNAL, "Sequence: out of memory.");
            return MOTION_ERR_INTERNAL;
        }
        status = g_host->plan_value_json(plan.json, plan.length, "transactions", whole, length + 1, &length);
        head[0] = whole[0];
        free(whole);
    }
    if (status != MOTION_OK || head[0] != '[') {
        motion_error_set(error, MOTION_ERR_INVALID_PLAN, "Sequence: \"transactions\" must be an array of transactions.");
        return MOTION_ERR_INVALID_PLAN;
    }
    for (size_t index = 0;; index++) {
        char field[48];
        snprintf(field, sizeof field, "transactions[%zu]", index);
        size_t needed = 0;
        if (g_host->plan_value_json(plan.json, plan.length, field, NULL, 0, &needed) == MOTION_ERR_INVALID_PLAN) {
            return MOTION_OK; /* past the last transaction */
        }
        char *json = malloc(needed + 1);
        if (json == NULL) {
            motion_error_set(error, MOTION_ERR_INTERNAL, "Sequence: out of memory.");
            return MOTION_ERR_INTERNAL;
        }
        g_host->plan_value_json(plan.json, plan.length, field, json, needed + 1, &needed);
        motion_error emitted = {sizeof emitted, MOTION_OK, {0}};
        status = g_host->emit_transaction(p->ctx, json, needed, &emitted);
        free(json);
        if (status != MOTION_OK) {
            char message[MOTION_ERROR_MESSAGE_CAPACITY];
            snprintf(message, sizeof message, "Sequence: transactions[%zu] failed (%s): %s", index,
                     motion_status_name(status), emitted.message);
            motion_error_set(error, status, message);
            return status;
        }
    }
}

static motion_status add_plan(motion_performer *handle, const char *plan_json, size_t length, motion_error *error) {
    performer *p = (performer *)handle;
    if (p == NULL || plan_json == NULL || length == 0) {
        motion_error_set(error, MOTION_ERR_INVALID_ARGUMENT, "add_plan needs a performer and plan JSON.");
        return MOTION_ERR_INVALID_ARGUMENT;
    }
    plan_ref plan = {plan_json, length};
    char type[64];
    if (g_host->plan_string(plan_json, length, "type", type, sizeof type, NULL) != MOTION_OK) {
        motion_error_set(error, MOTION_ERR_INVALID_PLAN, "the plan has no \"type\" string.");
        return MOTION_ERR_INVALID_PLAN;
    }
    if (p->kind == KIND_NUDGER && strcmp(type, "Nudge") == 0) return add_nudge(p, plan, error);
    if (p->kind == KIND_SEQUENCER && strcmp(type, "Sequence") == 0) return add_sequence(p, plan, error);
    char message[MOTION_ERROR_MESSAGE_CAPACITY];
    snprintf(message, sizeof message, "%s does not perform plan type \"%s\".", p->kind == KIND_NUDGER ? "Nudger" : "Sequencer",
             type);
    motion_error_set(error, MOTION_ERR_UNKNOWN_PLAN_TYPE, message);
    return MOTION_ERR_UNKNOWN_PLAN_TYPE;
}

/* A named plan is performed like a regular one: removing it does not undo a nudge already under way. */
static motion_status add_named_plan(motion_performer *handle, const char *name, const char *plan_json, size_t length,
                                    motion_error *error) {
    if (name == NULL || name[0] == '\0') {
        motion_error_set(error, MOTION_ERR_INVALID_ARGUMENT, "add_named_plan needs a non-empty name.");
        return MOTION_ERR_INVALID_ARGUMENT;
    }
    return add_plan(handle, plan_json, length, error);
}

static motion_status remove_named_plan(motion_performer *handle, const char *name, motion_error *error) {
    (void)handle;
    (void)name;
    (void)error;
    return MOTION_OK;
}

/* ---------------------------------------------------------------------------------------------- */
/* Frames                                                                                          */

static void update(motion_performer *handle, const motion_frame *frame) {
    performer *p = (performer *)handle;
    if (p == NULL || frame == NULL || p->kind != KIND_NUDGER) return;
    size_t i = 0;
    while (i < p->nudge_count) {
        nudge *n = &p->nudges[i];
        bool done = false;
        if (!n->started) {
            /* Start from the property's value at the first frame (0 if the target has none). */
            uint32_t count = 0;
            double current[MAX_COMPONENTS] = {0};
            motion_status status = g_host->get_property(p->ctx, n->property, current, MAX_COMPONENTS, &count);
            for (uint32_t c = 0; c < n->count; c++) n->from[c] = (status == MOTION_OK && c < count) ? current[c] : 0;
            n->started = true;
        } else {
            n->elapsed += frame->delta;
        }
        double progress = n->duration > 0 ? n->elapsed / n->duration : 1;
        if (progress >= 1) {
            progress = 1;
            done = true;
        }
        double values[MAX_COMPONENTS];
        for (uint32_t c = 0; c < n->count; c++) values[c] = n->from[c] + n->by[c] * progress;
        if (g_host->set_property(p->ctx, n->property, values, n->count) != MOTION_OK) done = true;
        if (done) {
            p->nudges[i] = p->nudges[--p->nudge_count];
        } else {
            i++;
        }
    }
    if (p->nudge_count == 0) release_token(p);
}

/* ABI 1.1: the host updates a run of this plugin's performers with one call. It must have the effect of
 * update for each in turn, which is simplest to give exactly that way. (A plugin that also queues its
 * property writes for host->set_properties must hand the queue over before any other host call, such as
 * the get_property in update, and before returning.) */
static void update_many(motion_performer *const *performers, size_t count, const motion_frame *frame) {
    if (performers == NULL) return;
    for (size_t i = 0; i < count; i++) update(performers[i], frame);
}

static const motion_frames_v1 g_frames = {sizeof(motion_frames_v1), update, update_many};

static const void *get_extension(const char *extension_id) {
    if (extension_id != NULL && strcmp(extension_id, MOTION_EXTENSION_FRAMES) == 0) return &g_frames;
    return NULL;
}

/* ---------------------------------------------------------------------------------------------- */
/* Entry                                                                                           */

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
