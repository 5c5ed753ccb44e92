/*
 * A plugin that refuses to load: its entry logs why and returns NULL, as motion_plugin.h prescribes.
 * Manifest: Tests/Fixtures/plugins/refuses.json.
 */
#include <motion_plugin.h>

#define REFUSAL \
    "org.motion.fixtures.refuses: refusing to load: it needs the sensor hub /dev/motion-hub0, which this " \
    "machine does not have. To fix, run it where the hub exists or disable the plugin in host.json."

MOTION_PLUGIN_EXPORT const motion_plugin_v1 *motion_plugin_entry(uint32_t host_abi_version,
                                                                  const motion_host_v1 *host) {
    (void)host_abi_version;
    if (host != NULL && host->log != NULL) host->log(MOTION_LOG_ERROR, REFUSAL);
    return NULL;
}
