/*
 * CMotionHostSupport: the host's last words when a plugin fails it. Why C: a signal handler must use only
 * async-signal-safe calls (no allocation, no locks, no Swift runtime), and the per-thread call mark must be
 * a real thread-local variable that the handler can read on the crashing thread (`_Thread_local`, which
 * Swift cannot declare).
 *
 * With it, cmotionhost.h: the GNU extensions of glibc the trust checks need (dladdr1, dlinfo, memfd_create,
 * file seals), which Swift's Glibc module does not import.
 *
 * Three parts here, each used from Swift through MotionHost's PluginCrashReport and motion-host's run command:
 * - call marks: every call into a plugin is marked, on the calling thread, with the plugin's name, the
 *   call ("update", "add_plan", ...) and the frame; a sequence number changes at every mark and unmark,
 *   so a watchdog thread can tell a call that does not return;
 * - loaded libraries: the address ranges of every plugin library, recorded when it is loaded, so a crash
 *   on a thread with no mark (a plugin's own thread) is blamed on the library its program counter, its
 *   faulting address or its stack points into (dladdr is not async-signal-safe; a table lookup is);
 * - the timeline: the descriptor and unwritten buffer of the run's timeline, so a fatal signal or the
 *   watchdog writes the buffered bytes and a last JSON Lines `error` line before the process ends.
 *
 * Symbols carry the module's prefix, cmotionhost_.
 */
#ifndef CMOTIONHOSTSUPPORT_H
#define CMOTIONHOSTSUPPORT_H

#include "cmotionhost.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MARK: Call marks */

/** The call into a plugin in progress on one thread. Written only by its thread; read by that thread's
 * signal handler and (through cmotionhost_watched_mark) by the watchdog thread, with atomic accesses. */
typedef struct cmotionhost_call_mark {
    const char *plugin; /**< "id (manifest path)", a C string that lives for the process; NULL: no call. */
    const char *call;   /**< A static C string naming the C function called: "update", "add_plan", ... */
    int64_t frame;      /**< The scheduler's frame index, or -1 when the call is not part of a frame. */
    uint64_t sequence;  /**< Changes at every mark and unmark. */
} cmotionhost_call_mark;

/** What cmotionhost_mark_call returns and cmotionhost_unmark_call restores (calls nest: a plugin's
 * emission may call another plugin). */
typedef struct cmotionhost_saved_mark {
    const char *plugin;
    const char *call;
    int64_t frame;
} cmotionhost_saved_mark;

/** This thread's mark. Use the functions below, not the variable. */
extern _Thread_local cmotionhost_call_mark cmotionhost_thread_mark;

/** Marks this thread as calling `call` of `plugin` at `frame` (-1: none); returns the outer mark. */
static inline cmotionhost_saved_mark cmotionhost_mark_call(const char *plugin, const char *call, int64_t frame) {
    cmotionhost_call_mark *mark = &cmotionhost_thread_mark;
    cmotionhost_saved_mark outer = {mark->plugin, mark->call, mark->frame};
    __atomic_store_n(&mark->call, call, __ATOMIC_RELAXED);
    __atomic_store_n(&mark->frame, frame, __ATOMIC_RELAXED);
    __atomic_store_n(&mark->plugin, plugin, __ATOMIC_RELAXED);
    __atomic_store_n(&mark->sequence, mark->sequence + 1, __ATOMIC_RELEASE);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    return outer;
}

/** Restores the mark cmotionhost_mark_call returned. */
static inline void cmotionhost_unmark_call(cmotionhost_saved_mark outer) {
    cmotionhost_call_mark *mark = &cmotionhost_thread_mark;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&mark->plugin, outer.plugin, __ATOMIC_RELAXED);
    __atomic_store_n(&mark->call, outer.call, __ATOMIC_RELAXED);
    __atomic_store_n(&mark->frame, outer.frame, __ATOMIC_RELAXED);
    __atomic_store_n(&mark->sequence, mark->sequence + 1, __ATOMIC_RELEASE);
}

/** The plugin this thread is calling, or NULL. */
static inline const char *cmotionhost_current_plugin(void) {
    return __atomic_load_n(&cmotionhost_thread_mark.plugin, __ATOMIC_RELAXED);
}

/** The call this thread is in, or NULL. */
static inline const char *cmotionhost_current_call(void) {
    return __atomic_load_n(&cmotionhost_thread_mark.call, __ATOMIC_RELAXED);
}

/** The frame of the call this thread is in, or -1. */
static inline int64_t cmotionhost_current_frame(void) {
    return __atomic_load_n(&cmotionhost_thread_mark.frame, __ATOMIC_RELAXED);
}

/* MARK: Log routes */

/** This thread's log route (MotionHost's PluginLogRoute, unretained), or NULL. Why here: a `_Thread_local` is read
 * and written with no call, where pthread_getspecific and two pthread_setspecific cost about 70 instructions per
 * call into a plugin. Use the functions below, not the variable. */
extern _Thread_local void *cmotionhost_thread_log_route;

/** Makes `route` this thread's log route; returns the one it replaces (calls nest). */
static inline void *cmotionhost_exchange_log_route(void *route) {
    void *outer = cmotionhost_thread_log_route;
    cmotionhost_thread_log_route = route;
    return outer;
}

/** This thread's log route, or NULL. */
static inline void *cmotionhost_current_log_route(void) { return cmotionhost_thread_log_route; }

/* MARK: Plans in flight */

/** This thread's stack of plans in flight (MotionHost's PlansInFlight.ThreadStack, owned by a pthread key whose
 * destructor releases it at the thread's end and clears this), or NULL. Why here: read with no call, where
 * pthread_getspecific (and the lazy key's swift_once) cost about 60 instructions per plan handed over. */
extern _Thread_local void *cmotionhost_thread_plans_stack;

/** This thread's stack of plans in flight, or NULL. */
static inline void *cmotionhost_current_plans_stack(void) { return cmotionhost_thread_plans_stack; }

/** Sets this thread's stack of plans in flight (NULL: none). */
static inline void cmotionhost_set_plans_stack(void *stack) { cmotionhost_thread_plans_stack = stack; }

/* MARK: Fatal signals */

/** Installs the handler for SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT and SIGTRAP (SA_SIGINFO, on an
 * alternate stack for the calling thread, so a stack overflow is reported too). The handler writes the
 * timeline's last words (when one is attached) and one `error:` line on standard error naming the plugin,
 * the call and the frame, then restores the default action and raises the signal again, so a parent
 * process sees the signal. Call once, early, on the main thread. */
void cmotionhost_install_crash_handler(void);

/** Records the address range of the loaded library that holds `address` (any code or data address in
 * it, such as its entry function), naming it `plugin` (a C string that lives for the process). Uses
 * dl_iterate_phdr; call at load time, never from a signal handler. Returns false when no loaded object
 * holds the address or the table (128 libraries) is full. A library already recorded is not added again. */
bool cmotionhost_record_library(const void *address, const char *plugin);

/** The plugin whose recorded library holds `address`, or NULL. Async-signal-safe. */
const char *cmotionhost_library_plugin(uintptr_t address);

/* MARK: The timeline */

/** Attaches the run's timeline: its descriptor, the buffer of bytes not yet written (the caller owns it;
 * it must not move while attached) and whether it takes a JSON Lines `error` line. The calling thread
 * becomes "the scheduler's thread" for messages. */
void cmotionhost_timeline_attach(int fd, const unsigned char *buffer, bool takesErrorLine);

/** Detaches the timeline (the last words no longer touch it). */
void cmotionhost_timeline_detach(void);

/** Publishes how many bytes of the attached buffer are not yet written. */
void cmotionhost_timeline_set_length(size_t length);

/** Publishes the frame the timeline is at and its JSON stamp, `,"time":T,"frame":F` (at most 95 bytes), the
 * one every timeline line carries. */
void cmotionhost_timeline_set_point(int64_t frame, const char *stamp);

/** Writes the last words now, from an ordinary thread: the buffered bytes, then the error line
 * `{"error":"<message>"<stamp>}` when the timeline takes one; `message` is JSON-escaped here. Only the
 * first caller of this or of a fatal signal writes; returns false for the others. */
bool cmotionhost_write_last_words(const char *message);

/* MARK: Interruption */

/** Installs handlers for SIGINT and SIGTERM: the first sets the flag cmotionhost_interruption returns;
 * a second writes the buffered timeline bytes and ends the process with the signal. */
void cmotionhost_install_interrupt_handler(void);

/* Unblocks SIGINT and SIGTERM on the calling thread: a process can inherit them blocked from the thread of its
 * parent that started it, and then they would stay pending. (Called by the interrupt handler's installer; serve,
 * which catches them on a dispatch source, calls it first too.) */
void cmotionhost_unblock_interrupts(void);

/** The first SIGINT or SIGTERM received since cmotionhost_install_interrupt_handler, or 0. */
int cmotionhost_interruption(void);

/* MARK: Watchdog */

/** Starts a thread that watches the calling thread's call mark: when one call into a plugin has not
 * returned after `seconds`, it writes `error: plugin P did not return from CALL at frame F within
 * <description> ...` on standard error, the timeline's last words, and ends the process with exit status 1
 * (`_exit`). `seconds` must be > 0; `description` says it for people ("1 s", at most 31 bytes). It checks
 * the mark every seconds/10 (between 1 ms and 100 ms), so it fires within about seconds + 100 ms. The
 * thread runs until the process ends; call at most once. Returns false when the thread cannot be started. */
bool cmotionhost_start_watchdog(double seconds, const char *description);

#ifdef __cplusplus
}
#endif
#endif
