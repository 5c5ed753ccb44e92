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
#include <sched.h>
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

void cmotionhost_doorbell_ring(uint64_t *bell) { __atomic_fetch_add(bell, 1, __ATOMIC_RELEASE); }

static uint64_t monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

uint64_t cmotionhost_doorbell_wait(const uint64_t *bell, uint64_t seen, uint64_t spin_ns) {
    uint64_t value = __atomic_load_n(bell, __ATOMIC_ACQUIRE);
    if (value != seen || spin_ns == 0) return value;
    uint64_t start = monotonic_ns();
    for (unsigned spins = 1;; spins++) {
        /* A short busy spin catches a reply from a process running on another core; after it, yield, so that a
         * peer waiting for this very core (a loaded machine) runs instead of watching this one spin. */
        uint64_t now = spins % 16 == 0 ? monotonic_ns() : start;
        if (now - start < 2000) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        } else {
            sched_yield();
        }
        value = __atomic_load_n(bell, __ATOMIC_ACQUIRE);
        if (value != seen) return value;
        if (spins % 16 == 0 && now - start >= spin_ns) return value;
    }
}
