// C shims for MotionHost: GNU extensions of glibc that Swift's Glibc module does not import
// (`dladdr1`, `dlinfo`, `memfd_create` and the file-sealing `fcntl` commands need `_GNU_SOURCE`, which a
// header included through a Clang module cannot switch on, so the calls live in cmotionhost.c).
#ifndef CMOTIONHOST_H
#define CMOTIONHOST_H

#include <stddef.h>
#include <stdint.h>

/// What `cmotionhost_own_function` found.
typedef enum cmotionhost_symbol_status {
    /// The object behind the handle defines the symbol itself, as a function.
    CMOTIONHOST_SYMBOL_OWN = 0,
    /// Neither the object nor its dependencies define the symbol.
    CMOTIONHOST_SYMBOL_NOT_FOUND = 1,
    /// A dependency of the object defines it (e.g. libc's `system`); `defined_in` names that object.
    CMOTIONHOST_SYMBOL_ELSEWHERE = 2,
    /// The object defines the symbol, but not as a function (data, TLS, ...).
    CMOTIONHOST_SYMBOL_NOT_A_FUNCTION = 3,
} cmotionhost_symbol_status;

/// Looks `name` up in the library behind `handle` and checks that the library itself defines it as a
/// function. `dlsym(3)` alone also searches the library's dependencies; this compares the link map of the
/// object that holds the address (`dladdr1(3)` with `RTLD_DL_LINKMAP`) with the handle's own
/// (`dlinfo(3)` with `RTLD_DI_LINKMAP`), and the symbol's ELF type (`RTLD_DL_SYMENT`: `STT_FUNC` or
/// `STT_GNU_IFUNC`).
/// @param address set to the symbol's address when found (any status but NOT_FOUND), else NULL.
/// @param defined_in set, for ELSEWHERE, to the path of the object that defines it (owned by the dynamic
///        linker; valid while that object stays loaded), else NULL.
cmotionhost_symbol_status cmotionhost_own_function(void *handle, const char *name, void **address,
                                                   const char **defined_in);

/// `memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC)`: an anonymous memory file that can be
/// sealed and mapped executable (MFD_EXEC, Linux 6.3, matters where `vm.memfd_noexec` is 1; a kernel that does
/// not know it is asked again without it).
/// @return the descriptor, or -1 with errno set.
int cmotionhost_memfd_create(const char *name);

/// Seals a memory file against every change: `F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL`
/// (`fcntl(F_ADD_SEALS)`), then reads the seals back (`F_GET_SEALS`).
/// @return 0 when all four seals are in place, or -1 with errno set.
int cmotionhost_seal(int fd);

/// Whether the four seals of `cmotionhost_seal` are all in place on `fd` (`fcntl(F_GET_SEALS)`).
int cmotionhost_is_sealed(int fd);

/// `close_range(first, ~0U, 0)`: closes every descriptor from `first` up (a plugin's sandbox keeps only those
/// it was given). Falls back to closing them one by one up to `RLIMIT_NOFILE` on a kernel without it (< 5.9).
void cmotionhost_close_descriptors_from(unsigned int first);

/// One direction of a byte stream between two processes through memory both map (a plugin's sandbox and the
/// host): a single-producer, single-consumer ring of `capacity` bytes after this header. The waiting side spins
/// briefly, then sleeps on a futex in the shared memory, which the other side wakes; so a reply that comes at once
/// costs no system call, and one that comes later one wake-up. Zero-filled memory is an empty ring.
typedef struct cmotionhost_ring cmotionhost_ring;

/// The buckets of a ring's wait histograms (`cmotionhost_ring_statistics`).
#define CMOTIONHOST_RING_BUCKETS 16

/// How a ring's reads went, counted by its consumer (and `wakes` by its producer) since the ring was made: for a
/// benchmark to say where a round trip's time goes. Read while the ring is in use, the counts may be a little behind.
typedef struct cmotionhost_ring_statistics {
    uint64_t reads;    ///< Reads that returned bytes.
    uint64_t ready;    ///< Of them, those that found bytes at the first look (no wait).
    uint64_t spun;     ///< Waits that ended while spinning.
    uint64_t slept;    ///< Waits that went on to sleep on the futex (after spinning, if at all).
    uint64_t spin_ns;  ///< Nanoseconds spent spinning, in all waits.
    uint64_t sleep_ns; ///< Nanoseconds spent asleep (from going to sleep to waking), in all waits.
    uint64_t wakes;    ///< Futex wakes the producer made for a sleeping consumer (a system call each).
    uint64_t same_cpu; ///< Waits that began with the producer's last write made from the consumer's CPU.
    /// Waits by how long they took (from the first look to bytes seen), `CLOCK_MONOTONIC`: bucket 0 under 1 µs,
    /// bucket i (1...14) from 2^(i-1) to 2^i µs, bucket 15 from 16.384 ms up.
    uint64_t wait_histogram[CMOTIONHOST_RING_BUCKETS];
    /// Sleeps by the time from the producer's futex wake to the woken consumer running again (the wake-up
    /// latency), in the buckets of `wait_histogram`; sleeps that ended by time-out or without a wake are not counted.
    uint64_t wake_histogram[CMOTIONHOST_RING_BUCKETS];
} cmotionhost_ring_statistics;

/// The counts of `ring` (cmotionhost_ring_statistics).
void cmotionhost_ring_get_statistics(const cmotionhost_ring *ring, cmotionhost_ring_statistics *out);

/// The bytes before a ring's data: a ring of capacity C takes `cmotionhost_ring_header_size() + C` bytes.
size_t cmotionhost_ring_header_size(void);

/// Wakes a consumer sleeping in `cmotionhost_ring_read` without giving it bytes (it returns 0 at once): for the
/// host's thread that finds the sandbox gone while the scheduler's thread waits for it.
void cmotionhost_ring_interrupt(cmotionhost_ring *ring);

/// Writes `count` bytes, waiting while the ring is full: spinning `spin_ns`, then sleeping in slices of at most
/// `slice_ns`, for at most `timeout_ns` in all (< 0: no limit).
/// @return the number of bytes written: `count`, or fewer when the time ran out (the consumer stopped reading).
size_t cmotionhost_ring_write(cmotionhost_ring *ring, size_t capacity, const void *bytes, size_t count, uint64_t spin_ns,
                              int64_t timeout_ns);

/// Reads up to `max` bytes that are there, waiting for some: spinning (pause) at most `spin_ns` (as long as this
/// thread's recent waits would have needed, `cmotionhost_ring_next_spin_ns`; and not at all when the producer last
/// wrote from this thread's CPU, where it is then most likely queued behind this thread), then sleeping at most
/// `wait_ns`.
/// @return the number of bytes read; 0 when none came in that time.
size_t cmotionhost_ring_read(cmotionhost_ring *ring, size_t capacity, void *buffer, size_t max, uint64_t spin_ns,
                             uint64_t wait_ns);

/// How long a thread's next ring read spins before it sleeps, in ns, after a wait of `waited_ns` (first look to
/// bytes seen, spinning or asleep) with a spin of `budget` ns, at most `limit_ns`. A wait within the limit sets it to
/// what would have caught the bytes spinning with room to spare (2 × the wait + 1 µs) at once if that is more, and
/// lets it fall an eighth of the way towards that if it is less: the spin stays long while the peer keeps answering
/// within the limit, so a round trip between two awake processes on two cores costs no futex call, even when one
/// wait now and then slept (and took a wake-up on top). Waking a peer that slept on an idle virtual CPU takes tens
/// of µs (the CPU halts, and its wake goes through the hypervisor); a peer that waits long enough for that each
/// time falls asleep for good with a shorter spin, so the limit is above it. A wait beyond the limit (a peer
/// waiting for a core on a busy machine, or a host with nothing to ask) halves it: a side whose spins keep
/// failing soon sleeps at once, and the futex wake puts it back when the peer does run; an idle side stops
/// spinning after one wait of at most the limit.
uint64_t cmotionhost_ring_next_spin_ns(uint64_t budget, uint64_t waited_ns, uint64_t limit_ns);

#endif
