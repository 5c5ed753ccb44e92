/*
 * motion/slots.h — the host's property-slots extension (MOTION_HOST_EXTENSION_PROPERTY_SLOTS): property writes
 * addressed by slot and checked once per batch.
 * Part of the motion plugin ABI; include <motion_plugin.h>, which includes every part and says how they fit.
 */
#ifndef MOTION_ABI_SLOTS_H
#define MOTION_ABI_SLOTS_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================== */
/* Host extension: property slots (since ABI 1.3)                                                 */
/* ============================================================================================== */

/** Id of the host's property-slots extension; motion_host_v1.get_extension returns a
 *  `const motion_property_slots_v1 *`, or NULL from a host older than ABI 1.3 (use set_properties there). */
#define MOTION_HOST_EXTENSION_PROPERTY_SLOTS "motion.property-slots/1"

/**
 * Where one (target, property) pair keeps its value in the host's property store: an index (>= 0) into the
 * store of the scene the performer's scheduler runs, stable for the run. Resolve it once (when a plan
 * arrives) and write through it every frame. A negative value returned where a slot is expected is a
 * motion_status.
 */
typedef int32_t motion_property_slot;

/** One write of a set_slots batch: a slot, and how many of the batch's values are its. */
typedef struct motion_slot_write {
    motion_property_slot slot; /**< From slot(), through a context of the batch's scene. */
    uint32_t count;            /**< Components, 1...MOTION_PROPERTY_MAX_COMPONENTS. */
} motion_slot_write;

/** Property writes by slot. */
typedef struct motion_property_slots_v1 {
    uint32_t struct_size; /**< sizeof(motion_property_slots_v1) at the host's build. */

    /**
     * [scheduler-thread] The slot of `property` (an id from property_id) of the performer's target. Making a
     * slot does not give the target a value: get_property still answers MOTION_ERR_UNKNOWN_PROPERTY until a
     * write. Returns, as a negative slot: MOTION_ERR_INVALID_ARGUMENT (ctx NULL), MOTION_ERR_SCHEDULER_GONE
     * (the performer was destroyed), MOTION_ERR_WRONG_THREAD, MOTION_ERR_UNKNOWN_PROPERTY (id not interned).
     */
    motion_property_slot (*slot)(motion_host_context *ctx, motion_property_id property);

    /**
     * [scheduler-thread] Applies `count` writes in order, each as set_property would (a value different from
     * the current one is recorded as a change for this frame's timeline), checked once for the whole batch.
     *   ctx: a context of the scene whose slots these are. The slots of the performers of one update_many
     *     call are all of one scene (this host calls update_many with performers of one scheduler), so a
     *     plugin may hand their writes over under any one of their contexts.
     *   writes: caller-owned array of `count` writes, valid during the call.
     *   values: caller-owned, the writes' components one after another (write 0's count of them, then
     *     write 1's ...), `value_count` doubles in all.
     *   failed_index_out: caller-owned, may be NULL; written only when the result is not MOTION_OK.
     * The checks, in this order, come before any write is applied; when one fails nothing is applied:
     *   MOTION_ERR_INVALID_ARGUMENT: ctx NULL; writes or values NULL with count > 0; count or value_count of
     *     2^63 or more.
     *   MOTION_ERR_SCHEDULER_GONE: the performer of ctx was destroyed.
     *   MOTION_ERR_WRONG_THREAD: not called on ctx's scheduler thread.
     *   Then each write, in index order, its slot before its count (the first bad write is the one named):
     *   MOTION_ERR_UNKNOWN_PROPERTY, *failed_index_out = the write's index: a slot the scene does not have
     *     (negative, or not below the number of slots the scene's store has made so far, by slot() or by
     *     the host itself).
     *   MOTION_ERR_INVALID_ARGUMENT, *failed_index_out = the write's index: a count outside
     *     1...MOTION_PROPERTY_MAX_COMPONENTS, or the counts up to it sum to more than value_count.
     *   Then the whole batch: MOTION_ERR_INVALID_ARGUMENT with *failed_index_out = count: the counts sum to
     *     less than value_count; with *failed_index_out = the index of the first non-finite value in
     *     `values`: a value that is NaN or infinite.
     * The host checks a slot's range, not whose it is: a slot resolved through another performer's context
     * of the same scene writes that performer's target.
     * Returns MOTION_OK when every write was applied (also for count 0 with value_count 0).
     * A plugin that queues writes for set_slots follows set_properties' ordering rule (motion/host.h): it hands
     * the queue over before any other host call of its own and before returning from the plugin function in
     * which the writes were made, so that the host sees writes and reads in the order the plugin made them.
     */
    motion_status (*set_slots)(motion_host_context *ctx, const motion_slot_write *writes, size_t count,
                               const double *values, size_t value_count, size_t *failed_index_out);
} motion_property_slots_v1;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MOTION_ABI_SLOTS_H */
