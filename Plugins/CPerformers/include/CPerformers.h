/*
 * CPerformers — performers in plain C through the entry/vtable path of motion_plugin.h.
 * The library exports one symbol, motion_plugin_entry; this header documents its plans.
 * Manifest: manifests/cperformers.json (plugin id "org.motion.cperformers").
 *
 *   class Nudger (capabilities: frames, tokens)
 *     plan Nudge {"property": string, "by": vector (1-4), "duration": number s (default 0.25, >= 0)}
 *       Moves the property from its value at the first frame by `by`, linearly over `duration`,
 *       holding an is-active token until every nudge of the performer is done.
 *   class Sequencer (capabilities: composition)
 *     plan Sequence {"transactions": array of transactions}
 *       Emits each transaction ({"operations": [...]}) in order; stops at the first that fails and
 *       reports which one.
 */
#ifndef CPERFORMERS_H
#define CPERFORMERS_H

#include <motion_plugin.h>

#endif
