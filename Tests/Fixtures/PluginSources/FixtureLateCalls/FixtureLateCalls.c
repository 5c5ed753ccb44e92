/*
 * A plugin that calls the host when it must not, or from threads of its own. Class "LateCaller":
 *   CallAfterDestroy {}           takes a token and starts a thread that waits (at most 10 s) until the
 *                                 performer has been destroyed, then 20 ms more, and then calls
 *                                 token_terminate, token_generate, emit_transaction, property_id,
 *                                 get_property, set_property and target_name with the dead ctx, which the
 *                                 header forbids; it logs one line with every status:
 *                                 "org.motion.fixtures.late-calls: after destroy: token_terminate=-7 ...",
 *                                 which fixture_late_calls_report also returns (once).
 *   EmitFromThread {"transaction": object}
 *                                 emits the transaction from a new thread (joined before add_plan returns),
 *                                 so the host queues it for its next turn; records the status in the
 *                                 target's property "queuedStatus".
 *   Flood {"bytes": n, "operations": n}
 *                                 emits, on the scheduler thread, a transaction of n operations, each
 *                                 removeNamed of a name padded so the whole is at least `bytes` long; records
 *                                 the status in "floodStatus" and returns MOTION_OK.
 * Its entry logs "org.motion.fixtures.late-calls: entry call N" with N counting the calls in this process.
 * Manifest: Tests/Fixtures/plugins/emissions/late-calls.json.
 */
#include <motion_plugin.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const motion_host_v1 *g_host;
static atomic_int g_entry_calls;
static pthread_mutex_t g_report_lock = PTHREAD_MUTEX_INITIALIZER;
static char g_report[512];

typedef struct late_caller {
    motion_host_context *ctx;
    /* Shared with the thread of CallAfterDestroy, which outlives the performer (and frees it). */
    struct late_job *job;
} late_caller;

typedef struct late_job {
    motion_host_context *ctx;
    motion_token token;
    atomic_bool destroyed;
} late_job;

static void sleep_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static void *call_after_destroy(void *raw) {
    late_job *job = raw;
    for (int i = 0; i < 10000 && !atomic_load(&job->destroyed); i++) sleep_ms(1);
    sleep_ms(20);
    motion_status terminate = g_host->token_terminate(job->ctx, job->token);
    motion_token token = 0;
    motion_status generate = g_host->token_generate(job->ctx, &token);
    static const char transaction[] = "{\"operations\":[{\"op\":\"removeNamed\",\"target\":\"t\",\"name\":\"n\"}]}";
    motion_error error = {sizeof(motion_error), MOTION_OK, {0}};
    motion_status emit = g_host->emit_transaction(job->ctx, transaction, sizeof transaction - 1, &error);
    motion_property_id id = g_host->property_id(job->ctx, "late");
    double value = 1;
    uint32_t count = 0;
    motion_status get = g_host->get_property(job->ctx, 0, &value, 1, &count);
    motion_status set = g_host->set_property(job->ctx, 0, &value, 1);
    const char *name = g_host->target_name(job->ctx);
    char line[512];
    snprintf(line, sizeof line,
             "org.motion.fixtures.late-calls: after destroy: token_terminate=%d token_generate=%d emit_transaction=%d "
             "property_id=%d get_property=%d set_property=%d target_name=\"%s\"",
             (int)terminate, (int)generate, (int)emit, (int)id, (int)get, (int)set, name != NULL ? name : "(null)");
    g_host->log(MOTION_LOG_INFO, line);
    pthread_mutex_lock(&g_report_lock);
    snprintf(g_report, sizeof g_report, "%s", line);
    pthread_mutex_unlock(&g_report_lock);
    free(job);
    return NULL;
}

/* For the tests (through dlsym): how often the entry was called in this process. */
MOTION_PLUGIN_EXPORT int fixture_late_calls_entry_count(void) { return atomic_load(&g_entry_calls); }

/* For the tests: copies the last "after destroy" line into buffer (NUL-terminated); returns its length, 0
 * while there is none. */
MOTION_PLUGIN_EXPORT size_t fixture_late_calls_report(char *buffer, size_t capacity) {
    pthread_mutex_lock(&g_report_lock);
    size_t length = strlen(g_report);
    if (capacity > 0) snprintf(buffer, capacity, "%s", g_report);
    g_report[0] = '\0';
    pthread_mutex_unlock(&g_report_lock);
    return length;
}

typedef struct emit_job {
    motion_host_context *ctx;
    char *json;
    size_t length;
    motion_status status;
} emit_job;

static void *emit_from_thread(void *raw) {
    emit_job *job = raw;
    motion_error error = {sizeof(motion_error), MOTION_OK, {0}};
    job->status = g_host->emit_transaction(job->ctx, job->json, job->length, &error);
    return NULL;
}

static motion_performer *create(const char *class_name, const char *target, motion_host_context *ctx,
                                motion_error *error) {
    (void)target;
    if (strcmp(class_name, "LateCaller") != 0) {
        motion_error_set(error, MOTION_ERR_UNKNOWN_CLASS, "org.motion.fixtures.late-calls has only LateCaller");
        return NULL;
    }
    late_caller *p = calloc(1, sizeof *p);
    if (p == NULL) {
        motion_error_set(error, MOTION_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    p->ctx = ctx;
    return (motion_performer *)p;
}

static void destroy(motion_performer *performer) {
    late_caller *p = (late_caller *)performer;
    /* Deliberately not joined: the header says to, and this plugin is here to break that rule. */
    if (p->job != NULL) atomic_store(&p->job->destroyed, true);
    free(p);
}

static motion_status record(late_caller *p, const char *property, motion_status status) {
    motion_property_id id = g_host->property_id(p->ctx, property);
    if (id < 0) return id;
    double value = status;
    return g_host->set_property(p->ctx, id, &value, 1);
}

static motion_status add(motion_performer *performer, const char *json, size_t length, motion_error *error) {
    late_caller *p = (late_caller *)performer;
    char type[64];
    if (g_host->plan_string(json, length, "type", type, sizeof type, NULL) != MOTION_OK) {
        motion_error_set(error, MOTION_ERR_INVALID_PLAN, "a plan needs a \"type\"");
        return MOTION_ERR_INVALID_PLAN;
    }
    if (strcmp(type, "CallAfterDestroy") == 0) {
        if (p->job != NULL) return MOTION_OK;
        late_job *job = calloc(1, sizeof *job);
        if (job == NULL) return MOTION_ERR_INTERNAL;
        job->ctx = p->ctx;
        motion_status status = g_host->token_generate(p->ctx, &job->token);
        if (status != MOTION_OK) {
            free(job);
            motion_error_set(error, status, "no token");
            return status;
        }
        pthread_t thread;
        if (pthread_create(&thread, NULL, call_after_destroy, job) != 0) {
            g_host->token_terminate(p->ctx, job->token);
            free(job);
            motion_error_set(error, MOTION_ERR_INTERNAL, "pthread_create failed");
            return MOTION_ERR_INTERNAL;
        }
        pthread_detach(thread);
        p->job = job;
        return MOTION_OK;
    }
    if (strcmp(type, "EmitFromThread") == 0) {
        size_t needed = 0;
        char probe[1];
        g_host->plan_value_json(json, length, "transaction", probe, sizeof probe, &needed);
        emit_job job = {p->ctx, malloc(needed + 1), needed, MOTION_OK};
        if (job.json == NULL) return MOTION_ERR_INTERNAL;
        motion_status status = g_host->plan_value_json(json, length, "transaction", job.json, needed + 1, NULL);
        if (status == MOTION_OK) {
            pthread_t thread;
            if (pthread_create(&thread, NULL, emit_from_thread, &job) == 0) {
                pthread_join(thread, NULL);
                status = job.status;
            } else {
                status = MOTION_ERR_INTERNAL;
            }
        }
        free(job.json);
        return record(p, "queuedStatus", status);
    }
    if (strcmp(type, "Flood") == 0) {
        double bytes = 0, operations = 1;
        g_host->plan_number(json, length, "bytes", &bytes);
        g_host->plan_number(json, length, "operations", &operations);
        size_t count = operations < 1 ? 1 : (size_t)operations;
        size_t pad = bytes > 0 ? (size_t)bytes / count + 1 : 1;
        static const char head[] = "{\"operations\":[";
        static const char op[] = "{\"op\":\"removeNamed\",\"target\":\"t\",\"name\":\"";
        size_t capacity = sizeof head + count * (sizeof op + pad + 4) + 4;
        char *text = malloc(capacity);
        if (text == NULL) return MOTION_ERR_INTERNAL;
        size_t n = 0;
        memcpy(text + n, head, sizeof head - 1), n += sizeof head - 1;
        for (size_t i = 0; i < count; i++) {
            if (i > 0) text[n++] = ',';
            memcpy(text + n, op, sizeof op - 1), n += sizeof op - 1;
            memset(text + n, 'x', pad), n += pad;
            memcpy(text + n, "\"}", 2), n += 2;
        }
        memcpy(text + n, "]}", 2), n += 2;
        motion_error emit_error = {sizeof(motion_error), MOTION_OK, {0}};
        motion_status status = g_host->emit_transaction(p->ctx, text, n, &emit_error);
        free(text);
        return record(p, "floodStatus", status);
    }
    motion_error_set(error, MOTION_ERR_UNKNOWN_PLAN_TYPE, "LateCaller does not perform this plan type");
    return MOTION_ERR_UNKNOWN_PLAN_TYPE;
}

static motion_status add_named(motion_performer *p, const char *name, const char *json, size_t length,
                               motion_error *error) {
    (void)name;
    return add(p, json, length, error);
}

static motion_status remove_named(motion_performer *p, const char *name, motion_error *error) {
    (void)p, (void)name, (void)error;
    return MOTION_OK;
}

static const void *get_extension(const char *id) {
    (void)id;
    return NULL;
}

static const motion_plugin_v1 g_plugin = {
    sizeof(motion_plugin_v1), MOTION_ABI_VERSION, "org.motion.fixtures.late-calls",
    create, destroy, add, add_named, remove_named, get_extension,
};

MOTION_PLUGIN_EXPORT const motion_plugin_v1 *motion_plugin_entry(uint32_t host_abi_version,
                                                                  const motion_host_v1 *host) {
    if (!motion_plugin_accepts_host(host_abi_version, host, MOTION_HOST_SIZE_THROUGH(plan_value_json),
                                    "org.motion.fixtures.late-calls"))
        return NULL;
    g_host = host;
    char line[96];
    snprintf(line, sizeof line, "org.motion.fixtures.late-calls: entry call %d", atomic_fetch_add(&g_entry_calls, 1) + 1);
    host->log(MOTION_LOG_INFO, line);
    return &g_plugin;
}
