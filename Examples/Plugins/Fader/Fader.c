// A complete per-frame plugin in C: one performer class, "Fader", and one plan type, "FadeTo"
// ({"type": "FadeTo", "property": "opacity", "to": 0.2, "duration": 0.5}). It moves a one-component
// property from its current value to `to` over `duration` seconds, one step per frame, holding an is-active
// token while it moves, so the scheduler is active until it arrives. The manifest (fader.json) declares the
// capabilities this uses, `frames` and `tokens`; the host fills `duration`'s default (0.5) before add sees
// the plan, for C plugins as for Swift ones, so `plan_number` always finds it.
#include <motion_plugin.h>

#include <stdlib.h>
#include <string.h>

static const motion_host_v1 *g_host;

typedef struct fader {
    motion_host_context *ctx;
    motion_property_id property;
    double from, to, duration, start; /* start < 0: not started yet */
    motion_token token;               /* 0 when no token is held */
} fader;

static void release(fader *f) {
    if (f->token != 0) g_host->token_terminate(f->ctx, f->token);
    f->token = 0;
}

static motion_performer *create(const char *class_name, const char *target, motion_host_context *ctx,
                                motion_error *error) {
    (void)target;
    if (strcmp(class_name, "Fader") != 0) {
        motion_error_set(error, MOTION_ERR_UNKNOWN_CLASS, "org.example.fader has no class of that name");
        return NULL;
    }
    fader *f = calloc(1, sizeof *f);
    if (f == NULL) {
        motion_error_set(error, MOTION_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    f->ctx = ctx;
    return (motion_performer *)f;
}

static void destroy(motion_performer *p) {
    release((fader *)p); /* a performer destroyed mid-fade ends its token (the host would too) */
    free(p);
}

static motion_status add(motion_performer *p, const char *json, size_t length, motion_error *error) {
    fader *f = (fader *)p;
    char property[128];
    if (g_host->plan_string(json, length, "property", property, sizeof property, NULL) != MOTION_OK ||
        g_host->plan_number(json, length, "to", &f->to) != MOTION_OK ||
        g_host->plan_number(json, length, "duration", &f->duration) != MOTION_OK) {
        motion_error_set(error, MOTION_ERR_INVALID_PLAN, "FadeTo needs \"property\", \"to\" and \"duration\"");
        return MOTION_ERR_INVALID_PLAN;
    }
    f->property = g_host->property_id(f->ctx, property);
    if (f->property < 0) {
        motion_error_set(error, f->property, "the host cannot intern the property");
        return f->property;
    }
    uint32_t count = 0;
    if (g_host->get_property(f->ctx, f->property, &f->from, 1, &count) != MOTION_OK || count == 0) f->from = 0;
    f->start = -1;
    /* Active from now until the fade arrives; a second FadeTo re-targets the running one. */
    if (f->token != 0) return MOTION_OK;
    motion_status status = g_host->token_generate(f->ctx, &f->token);
    if (status != MOTION_OK) {
        f->token = 0;
        motion_error_set(error, status, "no is-active token could be taken");
    }
    return status;
}

static motion_status add_named(motion_performer *p, const char *name, const char *json, size_t length,
                               motion_error *error) {
    (void)name;
    return add(p, json, length, error);
}

static motion_status remove_named(motion_performer *p, const char *name, motion_error *error) {
    (void)name;
    (void)error;
    release((fader *)p); /* removing the named fade stops it where it is */
    return MOTION_OK;
}

/* Called each frame while the performer holds a token (motion.frames/1). */
static void update(motion_performer *p, const motion_frame *frame) {
    fader *f = (fader *)p;
    if (f->token == 0) return;
    if (f->start < 0) f->start = frame->time;
    double progress = f->duration > 0 ? (frame->time - f->start) / f->duration : 1;
    if (progress > 1) progress = 1;
    double value = progress >= 1 ? f->to : f->from + (f->to - f->from) * progress; /* arrive exactly */
    g_host->set_property(f->ctx, f->property, &value, 1);
    if (progress >= 1) release(f); /* arrived: idle again */
}

static const motion_frames_v1 g_frames = {sizeof(motion_frames_v1), update, NULL /* update_many: optional */};

static const void *get_extension(const char *id) {
    return strcmp(id, MOTION_EXTENSION_FRAMES) == 0 ? &g_frames : NULL;
}

static const motion_plugin_v1 g_plugin = {
    sizeof(motion_plugin_v1), MOTION_ABI_VERSION, "org.example.fader",
    create, destroy, add, add_named, remove_named, get_extension,
};

MOTION_PLUGIN_EXPORT const motion_plugin_v1 *motion_plugin_entry(uint32_t host_abi_version, const motion_host_v1 *host) {
    if (!motion_plugin_accepts_host(host_abi_version, host, MOTION_HOST_SIZE_THROUGH(plan_value_json),
                                    "org.example.fader"))
        return NULL;
    g_host = host;
    return &g_plugin;
}
