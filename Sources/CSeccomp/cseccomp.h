// CSeccomp: libseccomp (Debian libseccomp-dev) for the plugin sandbox's system-call filter, plus small helpers.
//
// Why the helpers exist: SCMP_ACT_ERRNO and SCMP_A0 are function-like macros, which Swift does not import,
// and `prctl` is variadic. Each helper is one of them as a function.
#ifndef CSECCOMP_H
#define CSECCOMP_H

#include <seccomp.h>
#include <sys/prctl.h>

/// `SCMP_ACT_ERRNO(error)`: the filter action that fails the call with `error`.
static inline uint32_t cseccomp_action_errno(int error) { return SCMP_ACT_ERRNO((uint32_t)error); }

/// `SCMP_ACT_ALLOW`.
static inline uint32_t cseccomp_action_allow(void) { return SCMP_ACT_ALLOW; }

/// Adds a rule: `syscall` fails with `error` whatever its arguments.
static inline int cseccomp_deny(scmp_filter_ctx ctx, int syscall, int error) {
    return seccomp_rule_add(ctx, SCMP_ACT_ERRNO((uint32_t)error), syscall, 0);
}

/// `prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)`: neither this process nor anything it runs can gain privileges
/// (set-user-id programs, file capabilities); a filter may then be installed without CAP_SYS_ADMIN.
static inline int cseccomp_set_no_new_privileges(void) { return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); }

/// `prctl(PR_GET_NO_NEW_PRIVS)`: 1 when set.
static inline int cseccomp_no_new_privileges(void) { return prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0); }

#endif
