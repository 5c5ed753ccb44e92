/* A plugin whose create_performer crashes with SIGSEGV. Manifest: Tests/Fixtures/plugins/crash-on-create.json. */
#include <motion_plugin.h>

#include <stdint.h>

/* volatile, so the compiler cannot prove the address invalid and turn the store into a trap instruction. */
static volatile uintptr_t g_bad_address = 16;

static motion_performer *create_performer(const char *class_name, const char *target_name, motion_host_context *ctx,
                                          motion_error *error) {
    (void)class_name, (void)target_name, (void)ctx, (void)error;
    *(volatile int *)g_bad_address = 1; /* segmentation fault */
    return NULL;
}
static void destroy_performer(motion_performer *p) { (void)p; }
static motion_status add_plan(motion_performer *p, const char *json, size_t length, motion_error *error) {
    (void)p, (void)json, (void)length, (void)error;
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
static const void *get_extension(const char *id) {
    (void)id;
    return NULL;
}

static const motion_plugin_v1 g_plugin = {
    sizeof(motion_plugin_v1), MOTION_ABI_VERSION, "org.motion.fixtures.crash-on-create", create_performer,
    destroy_performer, add_plan, add_named_plan, remove_named_plan, get_extension,
};

MOTION_PLUGIN_EXPORT const motion_plugin_v1 *motion_plugin_entry(uint32_t host_abi_version,
                                                                  const motion_host_v1 *host) {
    (void)host;
    if (MOTION_ABI_VERSION_MAJOR_OF(host_abi_version) != MOTION_ABI_VERSION_MAJOR) return NULL;
    return &g_plugin;
}
