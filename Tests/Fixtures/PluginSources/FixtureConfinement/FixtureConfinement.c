/* A plugin that tries what a sandbox forbids, and reports what happened as properties of its target, for the
 * isolation tests. Manifest: Tests/Fixtures/plugins/isolation/confinement.json (not in plugins/, whose manifests
 * plugins validate runs in process: TryExec would replace its child process). Each plan sets its property and
 * succeeds:
 *   "TryExec"      execve("/bin/true"): sets execErrno to errno (0 if it returned at all without one).
 *   "TrySocket"    socket(AF_INET, SOCK_STREAM): sets socketErrno to errno, 0 when a socket was made.
 *   "TryAllocate"  {"megabytes": N}: malloc(N MiB) and touches every page; sets allocated to 1, or 0 when malloc
 *                  returned NULL.
 *   "ProbeDescriptor" {"fd": N}: sets descriptorOpen to 1 when descriptor N is open (fcntl F_GETFD), else 0.
 *   "FloodTokens"  {"count": N}: generates N is-active tokens and terminates each; sets tokensFlooded to N.
 *   "CrashLater"   {"milliseconds": N}: takes a token and starts a thread of its own that, after N ms, logs
 *                  "crashing at <CLOCK_MONOTONIC ns>" and writes to address 16, outside any call from the host.
 *   "WriteSlots"   {"count": N, "poisoned": 0 or 1}: one set_slots batch (motion/slots.h) of N writes to x by its slot,
 *                  the values 1 ... N (the last one NaN when poisoned: the host refuses the whole batch); sets
 *                  slotsStatus to the status. A large N is larger than the queue an isolated plugin's sandbox
 *                  hands over at once. */
#include <motion_plugin.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const motion_host_v1 *g_host;
static volatile uintptr_t g_bad_address = 16;

typedef struct performer {
    motion_host_context *ctx;
    pthread_t thread;
    int has_thread;
} performer;

static motion_performer *create_performer(const char *class_name, const char *target_name, motion_host_context *ctx,
                                          motion_error *error) {
    (void)target_name;
    if (strcmp(class_name, "Prober") != 0) {
        motion_error_set(error, MOTION_ERR_UNKNOWN_CLASS, "org.motion.fixtures.confinement has only class Prober");
        return NULL;
    }
    performer *p = calloc(1, sizeof *p);
    if (p == NULL) {
        motion_error_set(error, MOTION_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    p->ctx = ctx;
    return (motion_performer *)p;
}

static void destroy_performer(motion_performer *mp) {
    performer *p = (performer *)mp;
    if (p->has_thread) pthread_detach(p->thread);
    free(p);
}

static void set(performer *p, const char *name, double value) {
    motion_property_id id = g_host->property_id(p->ctx, name);
    if (id >= 0) g_host->set_property(p->ctx, id, &value, 1);
}

static void *crash_later(void *argument) {
    long milliseconds = (long)(intptr_t)argument;
    struct timespec delay = {milliseconds / 1000, (milliseconds % 1000) * 1000000L};
    nanosleep(&delay, NULL);
    /* The moment of the crash, for the benchmark's detection latency (CLOCK_MONOTONIC is the host's clock too). */
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    char line[96] = "org.motion.fixtures.confinement: crashing at ";
    motion_text_append_unsigned(line, sizeof line, strlen(line), (unsigned long long)now.tv_sec * 1000000000ull + (unsigned long long)now.tv_nsec);
    g_host->log(MOTION_LOG_INFO, line);
    *(volatile int *)g_bad_address = 1;
    return NULL;
}

static motion_status write_slots(performer *p, size_t count, int poisoned) {
    if ((size_t)g_host->struct_size < MOTION_HOST_SIZE_THROUGH(get_extension) || g_host->get_extension == NULL)
        return MOTION_ERR_INTERNAL;
    const motion_property_slots_v1 *slots = g_host->get_extension(MOTION_HOST_EXTENSION_PROPERTY_SLOTS);
    if (slots == NULL) return MOTION_ERR_INTERNAL;
    motion_property_slot slot = slots->slot(p->ctx, g_host->property_id(p->ctx, "x"));
    if (slot < 0) return slot;
    motion_slot_write *writes = malloc(count * sizeof *writes);
    double *values = malloc(count * sizeof *values);
    motion_status status = MOTION_ERR_INTERNAL;
    if (writes != NULL && values != NULL) {
        for (size_t i = 0; i < count; i++) {
            writes[i] = (motion_slot_write){slot, 1};
            values[i] = (double)(i + 1);
        }
        if (poisoned && count > 0) values[count - 1] = NAN;
        size_t failed = 0;
        status = slots->set_slots(p->ctx, writes, count, values, count, &failed);
    }
    free(writes);
    free(values);
    return status;
}

static motion_status add_plan(motion_performer *mp, const char *json, size_t length, motion_error *error) {
    performer *p = (performer *)mp;
    char type[32] = "";
    g_host->plan_string(json, length, "type", type, sizeof type, NULL);
    double number = 0;
    if (strcmp(type, "TryExec") == 0) {
        char *argv[] = {"/bin/true", NULL};
        char *envp[] = {NULL};
        errno = 0;
        execve("/bin/true", argv, envp);
        set(p, "execErrno", errno);
    } else if (strcmp(type, "TrySocket") == 0) {
        errno = 0;
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        set(p, "socketErrno", fd >= 0 ? 0 : errno);
        if (fd >= 0) close(fd);
    } else if (strcmp(type, "TryAllocate") == 0) {
        g_host->plan_number(json, length, "megabytes", &number);
        size_t bytes = (size_t)number << 20;
        unsigned char *block = malloc(bytes);
        if (block != NULL) {
            for (size_t i = 0; i < bytes; i += 4096) block[i] = 1;
            free(block);
        }
        set(p, "allocated", block != NULL ? 1 : 0);
    } else if (strcmp(type, "ProbeDescriptor") == 0) {
        g_host->plan_number(json, length, "fd", &number);
        set(p, "descriptorOpen", fcntl((int)number, F_GETFD) >= 0 ? 1 : 0);
    } else if (strcmp(type, "FloodTokens") == 0) {
        g_host->plan_number(json, length, "count", &number);
        long count = (long)number;
        for (long i = 0; i < count; i++) {
            motion_token token = 0;
            if (g_host->token_generate(p->ctx, &token) != MOTION_OK) break;
            g_host->token_terminate(p->ctx, token);
        }
        set(p, "tokensFlooded", (double)count);
    } else if (strcmp(type, "CrashLater") == 0) {
        g_host->plan_number(json, length, "milliseconds", &number);
        motion_token token = 0;
        g_host->token_generate(p->ctx, &token);
        if (pthread_create(&p->thread, NULL, crash_later, (void *)(intptr_t)(long)number) == 0) p->has_thread = 1;
    } else if (strcmp(type, "WriteSlots") == 0) {
        g_host->plan_number(json, length, "count", &number);
        double poisoned = 0;
        g_host->plan_number(json, length, "poisoned", &poisoned);
        set(p, "slotsStatus", write_slots(p, (size_t)number, poisoned != 0));
    } else {
        motion_error_set(error, MOTION_ERR_UNKNOWN_PLAN_TYPE, "org.motion.fixtures.confinement: unknown plan type");
        return MOTION_ERR_UNKNOWN_PLAN_TYPE;
    }
    return MOTION_OK;
}

static motion_status add_named_plan(motion_performer *p, const char *name, const char *json, size_t length,
                                    motion_error *error) {
    (void)name;
    return add_plan(p, json, length, error);
}

static motion_status remove_named_plan(motion_performer *p, const char *name, motion_error *error) {
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
    sizeof(motion_plugin_v1), MOTION_ABI_VERSION, "org.motion.fixtures.confinement", create_performer, destroy_performer,
    add_plan, add_named_plan, remove_named_plan, get_extension,
};

MOTION_PLUGIN_EXPORT const motion_plugin_v1 *motion_plugin_entry(uint32_t host_abi_version, const motion_host_v1 *host) {
    if (!motion_plugin_accepts_host(host_abi_version, host, MOTION_HOST_SIZE_THROUGH(plan_value_json),
                                    "org.motion.fixtures.confinement"))
        return NULL;
    g_host = host;
    return &g_plugin;
}
