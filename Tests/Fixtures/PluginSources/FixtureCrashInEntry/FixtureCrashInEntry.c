/* A plugin whose motion_plugin_entry crashes with SIGSEGV, so loading it kills the process that loads it. For the
 * sandbox tests only: its manifest, Tests/Fixtures/plugins/isolation/crash-in-entry.json, is not in plugins/, whose
 * manifests plugins validate and other tests load in process. */
#include <motion_plugin.h>

#include <stdint.h>

/* volatile, so the compiler cannot prove the address invalid and turn the store into a trap instruction. */
static volatile uintptr_t g_bad_address = 16;

MOTION_PLUGIN_EXPORT const motion_plugin_v1 *motion_plugin_entry(uint32_t host_abi_version,
                                                                  const motion_host_v1 *host) {
    (void)host_abi_version, (void)host;
    *(volatile int *)g_bad_address = 1; /* segmentation fault */
    return NULL;
}
