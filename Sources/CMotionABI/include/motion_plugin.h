/*
 * motion_plugin.h — the versioned C ABI between a motion host and its performer plugins.
 *
 * This header is the specification. Everything a plugin author or a host author needs to know is
 * written next to the declaration it concerns: which thread may call a function, who owns every
 * pointer and for how long, what every status code means, and how structs grow between versions.
 *
 * ----------------------------------------------------------------------------------------------
 * Files. This header includes every part of the ABI; each part is a header of its own, as CLAP splits its:
 *   motion/core.h           versions, status codes, limits, errors, handles, property ids, tokens
 *   motion/host.h           the host's side: motion_host_v1 (the functions a plugin calls)
 *   motion/plugin.h         the plugin's side: motion_plugin_v1 (the functions the host calls)
 *   motion/entry.h          motion_plugin_entry and motion_plugin_accepts_host
 *   motion/frames.h         extension MOTION_EXTENSION_FRAMES: per-frame updates
 *   motion/device-motion.h  extension MOTION_EXTENSION_DEVICE_MOTION: sensor samples
 *   motion/log.h            host extension MOTION_HOST_EXTENSION_LOG: a log that names its caller
 *   motion/slots.h          host extension MOTION_HOST_EXTENSION_PROPERTY_SLOTS: writes by slot, checked per batch
 *   motion/plans.h          MOTION_HOST_EXTENSION_PLANS and MOTION_EXTENSION_PLAN_HANDLES: plans by handle, no JSON
 *   motion/declarative.h    declarative C performers: plain functions a manifest names
 *   None needs more of the C library than <stdbool.h>, <stddef.h> and <stdint.h>.
 *
 * ----------------------------------------------------------------------------------------------
 * Vocabulary (after the Material Motion Runtime)
 *   plan         data that says what a target should do, e.g. {"type":"Tween","property":"opacity",...}
 *   target       a named object of a scene with animatable properties (vectors of doubles)
 *   performer    the object that fulfils plans of one or more types for one target; here it lives
 *                inside the plugin and is addressed through an opaque `motion_performer *`
 *   transaction  an ordered list of operations (add, addNamed, removeNamed) committed as a unit
 *   is-active token
 *                taken by a continuous performer while it works; the scheduler is active while any
 *                token is outstanding, and a performer holding one receives per-frame updates
 *   scheduler thread
 *                the one thread on which the host's scheduler runs; the host calls every plugin
 *                function on it (except those marked [thread-safe])
 *
 * ----------------------------------------------------------------------------------------------
 * Thread rules (written next to every function, in the manner of CLAP)
 *   [thread-safe]       may be called from any thread, concurrently.
 *   [scheduler-thread]  must be called on the scheduler thread only. Plugin functions so marked are
 *                       only ever called by the host on that thread. Host functions so marked return
 *                       MOTION_ERR_WRONG_THREAD (or a negative id) when called from another thread.
 *   Host functions are reentrant on the scheduler thread: a plugin may call them from inside
 *   create_performer, add_plan, add_named_plan, remove_named_plan, destroy_performer, and from the
 *   frames and device-motion callbacks.
 *
 * ----------------------------------------------------------------------------------------------
 * Versioning
 *   MOTION_ABI_VERSION = (MAJOR << 16) | MINOR. The host passes its version to the entry function and
 *   the plugin states the version it was built against in motion_plugin_v1.abi_version.
 *   - Majors must match. A plugin refuses a host of another major (log + return NULL); a host refuses
 *     a plugin of another major and names both versions. So that a refusal can always be said, every
 *     major keeps the first fields of motion_host_v1 as they are: struct_size, abi_version, log.
 *   - Minors only append: a newer minor may add fields at the END of a struct, new extensions, new
 *     status codes and new log levels. It never removes, reorders or retypes a field.
 *   - Every struct begins with `uint32_t struct_size`, set by the writer to sizeof(the struct) as
 *     compiled against its copy of this header. A reader reads only the fields the size covers
 *     (see MOTION_STRUCT_HAS_FIELD) and treats missing fields as absent (NULL / 0). A reader must
 *     also accept a struct_size larger than it knows: the extra tail is ignored.
 *   - Unknown status codes from a newer peer are treated as failures (any value < 0 is an error).
 *   History: 1.0 the first version. 1.1 appends motion_frames_v1.update_many (optional; a 1.0
 *   plugin's struct_size does not cover it, and the host then calls update per performer) and
 *   motion_host_v1.set_properties (a 1.0 host's struct_size does not cover it: use set_property).
 *   1.2 adds the status MOTION_ERR_TOO_LARGE and the caps on an emitted transaction it reports
 *   (MOTION_EMIT_MAX_BYTES, MOTION_EMIT_MAX_OPERATIONS; a 1.0 or 1.1 plugin that meets the code treats it,
 *   as every unknown code, as a failure), and appends motion_host_v1.get_extension: the host's own
 *   extensions, the first being MOTION_HOST_EXTENSION_LOG, a log that names its caller (motion/log.h).
 *   1.3 adds the host extension MOTION_HOST_EXTENSION_PROPERTY_SLOTS (motion/slots.h): a (target, property)
 *   pair resolved once to a slot, and set_slots, a batch of writes by slot checked once per batch (context,
 *   thread, slot ranges, counts, finiteness) instead of once per write. Nothing else changes: a 1.0-1.2
 *   plugin never asks for it, and a 1.2 host answers NULL, so a 1.3 plugin falls back to set_properties.
 *   1.4 adds plans by handle (motion/plans.h): the host extension MOTION_HOST_EXTENSION_PLANS reads the fields of
 *   the plan being handed over in one call, by a layout of field names resolved once, and the plugin extension
 *   MOTION_EXTENSION_PLAN_HANDLES takes add_plan / add_named_plan with that handle instead of JSON, so the host
 *   writes no JSON and the plugin parses none. Nothing else changes: a 1.0-1.3 plugin offers no plan handles and
 *   gets JSON as before; a 1.3 host answers NULL for the host extension, so a 1.4 plugin takes JSON there.
 *
 * ----------------------------------------------------------------------------------------------
 * Memory ownership
 *   No allocation ever crosses the boundary: nothing allocated by one side is freed by the other.
 *   Every `const char *` and byte buffer passed as an argument is owned by the caller and valid only
 *   for the duration of the call: copy what you keep. Strings are UTF-8 and NUL-terminated, except
 *   the JSON buffers, which come with an explicit length and are NOT NUL-terminated.
 *   Errors are reported through a host-owned `motion_error` the plugin writes into.
 *
 * ----------------------------------------------------------------------------------------------
 * Two ways to write a plugin
 *   1. Entry plugins export exactly one symbol, `motion_plugin_entry`, which returns a static
 *      motion_plugin_v1 (a vtable). Plans arrive as JSON. Optional capabilities are reached through
 *      get_extension (MOTION_EXTENSION_FRAMES, MOTION_EXTENSION_DEVICE_MOTION).
 *   2. Declarative C plugins export plain functions that their manifest names; the host validates each
 *      plan against the manifest and calls the plan function with the plan's fields as typed C
 *      arguments through libffi. No JSON is parsed in C. See "Declarative C performers" below.
 *   The manifest (manifests/<name>.json) describes the plugin either way; the host reads it before
 *   it loads the library, and validates every plan against it before a plugin sees the plan.
 *
 * ----------------------------------------------------------------------------------------------
 * Life cycle of an entry plugin, as seen by the plugin
 *   1. motion_plugin_entry(host_abi_version, host)       once per process, scheduler thread
 *   2. plugin->get_extension(id)                          any time after 1, any thread
 *   3. plugin->create_performer(class, target, ctx, err)  once per (scheduler, target, class)
 *   4. plugin->add_plan / add_named_plan / remove_named_plan, frames update, device-motion receive,
 *      interleaved, all on the scheduler thread
 *   5. plugin->destroy_performer(performer)               when the performer's scheduler goes away
 *   The library is never unloaded (dlclose is never called), so static data lives for the process.
 *
 * ----------------------------------------------------------------------------------------------
 * Worked example: a complete entry plugin in C with one class, "Setter", and one plan type,
 * "Set" ({"type":"Set","property":"opacity","value":0.5}); it is Examples/Plugins/Setter/Setter.c. The
 * host has validated the plan against the manifest before add_plan sees it, and reads its fields for the
 * plugin (plan_string, plan_number), so the plugin parses no JSON.
 *
 *   #include <motion_plugin.h>
 *   #include <stdlib.h>
 *   #include <string.h>
 *
 *   static const motion_host_v1 *g_host;
 *   typedef struct setter { motion_host_context *ctx; } setter;
 *
 *   static motion_performer *create(const char *class_name, const char *target,
 *                                   motion_host_context *ctx, motion_error *error) {
 *       (void)target;
 *       if (strcmp(class_name, "Setter") != 0) {
 *           motion_error_set(error, MOTION_ERR_UNKNOWN_CLASS, "org.example.setter has no class of that name");
 *           return NULL;
 *       }
 *       setter *s = calloc(1, sizeof *s);
 *       if (s == NULL) { motion_error_set(error, MOTION_ERR_INTERNAL, "out of memory"); return NULL; }
 *       s->ctx = ctx;
 *       return (motion_performer *)s;
 *   }
 *   static void destroy(motion_performer *p) { free(p); }
 *   static motion_status add(motion_performer *p, const char *json, size_t length, motion_error *error) {
 *       setter *s = (setter *)p;
 *       char property[128]; double value;
 *       if (g_host->plan_string(json, length, "property", property, sizeof property, NULL) != MOTION_OK ||
 *           g_host->plan_number(json, length, "value", &value) != MOTION_OK) {
 *           motion_error_set(error, MOTION_ERR_INVALID_PLAN, "Set needs \"property\" and \"value\"");
 *           return MOTION_ERR_INVALID_PLAN;
 *       }
 *       motion_property_id id = g_host->property_id(s->ctx, property);
 *       if (id < 0) { motion_error_set(error, id, "cannot intern the property"); return id; }
 *       return g_host->set_property(s->ctx, id, &value, 1);
 *   }
 *   static motion_status add_named(motion_performer *p, const char *name, const char *json,
 *                                  size_t length, motion_error *error) {
 *       (void)name; return add(p, json, length, error);
 *   }
 *   static motion_status remove_named(motion_performer *p, const char *name, motion_error *error) {
 *       (void)p; (void)name; (void)error; return MOTION_OK;
 *   }
 *   static const void *get_extension(const char *id) { (void)id; return NULL; }
 *
 *   static const motion_plugin_v1 g_plugin = {
 *       sizeof(motion_plugin_v1), MOTION_ABI_VERSION, "org.example.setter",
 *       create, destroy, add, add_named, remove_named, get_extension,
 *   };
 *
 *   MOTION_PLUGIN_EXPORT const motion_plugin_v1 *motion_plugin_entry(uint32_t host_abi_version,
 *                                                                     const motion_host_v1 *host) {
 *       // ABI 1.0's functions are all it calls, so a 1.0 host will do; another major is refused, logged.
 *       if (!motion_plugin_accepts_host(host_abi_version, host, MOTION_HOST_SIZE_THROUGH(plan_value_json),
 *                                       "org.example.setter"))
 *           return NULL;
 *       g_host = host;
 *       return &g_plugin;
 *   }
 *
 * Its manifest (Examples/Plugins/setter.json):
 *   {"manifestVersion":1, "id":"org.example.setter", "name":"Setter", "version":"1.0.0",
 *    "abiVersion":"1.0", "library":"libSetter.so", "summary":"Sets a property.",
 *    "performers":[{"class":"Setter", "interface":"entry", "capabilities":[],
 *      "plans":[{"type":"Set", "summary":"Sets one property to a value.",
 *                "fields":[{"name":"property","type":"property","required":true},
 *                          {"name":"value","type":"number","required":true}]}]}]}
 */
#ifndef MOTION_PLUGIN_H
#define MOTION_PLUGIN_H

#include "motion/core.h"
#include "motion/host.h"
#include "motion/plugin.h"
#include "motion/entry.h"
#include "motion/frames.h"
#include "motion/device-motion.h"
#include "motion/log.h"
#include "motion/slots.h"
#include "motion/plans.h"
#include "motion/declarative.h"

#endif /* MOTION_PLUGIN_H */
