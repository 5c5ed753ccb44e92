/* A plugin that fails at a chosen frame, for the host's "nothing lost" tests. Manifest:
 * Tests/Fixtures/plugins/faults.json.
 *
 * Plan "Fault" {"atFrame": N, "fault": F}: the performer takes an is-active token (so it is updated every
 * frame), sets property "n" to the frame index in every update (so every frame has a frame line), and in
 * the update of frame N (never when N < 0):
 *   "segv"          writes to address 16 (SIGSEGV) on the scheduler's thread;
 *   "abort"         calls abort() (SIGABRT);
 *   "hang"          never returns;
 *   "threadSegv"    starts a thread of its own that writes to address 16, and waits for it;
 *   "threadHostCall" starts a thread that calls the host's plan_number on an invalid address (the host
 *                   crashes in its own code, on the plugin's thread), and waits for it.
 * Plan "Quiet" {}: takes a token, never ends it, changes nothing (a performer still active at the end). */
#include <motion_plugin.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const motion_host_v1 *g_host;
/* volatile, so the compiler cannot prove the address invalid and turn the store into a trap instruction. */
static volatile uintptr_t g_bad_address = 16;
static volatile unsigned long g_spins;
static volatile double g_sink;

typedef enum fault { FAULT_NONE, FAULT_SEGV, FAULT_ABORT, FAULT_HANG, FAULT_THREAD_SEGV, FAULT_THREAD_HOST_CALL } fault;

typedef struct performer {
    motion_host_context *ctx;
    motion_property_id n;
    long long at_frame;
    fault fault;
    int is_quiet;
} performer;

static motion_performer *create_performer(const char *class_name, const char *target_name, motion_host_context *ctx,
                                          motion_error *error) {
    (void)target_name;
    if (strcmp(class_name, "Faulty") != 0) {
        motion_error_set(error, MOTION_ERR_UNKNOWN_CLASS, "org.motion.fixtures.faults has only class Faulty");
        return NULL;
    }
    performer *p = calloc(1, sizeof *p);
    if (p == NULL) {
        motion_error_set(error, MOTION_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    p->ctx = ctx;
    p->at_frame = -1;
    p->is_quiet = 1;
    return (motion_performer *)p;
}

static void destroy_performer(motion_performer *p) { free(p); }

static motion_status add_plan(motion_performer *mp, const char *json, size_t length, motion_error *error) {
    performer *p = (performer *)mp;
    char type[32] = "", name[32] = "";
    g_host->plan_string(json, length, "type", type, sizeof type, NULL);
    motion_token token = 0;
    motion_status status = g_host->token_generate(p->ctx, &token);
    if (status != MOTION_OK) {
        motion_error_set(error, status, "token_generate failed");
        return status;
    }
    if (strcmp(type, "Quiet") == 0) return MOTION_OK;
    p->is_quiet = 0;
    double at = -1;
    if (g_host->plan_number(json, length, "atFrame", &at) == MOTION_OK) p->at_frame = (long long)at;
    g_host->plan_string(json, length, "fault", name, sizeof name, NULL);
    p->fault = strcmp(name, "segv") == 0             ? FAULT_SEGV
               : strcmp(name, "abort") == 0          ? FAULT_ABORT
               : strcmp(name, "hang") == 0           ? FAULT_HANG
               : strcmp(name, "threadSegv") == 0     ? FAULT_THREAD_SEGV
               : strcmp(name, "threadHostCall") == 0 ? FAULT_THREAD_HOST_CALL
                                                     : FAULT_NONE;
    p->n = g_host->property_id(p->ctx, "n");
    if (p->n < 0) {
        motion_error_set(error, p->n, "the host cannot intern property n");
        return p->n;
    }
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

static void *segv_thread(void *unused) {
    (void)unused;
    *(volatile int *)g_bad_address = 1; /* segmentation fault, in the plugin's code */
    return NULL;
}

static void *host_call_thread(void *unused) {
    (void)unused;
    double value = 0;
    /* An invalid plan pointer: the host reads it and crashes in its own code, on this thread. */
    motion_status status = g_host->plan_number((const char *)g_bad_address, 64, "n", &value);
    g_sink = value + status; /* keeps the call from being a tail call, so this frame stays on the stack */
    return NULL;
}

static void run_thread(void *(*body)(void *)) {
    pthread_t thread;
    if (pthread_create(&thread, NULL, body, NULL) == 0) pthread_join(thread, NULL);
}

static void update(motion_performer *mp, const motion_frame *frame) {
    performer *p = (performer *)mp;
    if (p->is_quiet) return;
    double n = (double)frame->index;
    g_host->set_property(p->ctx, p->n, &n, 1);
    if (p->at_frame < 0 || (long long)frame->index != p->at_frame) return;
    switch (p->fault) {
    case FAULT_SEGV: *(volatile int *)g_bad_address = 1; break;
    case FAULT_ABORT: abort();
    case FAULT_HANG:
        for (;;) g_spins++; /* a volatile side effect keeps the loop from being optimized away */
    case FAULT_THREAD_SEGV: run_thread(segv_thread); break;
    case FAULT_THREAD_HOST_CALL: run_thread(host_call_thread); break;
    case FAULT_NONE: break;
    }
}

static const motion_frames_v1 g_frames = {sizeof(motion_frames_v1), update, NULL};

static const void *get_extension(const char *id) {
    if (id != NULL && strcmp(id, MOTION_EXTENSION_FRAMES) == 0) return &g_frames;
    return NULL;
}

static const motion_plugin_v1 g_plugin = {
    sizeof(motion_plugin_v1), MOTION_ABI_VERSION, "org.motion.fixtures.faults", create_performer,
    destroy_performer, add_plan, add_named_plan, remove_named_plan, get_extension,
};

MOTION_PLUGIN_EXPORT const motion_plugin_v1 *motion_plugin_entry(uint32_t host_abi_version,
                                                                  const motion_host_v1 *host) {
    if (!motion_plugin_accepts_host(host_abi_version, host, MOTION_HOST_SIZE_THROUGH(plan_value_json),
                                    "org.motion.fixtures.faults"))
        return NULL;
    g_host = host;
    return &g_plugin;
}
