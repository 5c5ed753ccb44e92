// A complete entry plugin in C: one performer class, "Setter", and one plan type, "Set"
// ({"type": "Set", "property": "opacity", "value": 0.5}). Plans arrive as JSON, already validated
// against setter.json; the host reads their fields for us (plan_string, plan_number), so no JSON parser.
#include <motion_plugin.h>

#include <stdlib.h>
#include <string.h>

static const motion_host_v1 *g_host;

typedef struct setter {
    motion_host_context *ctx;
} setter;

static motion_performer *create(const char *class_name, const char *target, motion_host_context *ctx,
                                motion_error *error) {
    (void)target;
    if (strcmp(class_name, "Setter") != 0) {
        motion_error_set(error, MOTION_ERR_UNKNOWN_CLASS, "org.example.setter has no class of that name");
        return NULL;
    }
    setter *s = calloc(1, sizeof *s);
    if (s == NULL) {
        motion_error_set(error, MOTION_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    s->ctx = ctx;
    return (motion_performer *)s;
}

static void destroy(motion_performer *p) { free(p); }

static motion_status add(motion_performer *p, const char *json, size_t length, motion_error *error) {
    setter *s = (setter *)p;
    char property[128];
    double value;
    if (g_host->plan_string(json, length, "property", property, sizeof property, NULL) != MOTION_OK ||
        g_host->plan_number(json, length, "value", &value) != MOTION_OK) {
        motion_error_set(error, MOTION_ERR_INVALID_PLAN, "Set needs a string \"property\" and a number \"value\"");
        return MOTION_ERR_INVALID_PLAN;
    }
    motion_property_id id = g_host->property_id(s->ctx, property);
    if (id < 0) {
        motion_error_set(error, id, "the host cannot intern the property");
        return id;
    }
    return g_host->set_property(s->ctx, id, &value, 1);
}

static motion_status add_named(motion_performer *p, const char *name, const char *json, size_t length,
                               motion_error *error) {
    (void)name;
    return add(p, json, length, error);
}

static motion_status remove_named(motion_performer *p, const char *name, motion_error *error) {
    (void)p;
    (void)name;
    (void)error;
    return MOTION_OK;
}

static const void *get_extension(const char *id) {
    (void)id;
    return NULL;
}

static const motion_plugin_v1 g_plugin = {
    sizeof(motion_plugin_v1), MOTION_ABI_VERSION, "org.example.setter",
    create, destroy, add, add_named, remove_named, get_extension,
};

MOTION_PLUGIN_EXPORT const motion_plugin_v1 *motion_plugin_entry(uint32_t host_abi_version, const motion_host_v1 *host) {
    /* ABI 1.0's functions are all it calls, so a 1.0 host will do; another major is refused, logged. */
    if (!motion_plugin_accepts_host(host_abi_version, host, MOTION_HOST_SIZE_THROUGH(plan_value_json),
                                    "org.example.setter"))
        return NULL;
    g_host = host;
    return &g_plugin;
}
