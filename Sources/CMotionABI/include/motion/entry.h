/*
 * motion/entry.h — the entry point, motion_plugin_entry, and the checks every entry begins with.
 * Part of the motion plugin ABI; include <motion_plugin.h>, which includes every part and says how they fit.
 */
#ifndef MOTION_ABI_ENTRY_H
#define MOTION_ABI_ENTRY_H

#include "host.h"
#include "plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================== */
/* Entry                                                                                          */
/* ============================================================================================== */

/** Name of the one symbol an entry plugin exports. */
#define MOTION_PLUGIN_ENTRY_SYMBOL "motion_plugin_entry"

/**
 * The entry point of an entry plugin (its only exported symbol). Called once per process on the
 * scheduler thread, after dlopen(RTLD_NOW | RTLD_LOCAL), before anything else. A host that hot-reloads
 * a rebuilt library (serve --watch) loads it as a new copy beside the old one and calls the new copy's
 * entry once too: the two copies share no static data, the old one's performers are destroyed through
 * its own destroy_performer, and it is never unloaded.
 *   host_abi_version: the host's MOTION_ABI_VERSION (also in host->abi_version).
 *   host: host-owned, valid for the life of the process; keep it. Check host->struct_size before
 *     using a field appended after 1.0 (MOTION_STRUCT_HAS_FIELD).
 * Returns the plugin's interface, or NULL to refuse (wrong major, missing prerequisite): log the
 * reason through host->log first. Must not call any host function other than log.
 */
typedef const motion_plugin_v1 *(*motion_plugin_entry_fn)(uint32_t host_abi_version, const motion_host_v1 *host);

/**
 * The entry point's declaration (see motion_plugin_entry_fn). Declared with default visibility, so a
 * plugin built with -fvisibility=hidden still exports it; a host never calls it by name (it dlsyms it).
 */
MOTION_PLUGIN_EXPORT const motion_plugin_v1 *motion_plugin_entry(uint32_t host_abi_version, const motion_host_v1 *host);

/**
 * The size a motion_host_v1 must have for its `field`, and every field before it, to be there: pass
 * the last host function a plugin calls to motion_plugin_accepts_host.
 */
#define MOTION_HOST_SIZE_THROUGH(field) (offsetof(motion_host_v1, field) + sizeof(((motion_host_v1 *)0)->field))

/**
 * [scheduler-thread; from motion_plugin_entry] The checks every entry begins with: whether a plugin built
 * against this header can use `host`.
 * Returns true when `host` is not NULL, the major of `host_abi_version` is MOTION_ABI_VERSION_MAJOR, and
 * host->struct_size is at least `host_size_needed`. Otherwise it logs one line through host->log (when
 * the host's struct_size covers log) that begins with `plugin_id`, names both versions (or both sizes)
 * and says how to fix it, and returns false: return NULL from the entry then. It reads only struct_size
 * and log, which every major keeps in place (see Versioning).
 *   host_size_needed: MOTION_HOST_SIZE_THROUGH(the last field the plugin calls). A plugin that calls
 *     ABI 1.0's functions only passes MOTION_HOST_SIZE_THROUGH(plan_value_json), and a 1.0 host will do;
 *     sizeof(motion_host_v1) demands this header's minor.
 *   plugin_id: NUL-terminated, caller-owned, read during the call.
 */
/** Appends `text` to the NUL-terminated `buffer` of `capacity` bytes, truncating; returns the new length.
 *  (A helper of motion_plugin_accepts_host, so that this header needs no <stdio.h>.) */
static inline size_t motion_text_append(char *buffer, size_t capacity, size_t length, const char *text) {
    while (*text != '\0' && length + 1 < capacity) buffer[length++] = *text++;
    buffer[length] = '\0';
    return length;
}

/** Appends `value` in decimal, as motion_text_append appends text. */
static inline size_t motion_text_append_unsigned(char *buffer, size_t capacity, size_t length, unsigned long long value) {
    char digits[21];
    size_t n = 0;
    do {
        digits[n++] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0);
    char text[21];
    for (size_t k = 0; k < n; k++) text[k] = digits[n - 1 - k];
    text[n] = '\0';
    return motion_text_append(buffer, capacity, length, text);
}

static inline bool motion_plugin_accepts_host(uint32_t host_abi_version, const motion_host_v1 *host,
                                              size_t host_size_needed, const char *plugin_id) {
    if (host == NULL) return false;
    char message[384];
    size_t n = 0;
    message[0] = '\0';
    if (MOTION_ABI_VERSION_MAJOR_OF(host_abi_version) != MOTION_ABI_VERSION_MAJOR) {
        n = motion_text_append(message, sizeof message, n, plugin_id);
        n = motion_text_append(message, sizeof message, n, ": refusing to load: the host offers ABI ");
        n = motion_text_append_unsigned(message, sizeof message, n, MOTION_ABI_VERSION_MAJOR_OF(host_abi_version));
        n = motion_text_append(message, sizeof message, n, ".");
        n = motion_text_append_unsigned(message, sizeof message, n, MOTION_ABI_VERSION_MINOR_OF(host_abi_version));
        n = motion_text_append(message, sizeof message, n, " but this plugin was built against ABI ");
        n = motion_text_append_unsigned(message, sizeof message, n, MOTION_ABI_VERSION_MAJOR);
        n = motion_text_append(message, sizeof message, n, ".");
        n = motion_text_append_unsigned(message, sizeof message, n, MOTION_ABI_VERSION_MINOR);
        n = motion_text_append(message, sizeof message, n,
                               "; majors must match. To fix, rebuild the plugin against the host's motion_plugin.h.");
    } else if ((size_t)host->struct_size < host_size_needed) {
        n = motion_text_append(message, sizeof message, n, plugin_id);
        n = motion_text_append(message, sizeof message, n, ": refusing to load: the host's motion_host_v1 is ");
        n = motion_text_append_unsigned(message, sizeof message, n, host->struct_size);
        n = motion_text_append(message, sizeof message, n, " bytes (the host says ABI ");
        n = motion_text_append_unsigned(message, sizeof message, n, MOTION_ABI_VERSION_MAJOR_OF(host_abi_version));
        n = motion_text_append(message, sizeof message, n, ".");
        n = motion_text_append_unsigned(message, sizeof message, n, MOTION_ABI_VERSION_MINOR_OF(host_abi_version));
        n = motion_text_append(message, sizeof message, n, "), smaller than the ");
        n = motion_text_append_unsigned(message, sizeof message, n, host_size_needed);
        n = motion_text_append(message, sizeof message, n,
                               " this plugin needs for the host functions it calls. To fix, use a conforming host of an ABI "
                               "minor that has them.");
    } else {
        return true;
    }
    /* Only a field the host's size covers is read (a malformed host may be too small even for log). */
    if ((size_t)host->struct_size >= MOTION_HOST_SIZE_THROUGH(log) && host->log != NULL)
        host->log(MOTION_LOG_ERROR, message);
    return false;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MOTION_ABI_ENTRY_H */
