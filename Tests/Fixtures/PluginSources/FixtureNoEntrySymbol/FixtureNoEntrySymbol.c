/*
 * A plugin without the entry symbol: it exports motion_plugin_main (a misspelt entry) instead of
 * motion_plugin_entry. Manifest: Tests/Fixtures/plugins/no-entry-symbol.json.
 */
#include <motion_plugin.h>

MOTION_PLUGIN_EXPORT const motion_plugin_v1 *motion_plugin_main(uint32_t host_abi_version, const motion_host_v1 *host);

const motion_plugin_v1 *motion_plugin_main(uint32_t host_abi_version, const motion_host_v1 *host) {
    (void)host_abi_version;
    if (host != NULL && host->log != NULL)
        host->log(MOTION_LOG_ERROR, "org.motion.fixtures.no-entry-symbol: motion_plugin_main must never be called");
    return NULL;
}
