/*
 * A plugin whose update_many does not do what update does, which motion_plugin.h forbids ("It must have
 * the same effect as calling update for each performer"): update writes the frame's index to the plan's
 * property, update_many writes the index + 1. Its performer holds a token for 10 frames.
 * Manifest: Tests/Fixtures/plugins/update-many-mismatch.json.
 */
#include <motion_plugin.h>

#include <stdlib.h>

#define PLUGIN_ID "org.motion.fixtures.update-many-mismatch"

static const motion_host_v1 *g_host;

typedef struct counter {
    motion_host_context *ctx;
    motion_property_id property;
    motion_token token;
    int frames_left;
} counter;

static motion_performer *create_performer(const char *class_name, const char *target_name, motion_host_context *ctx,
                                          motion_error *error) {
    (void)class_name, (void)target_name, (void)error;
    counter *c = calloc(1, sizeof *c);
    if (c == NULL) return NULL;
    c->ctx = ctx;
    c->property = -1;
    return (motion_performer *)c;
}

static void destroy_performer(motion_performer *p) { free(p); }

static motion_status add_plan(motion_performer *p, const char *json, size_t length, motion_error *error) {
    counter *c = (counter *)p;
    char property[64];
    motion_status status = g_host->plan_string(json, length, "property", property, sizeof property, NULL);
    if (status != MOTION_OK) {
        motion_error_set(error, MOTION_ERR_INVALID_PLAN, PLUGIN_ID ": Count needs a \"property\".");
        return MOTION_ERR_INVALID_PLAN;
    }
    c->property = g_host->property_id(c->ctx, property);
    if (c->frames_left == 0) g_host->token_generate(c->ctx, &c->token);
    c->frames_left = 10;
    return MOTION_OK;
}

static motion_status add_named_plan(motion_performer *p, const char *name, const char *json, size_t length,
                                    motion_error *error) {
    (void)name;
    return add_plan(p, json, length, error);
}

static motion_status remove_named_plan(motion_performer *p, const char *name, motion_error *error) {
    (void)p, (void)name, (void)error;
    return MOTION_OK;
}

static void step(counter *c, const motion_frame *frame, double offset) {
    if (c->frames_left == 0 || c->property < 0) return;
    double value = (double)frame->index + offset;
    g_host->set_property(c->ctx, c->property, &value, 1);
    if (--c->frames_left == 0) g_host->token_terminate(c->ctx, c->token);
}

static void update(motion_performer *p, const motion_frame *frame) { step((counter *)p, frame, 0); }

static void update_many(motion_performer *const *performers, size_t count, const motion_frame *frame) {
    for (size_t i = 0; i < count; i++) {
        if (performers[i] != NULL) step((counter *)performers[i], frame, 1); /* the mismatch */
    }
}

static const motion_frames_v1 g_frames = {sizeof(motion_frames_v1), update, update_many};

static const void *get_extension(const char *id) {
    for (const char *a = id, *b = MOTION_EXTENSION_FRAMES;; a++, b++) {
        if (*a != *b) return NULL;
        if (*a == '\0') return &g_frames;
    }
}

static const motion_plugin_v1 g_plugin = {
    sizeof(motion_plugin_v1), MOTION_ABI_VERSION, PLUGIN_ID, create_performer,
    destroy_performer, add_plan, add_named_plan, remove_named_plan, get_extension,
};

MOTION_PLUGIN_EXPORT const motion_plugin_v1 *motion_plugin_entry(uint32_t host_abi_version,
                                                                  const motion_host_v1 *host) {
    if (!motion_plugin_accepts_host(host_abi_version, host, MOTION_HOST_SIZE_THROUGH(plan_value_json), PLUGIN_ID))
        return NULL;
    g_host = host;
    return &g_plugin;
}
