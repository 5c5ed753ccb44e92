/*
 * A plugin that refuses to load, and whose entry, after logging its reason, has a thread of its own log
 * another line (joined before the entry returns): the host must quote the entry's own line, logged on
 * the thread it called the entry on, not the last line logged in the process.
 * Manifest: Tests/Fixtures/plugins/emissions/noisy-refusal.json.
 */
#include <motion_plugin.h>
#include <pthread.h>
#include <stddef.h>

#define REFUSAL "org.motion.fixtures.noisy-refusal: refusing to load: the entry's own reason."
#define NOISE "org.motion.fixtures.noisy-refusal: a line from a worker thread, not the reason."

static const motion_host_v1 *g_host;

static void *log_noise(void *unused) {
    (void)unused;
    g_host->log(MOTION_LOG_INFO, NOISE);
    return NULL;
}

MOTION_PLUGIN_EXPORT const motion_plugin_v1 *motion_plugin_entry(uint32_t host_abi_version,
                                                                  const motion_host_v1 *host) {
    (void)host_abi_version;
    if (host == NULL || host->log == NULL) return NULL;
    g_host = host;
    host->log(MOTION_LOG_ERROR, REFUSAL);
    pthread_t thread;
    if (pthread_create(&thread, NULL, log_noise, NULL) == 0) pthread_join(thread, NULL);
    return NULL;
}
