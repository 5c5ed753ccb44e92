/* CDeclarative — see include/CDeclarative.h. Exports only the functions its manifest names. */
#include "CDeclarative.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct level_performer {
    const motion_host_v1 *host;
    motion_host_context *ctx;
    /* Blink state */
    motion_property_id blink_property;
    double period;       /* s */
    int64_t cycles_left; /* cycles not yet finished */
    double phase;        /* s into the current cycle */
    motion_token token;  /* 0 when not blinking */
} level_performer;

void *level_create(const char *target_name, const motion_host_v1 *host, motion_host_context *ctx) {
    (void)target_name;
    /* ABI 1.0's functions are all it calls: a host whose struct ends at plan_value_json will do. */
    if (host == NULL || ctx == NULL || !MOTION_STRUCT_HAS_FIELD(host, motion_host_v1, plan_value_json)) return NULL;
    level_performer *p = calloc(1, sizeof *p);
    if (p == NULL) {
        host->log(MOTION_LOG_ERROR, "org.motion.cdeclarative: out of memory creating a Level performer");
        return NULL;
    }
    p->host = host;
    p->ctx = ctx;
    return p;
}

static void stop_blinking(level_performer *p) {
    if (p->token == 0) return;
    motion_status status = p->host->token_terminate(p->ctx, p->token);
    if (status != MOTION_OK) {
        char message[160];
        snprintf(message, sizeof message, "org.motion.cdeclarative: token_terminate failed: %s",
                 motion_status_name(status));
        p->host->log(MOTION_LOG_WARNING, message);
    }
    p->token = 0;
}

void level_destroy(void *performer) {
    level_performer *p = performer;
    if (p == NULL) return;
    stop_blinking(p);
    free(p);
}

static motion_status set_scalar(level_performer *p, motion_property_id id, double value) {
    return p->host->set_property(p->ctx, id, &value, 1);
}

int32_t level_set(void *performer, const char *property, double level, int64_t steps, bool clamp) {
    level_performer *p = performer;
    if (p == NULL || property == NULL || property[0] == '\0') return MOTION_ERR_INVALID_ARGUMENT;
    if (!isfinite(level) || steps < 0) return MOTION_ERR_INVALID_PLAN;
    motion_property_id id = p->host->property_id(p->ctx, property);
    if (id < 0) return id;
    double value = level;
    if (clamp) value = value < 0 ? 0 : (value > 1 ? 1 : value);
    if (steps > 0) value = round(value * (double)steps) / (double)steps;
    return set_scalar(p, id, value);
}

int32_t level_blink(void *performer, const char *property, double period, int64_t count) {
    level_performer *p = performer;
    if (p == NULL || property == NULL || property[0] == '\0') return MOTION_ERR_INVALID_ARGUMENT;
    if (!isfinite(period) || period <= 0 || count < 1) return MOTION_ERR_INVALID_PLAN;
    motion_property_id id = p->host->property_id(p->ctx, property);
    if (id < 0) return id;
    if (p->token == 0) {
        motion_status status = p->host->token_generate(p->ctx, &p->token);
        if (status != MOTION_OK) {
            p->token = 0;
            return status;
        }
    }
    p->blink_property = id;
    p->period = period;
    p->cycles_left = count;
    p->phase = 0;
    return set_scalar(p, id, 1);
}

void level_update(void *performer, double time, double delta) {
    (void)time;
    level_performer *p = performer;
    if (p == NULL || p->token == 0) return;
    p->phase += delta;
    while (p->phase >= p->period && p->cycles_left > 0) {
        p->phase -= p->period;
        p->cycles_left--;
    }
    if (p->cycles_left == 0) {
        set_scalar(p, p->blink_property, 1);
        stop_blinking(p);
        return;
    }
    set_scalar(p, p->blink_property, p->phase < p->period / 2 ? 1 : 0);
}
