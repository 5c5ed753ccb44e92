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

/// Rings a doorbell in memory shared with another process: one more message was sent (an atomic increment with
/// release order). A plugin's sandbox and the host ring one after each message on their request channel, so that
/// the other side, spinning in `cmotionhost_doorbell_wait`, sees a reply without the wake-up of a blocking read.
void cmotionhost_doorbell_ring(uint64_t *bell);

/// Spins for at most `spin_ns` nanoseconds (CLOCK_MONOTONIC) until the doorbell passes `seen` (acquire loads and the
/// CPU's pause instruction). @return the doorbell's value: still `seen` when the time ran out.
uint64_t cmotionhost_doorbell_wait(const uint64_t *bell, uint64_t seen, uint64_t spin_ns);

#endif
