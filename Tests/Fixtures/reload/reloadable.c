// A fixture for hot reload: one entry plugin built in variants by the tests (cc -DSTEP_OFFSET=N, -DREFUSE,
// -DREFUSE_TARGET='"t1"', -DCRASH_TARGET, -DHANG_TARGET), so that a rebuilt library can be put in place of the running one. Plan "Step" {property, value}: the
// performer remembers each plan it holds (plain ones, and named ones by name) and, every frame, sets each
// plan's property to value + STEP_OFFSET: the values in the timeline say which build is running and which
// plans it holds. It holds one is-active token from its first plan until it is destroyed.
#include <motion_plugin.h>

#include <stdlib.h>
#include <string.h>

#ifndef STEP_OFFSET
#define STEP_OFFSET 0
#endif

enum { MAX_PLANS = 16 };

static const motion_host_v1 *g_host;

typedef struct step_plan {
    char name[64]; /* "" for a plain plan */
    motion_property_id property;
    double value;
} step_plan;

typedef struct stepper {
    motion_host_context *ctx;
    motion_token token;
    int count;
    step_plan plans[MAX_PLANS];
} stepper;

static motion_performer *create(const char *class_name, const char *target, motion_host_context *ctx,
                                motion_error *error) {
    (void)target;
#ifdef REFUSE_TARGET
    /* -DREFUSE_TARGET='"t1"': this build cannot make a performer for that target. */
    if (strcmp(target, REFUSE_TARGET) == 0) {
        motion_error_set(error, MOTION_ERR_INTERNAL, "this build makes no performer for " REFUSE_TARGET);
        return NULL;
    }
#endif
#ifdef CRASH_TARGET
    /* -DCRASH_TARGET='"t1"': this build aborts making a performer for that target. */
    if (strcmp(target, CRASH_TARGET) == 0) abort();
#endif
#ifdef HANG_TARGET
    /* -DHANG_TARGET='"t1"': this build never returns from making a performer for that target. */
    if (strcmp(target, HANG_TARGET) == 0)
        for (;;) {
        }
#endif
    if (strcmp(class_name, "Stepper") != 0) {
        motion_error_set(error, MOTION_ERR_UNKNOWN_CLASS, "org.example.reloadable has no class of that name");
        return NULL;
    }
    stepper *s = calloc(1, sizeof *s);
    if (s == NULL) {
        motion_error_set(error, MOTION_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    s->ctx = ctx;
    return (motion_performer *)s;
}

static void destroy(motion_performer *p) {
    stepper *s = (stepper *)p;
    if (s->token != 0) g_host->token_terminate(s->ctx, s->token);
    free(s);
}

static motion_status add_step(stepper *s, const char *name, const char *json, size_t length, motion_error *error) {
    char property[128];
    double value = 0;
    if (g_host->plan_string(json, length, "property", property, sizeof property, NULL) != MOTION_OK ||
        g_host->plan_number(json, length, "value", &value) != MOTION_OK) {
        motion_error_set(error, MOTION_ERR_INVALID_PLAN, "Step needs \"property\" and \"value\"");
        return MOTION_ERR_INVALID_PLAN;
    }
    step_plan *slot = NULL;
    for (int i = 0; i < s->count && name[0] != 0; i++) {
        if (strcmp(s->plans[i].name, name) == 0) slot = &s->plans[i];
    }
    if (slot == NULL) {
        if (s->count == MAX_PLANS) {
            motion_error_set(error, MOTION_ERR_INVALID_PLAN, "a Stepper holds at most 16 plans");
            return MOTION_ERR_INVALID_PLAN;
        }
        slot = &s->plans[s->count++];
    }
    strncpy(slot->name, name, sizeof slot->name - 1);
    slot->property = g_host->property_id(s->ctx, property);
    slot->value = value;
    if (s->token == 0 && g_host->token_generate(s->ctx, &s->token) != MOTION_OK) s->token = 0;
    return MOTION_OK;
}

static motion_status add(motion_performer *p, const char *json, size_t length, motion_error *error) {
    return add_step((stepper *)p, "", json, length, error);
}

static motion_status add_named(motion_performer *p, const char *name, const char *json, size_t length,
                               motion_error *error) {
    return add_step((stepper *)p, name, json, length, error);
}

static motion_status remove_named(motion_performer *p, const char *name, motion_error *error) {
    (void)error;
    stepper *s = (stepper *)p;
    for (int i = 0; i < s->count; i++) {
        if (strcmp(s->plans[i].name, name) != 0) continue;
        memmove(&s->plans[i], &s->plans[i + 1], (size_t)(s->count - i - 1) * sizeof s->plans[0]);
        s->count--;
        break;
    }
    return MOTION_OK;
}

static void update(motion_performer *p, const motion_frame *frame) {
    (void)frame;
    stepper *s = (stepper *)p;
    for (int i = 0; i < s->count; i++) {
        double value = s->plans[i].value + STEP_OFFSET;
        g_host->set_property(s->ctx, s->plans[i].property, &value, 1);
    }
}

static const motion_frames_v1 g_frames = {sizeof(motion_frames_v1), update, NULL};

static const void *get_extension(const char *id) { return strcmp(id, MOTION_EXTENSION_FRAMES) == 0 ? &g_frames : NULL; }

static const motion_plugin_v1 g_plugin = {
    sizeof(motion_plugin_v1), MOTION_ABI_VERSION, "org.example.reloadable",
    create, destroy, add, add_named, remove_named, get_extension,
};

MOTION_PLUGIN_EXPORT const motion_plugin_v1 *motion_plugin_entry(uint32_t host_abi_version, const motion_host_v1 *host) {
    if (!motion_plugin_accepts_host(host_abi_version, host, MOTION_HOST_SIZE_THROUGH(plan_value_json),
                                    "org.example.reloadable"))
        return NULL;
#ifdef REFUSE
    host->log(MOTION_LOG_ERROR, "org.example.reloadable: this build refuses to load (built with -DREFUSE)");
    return NULL;
#endif
    g_host = host;
    return &g_plugin;
}
