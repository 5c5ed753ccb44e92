/*
 * motion_sdk_thread.h — the Swift SDK's cheap test for "am I on this performer's scheduler thread?".
 * Internal to MotionPluginKit (not part of the plugin ABI, motion_plugin.h).
 */
#ifndef MOTION_SDK_THREAD_H
#define MOTION_SDK_THREAD_H

#include <pthread.h>
#include <stdint.h>

/**
 * [thread-safe] A value that identifies the calling thread among the live threads of the process: the
 * same on every call from one thread, different on two threads alive at once. Not a pthread_t; compare
 * it only with another result of this function.
 *
 * It is the thread pointer, read with one instruction and no call (the property write path calls this
 * once per write, where a call to pthread_self measured about 1 ns): the ELF TLS ABI makes %fs:0 on
 * x86-64 hold the thread pointer itself (TLS variant II, "the TCB's first word points to itself"), and
 * TPIDR_EL0 is the thread pointer on AArch64 (variant I). Elsewhere, pthread_self().
 */
static inline uintptr_t motion_sdk_thread_identity(void) {
#if defined(__x86_64__) && defined(__linux__)
    uintptr_t self;
    __asm__("movq %%fs:0, %0" : "=r"(self));
    return self;
#elif defined(__aarch64__) && defined(__linux__)
    uintptr_t self;
    __asm__("mrs %0, tpidr_el0" : "=r"(self));
    return self;
#else
    return (uintptr_t)pthread_self();
#endif
}

#endif
