/*
 * A plugin built "against ABI 2.0": its entry accepts any host and returns an interface whose
 * abi_version is 2.0, so the host must refuse it naming both versions.
 * Manifest: Tests/Fixtures/plugins/wrong-abi-major.json, which claims "abiVersion": "1.0" (a manifest
 * claiming 2.0 is refused before the library is opened), so the library's own answer is what is refused.
 */
#include <motion_plugin.h>

static motion_performer *create_performer(const char *class_name, const char *target_name, motion_host_context *ctx,
                                          motion_error *error) {
    (void)class_name, (void)target_name, (void)ctx;
    motion_error_set(error, MOTION_ERR_INTERNAL, "an ABI 2.0 plugin must never be asked for a performer by a 1.x host");
    return NULL;
}
static void destroy_performer(motion_performer *p) { (void)p; }
static motion_status add_plan(motion_performer *p, const char *json, size_t length, motion_error *error) {
    (void)p, (void)json, (void)length, (void)error;
    return MOTION_ERR_INTERNAL;
}
static motion_status add_named_plan(motion_performer *p, const char *name, const char *json, size_t length,
                                    motion_error *error) {
    (void)name;
    return add_plan(p, json, length, error);
}
static motion_status remove_named_plan(motion_performer *p, const char *name, motion_error *error) {
    (void)p, (void)name, (void)error;
    return MOTION_ERR_INTERNAL;
}
static const void *get_extension(const char *id) {
    (void)id;
    return NULL;
}

static const motion_plugin_v1 g_plugin = {
    sizeof(motion_plugin_v1), MOTION_ABI_VERSION_MAKE(2, 0), "org.motion.fixtures.wrong-abi-major", create_performer,
    destroy_performer, add_plan, add_named_plan, remove_named_plan, get_extension,
};

MOTION_PLUGIN_EXPORT const motion_plugin_v1 *motion_plugin_entry(uint32_t host_abi_version,
                                                                  const motion_host_v1 *host) {
    (void)host_abi_version, (void)host;
    return &g_plugin;
}
