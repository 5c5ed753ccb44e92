// See include/cmotionhost.h: why these few calls are in C.
#define _GNU_SOURCE
#include "cmotionhost.h"

#include <dlfcn.h>
#include <errno.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const int all_seals = F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL;

cmotionhost_symbol_status cmotionhost_own_function(void *handle, const char *name, void **address,
                                                   const char **defined_in) {
    *address = NULL;
    *defined_in = NULL;
    dlerror();
    void *found = dlsym(handle, name);
    if (found == NULL) return CMOTIONHOST_SYMBOL_NOT_FOUND;
    *address = found;

    struct link_map *own = NULL;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &own) != 0 || own == NULL) return CMOTIONHOST_SYMBOL_NOT_FOUND;
    Dl_info info;
    struct link_map *holder = NULL;
    if (dladdr1(found, &info, (void **)&holder, RTLD_DL_LINKMAP) == 0 || holder == NULL) {
        // No loaded object holds the address (an absolute symbol): not code of this library.
        return CMOTIONHOST_SYMBOL_ELSEWHERE;
    }
    if (holder != own) {
        *defined_in = info.dli_fname;
        return CMOTIONHOST_SYMBOL_ELSEWHERE;
    }
    const ElfW(Sym) *symbol = NULL;
    if (dladdr1(found, &info, (void **)&symbol, RTLD_DL_SYMENT) == 0 || symbol == NULL) {
        return CMOTIONHOST_SYMBOL_NOT_A_FUNCTION;
    }
    int type = ELF64_ST_TYPE(symbol->st_info); // the same macro as ELF32_ST_TYPE
    if (type != STT_FUNC && type != STT_GNU_IFUNC) return CMOTIONHOST_SYMBOL_NOT_A_FUNCTION;
    return CMOTIONHOST_SYMBOL_OWN;
}

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U /* Linux 6.3: executable; needed where vm.memfd_noexec makes memfds non-executable */
#endif

int cmotionhost_memfd_create(const char *name) {
    int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
    if (fd < 0 && errno == EINVAL) fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING); /* before 6.3 */
    return fd;
}

int cmotionhost_seal(int fd) {
    if (fcntl(fd, F_ADD_SEALS, all_seals) != 0) return -1;
    return cmotionhost_is_sealed(fd) ? 0 : -1;
}

int cmotionhost_is_sealed(int fd) {
    int seals = fcntl(fd, F_GET_SEALS);
    return seals >= 0 && (seals & all_seals) == all_seals;
}

void cmotionhost_close_descriptors_from(unsigned int first) {
    if (close_range(first, ~0U, 0) == 0) return;
    struct rlimit limit;
    unsigned int last = getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < 1u << 20 ? (unsigned int)limit.rlim_cur : 1u << 16;
    for (unsigned int fd = first; fd < last; fd++) close((int)fd);
}

static uint64_t monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* The ring's layout (see cmotionhost.h): each counter on a cache line of its own. */
struct cmotionhost_ring {
    _Alignas(64) uint64_t head;          /**< Bytes written so far (the producer's). */
    uint64_t wakes;                      /**< Futex wakes of a sleeping consumer (the producer's count). */
    uint64_t woken_at_ns;                /**< CLOCK_MONOTONIC just before the producer's last futex wake. */
    int32_t producer_cpu;                /**< 1 + the CPU the producer last wrote from (sched_getcpu); 0: none yet. */
    _Alignas(64) uint64_t tail;          /**< Bytes consumed so far (the consumer's). */
    cmotionhost_ring_statistics reads;   /**< The consumer's counts (wakes unused here). */
    _Alignas(64) uint32_t data_sequence; /**< Futex: bumped by the producer after it publishes bytes. */
    uint32_t consumer_waiting;           /**< 1 while the consumer sleeps on data_sequence. */
    _Alignas(64) uint32_t space_sequence; /**< Futex: bumped by the consumer after it frees space. */
    uint32_t producer_waiting;           /**< 1 while the producer sleeps on space_sequence. */
    _Alignas(64) unsigned char data[];
};

size_t cmotionhost_ring_header_size(void) { return offsetof(cmotionhost_ring, data); }

/* Sleeps while *word == expected, at most timeout_ns (a futex shared between processes: not FUTEX_PRIVATE). */
static void futex_wait(uint32_t *word, uint32_t expected, uint64_t timeout_ns) {
    struct timespec timeout = {(time_t)(timeout_ns / 1000000000u), (long)(timeout_ns % 1000000000u)};
    syscall(SYS_futex, word, FUTEX_WAIT, expected, &timeout, NULL, 0);
}

static void futex_wake(uint32_t *word) { syscall(SYS_futex, word, FUTEX_WAKE, 1, NULL, NULL, 0); }

/* Spins (pause) up to spin_ns until done(ring) says so; 0 ns: looks once. No sched_yield: on a busy machine a
 * yield gives the core to other processes until this one's turn comes round again (Documentation/PITFALLS.md),
 * and a spin that does not end soon ends in the futex, whose wake puts the sleeper back at once. */
static int spin_until(cmotionhost_ring *ring, size_t capacity, int (*done)(cmotionhost_ring *, size_t), uint64_t spin_ns) {
    if (done(ring, capacity)) return 1;
    if (spin_ns == 0) return 0;
    uint64_t start = monotonic_ns();
    for (unsigned spins = 1;; spins++) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        if (done(ring, capacity)) return 1;
        if (spins % 16 == 0 && monotonic_ns() - start >= spin_ns) return 0;
    }
}

static int has_data(cmotionhost_ring *ring, size_t capacity) {
    (void)capacity;
    return __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE) != __atomic_load_n(&ring->tail, __ATOMIC_RELAXED);
}

static int has_space(cmotionhost_ring *ring, size_t capacity) {
    return __atomic_load_n(&ring->head, __ATOMIC_RELAXED) - __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE) < capacity;
}

size_t cmotionhost_ring_write(cmotionhost_ring *ring, size_t capacity, const void *bytes, size_t count, uint64_t spin_ns,
                              int64_t timeout_ns) {
    const unsigned char *from = bytes;
    size_t written = 0;
    uint64_t start = monotonic_ns();
    while (written < count) {
        if (!spin_until(ring, capacity, has_space, spin_ns)) {
            if (timeout_ns >= 0 && monotonic_ns() - start >= (uint64_t)timeout_ns) break;
            __atomic_store_n(&ring->producer_waiting, 1, __ATOMIC_SEQ_CST);
            uint32_t sequence = __atomic_load_n(&ring->space_sequence, __ATOMIC_SEQ_CST);
            if (!has_space(ring, capacity)) futex_wait(&ring->space_sequence, sequence, 10000000u);
            __atomic_store_n(&ring->producer_waiting, 0, __ATOMIC_SEQ_CST);
            continue;
        }
        uint64_t head = __atomic_load_n(&ring->head, __ATOMIC_RELAXED);
        uint64_t tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
        size_t space = capacity - (size_t)(head - tail);
        size_t n = count - written < space ? count - written : space;
        size_t at = (size_t)(head % capacity);
        size_t first = n < capacity - at ? n : capacity - at;
        memcpy(ring->data + at, from + written, first);
        memcpy(ring->data, from + written + first, n - first);
        __atomic_store_n(&ring->producer_cpu, sched_getcpu() + 1, __ATOMIC_RELAXED);
        __atomic_store_n(&ring->head, head + n, __ATOMIC_RELEASE);
        __atomic_fetch_add(&ring->data_sequence, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&ring->consumer_waiting, __ATOMIC_SEQ_CST)) {
            __atomic_store_n(&ring->woken_at_ns, monotonic_ns(), __ATOMIC_RELAXED);
            futex_wake(&ring->data_sequence);
            __atomic_store_n(&ring->wakes, ring->wakes + 1, __ATOMIC_RELAXED);
        }
        written += n;
    }
    return written;
}

/* The histogram bucket of a duration (cmotionhost_ring_statistics.wait_histogram). */
static unsigned bucket(uint64_t ns) {
    uint64_t us = ns / 1000u;
    unsigned i = us == 0 ? 0 : 64 - (unsigned)__builtin_clzll(us);
    return i < CMOTIONHOST_RING_BUCKETS ? i : CMOTIONHOST_RING_BUCKETS - 1;
}

/* How long this thread's next ring read spins before it sleeps, in ns (cmotionhost_ring_next_spin_ns). Per thread:
 * each of the host's scheduler threads and the sandbox's serving thread waits alone. */
static _Thread_local uint64_t read_spin_ns = 2000;

uint64_t cmotionhost_ring_next_spin_ns(uint64_t budget, uint64_t waited_ns, uint64_t limit_ns) {
    if (waited_ns > limit_ns) return budget / 2;
    uint64_t needed = 2 * waited_ns + 1000u;
    uint64_t next = needed > budget ? needed : budget - (budget - needed) / 8;
    return next < limit_ns ? next : limit_ns;
}

size_t cmotionhost_ring_read(cmotionhost_ring *ring, size_t capacity, void *buffer, size_t max, uint64_t spin_ns,
                             uint64_t wait_ns) {
    if (max == 0) return 0;
    cmotionhost_ring_statistics *counts = &ring->reads;
    if (!has_data(ring, capacity)) {
        uint64_t start = monotonic_ns();
        uint64_t budget = read_spin_ns < spin_ns ? read_spin_ns : spin_ns;
        /* A producer that last wrote from this CPU is most likely waiting for it (it was preempted by this thread's
         * wake-up, or is queued behind it): spinning here would only keep it off, so sleep at once and let it run. */
        int32_t producer = __atomic_load_n(&ring->producer_cpu, __ATOMIC_RELAXED);
        if (producer != 0 && producer == sched_getcpu() + 1) {
            budget = 0;
            counts->same_cpu++;
        }
        uint64_t waited;
        if (spin_until(ring, capacity, has_data, budget)) {
            waited = monotonic_ns() - start;
            counts->spun++;
            counts->spin_ns += waited;
        } else {
            uint64_t slept = monotonic_ns();
            __atomic_store_n(&ring->consumer_waiting, 1, __ATOMIC_SEQ_CST);
            uint32_t sequence = __atomic_load_n(&ring->data_sequence, __ATOMIC_SEQ_CST);
            if (!has_data(ring, capacity)) futex_wait(&ring->data_sequence, sequence, wait_ns);
            __atomic_store_n(&ring->consumer_waiting, 0, __ATOMIC_SEQ_CST);
            uint64_t now = monotonic_ns();
            uint64_t woken_at = __atomic_load_n(&ring->woken_at_ns, __ATOMIC_RELAXED);
            if (woken_at >= slept && woken_at <= now) counts->wake_histogram[bucket(now - woken_at)]++;
            waited = now - start;
            counts->slept++;
            counts->spin_ns += slept - start;
            counts->sleep_ns += now - slept;
        }
        counts->wait_histogram[bucket(waited)]++;
        read_spin_ns = cmotionhost_ring_next_spin_ns(read_spin_ns, waited, spin_ns);
        if (!has_data(ring, capacity)) return 0;
    } else {
        counts->ready++;
    }
    counts->reads++;
    uint64_t head = __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE);
    uint64_t tail = __atomic_load_n(&ring->tail, __ATOMIC_RELAXED);
    size_t available = (size_t)(head - tail);
    size_t n = available < max ? available : max;
    size_t at = (size_t)(tail % capacity);
    size_t first = n < capacity - at ? n : capacity - at;
    memcpy(buffer, ring->data + at, first);
    memcpy((unsigned char *)buffer + first, ring->data, n - first);
    __atomic_store_n(&ring->tail, tail + n, __ATOMIC_RELEASE);
    __atomic_fetch_add(&ring->space_sequence, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&ring->producer_waiting, __ATOMIC_SEQ_CST)) futex_wake(&ring->space_sequence);
    return n;
}

void cmotionhost_ring_get_statistics(const cmotionhost_ring *ring, cmotionhost_ring_statistics *out) {
    *out = ring->reads;
    out->wakes = __atomic_load_n(&ring->wakes, __ATOMIC_RELAXED);
}

void cmotionhost_ring_interrupt(cmotionhost_ring *ring) {
    __atomic_fetch_add(&ring->data_sequence, 1, __ATOMIC_SEQ_CST);
    futex_wake(&ring->data_sequence);
}
