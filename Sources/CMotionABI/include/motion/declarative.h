/*
 * motion/declarative.h — declarative C performers: plain C functions a manifest names, called through libffi.
 * Part of the motion plugin ABI; include <motion_plugin.h>, which includes every part and says how they fit.
 */
#ifndef MOTION_ABI_DECLARATIVE_H
#define MOTION_ABI_DECLARATIVE_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================== */
/* Declarative C performers                                                                       */
/* ============================================================================================== */
/*
 * A performer class whose manifest entry has "interface": "functions" needs no entry symbol and no JSON
 * parsing. The manifest names plain exported C functions; the host resolves them with dlsym when it
 * loads the library, validates every plan against the manifest, converts its fields to C values and
 * calls the plan's function through libffi (the call interface is prepared once per plan type).
 * All are called on the scheduler thread.
 *
 *   "functions": {"create": "level_create", "destroy": "level_destroy", "update": "level_update"}
 *
 *   create (required):   void *create(const char *target_name, const motion_host_v1 *host,
 *                                     motion_host_context *ctx);
 *       Returns the plugin-owned performer, or NULL to refuse (log why through host->log).
 *       target_name: host-owned, valid during the call. host: valid for the process. ctx: as for
 *       create_performer (valid until destroy returns). Keep host and ctx to set properties,
 *       emit transactions and take tokens.
 *   destroy (required):  void destroy(void *performer);
 *       As destroy_performer.
 *   update (optional):   void update(void *performer, double time, double delta);
 *       As motion_frames_v1.update (time and delta in seconds): called once per frame while the
 *       performer holds at least one is-active token.
 *   plan function, one per plan type, named by the plan's "call":
 *       "call": {"symbol": "level_set", "arguments": [{"field": "level", "type": "double"}, ...]}
 *       int32_t fn(void *performer, <one argument per listed field, in the listed order>);
 *       Returns a motion_status (MOTION_OK, or MOTION_ERR_INVALID_PLAN for a value it rejects).
 *       Argument C types:
 *         "double" -> double                    (JSON number)
 *         "int64"  -> int64_t                   (JSON integer)
 *         "bool"   -> bool (C99 _Bool, passed as a uint8) (JSON boolean)
 *         "string" -> const char * (UTF-8, NUL-terminated, host-owned, valid during the call only)
 *       A field absent from the plan takes its manifest default; a field with neither value nor
 *       default must be "required".
 *
 * Named plans reach a declarative performer's plan function like regular ones (it has no name
 * argument), and removing a named plan calls nothing.
 *
 * Example: manifest "call": {"symbol":"level_set","arguments":[{"field":"property","type":"string"},
 *   {"field":"level","type":"double"},{"field":"steps","type":"int64"},{"field":"clamp","type":"bool"}]}
 *   MOTION_PLUGIN_EXPORT int32_t level_set(void *performer, const char *property, double level,
 *                                          int64_t steps, bool clamp);
 */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MOTION_ABI_DECLARATIVE_H */
