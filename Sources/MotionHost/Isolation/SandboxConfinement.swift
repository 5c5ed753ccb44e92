import CSeccomp
import FoundationEssentials
import Glibc

/// What a plugin's sandbox does to itself before it loads the plugin's library, so that the plugin's code (its
/// constructors included) runs confined:
///
/// - the memory limit of the plugin's configuration, as `RLIMIT_AS` (an allocation past it fails: `malloc` returns
///   `NULL`, `mmap` fails with `ENOMEM`);
/// - `PR_SET_NO_NEW_PRIVS`: nothing the process does can gain privileges (set-user-id programs, file
///   capabilities), which also lets it install a filter without `CAP_SYS_ADMIN`;
/// - a seccomp filter (libseccomp): `execve` and `execveat` (no other program can be run), `socket` (no new
///   network socket, of any address family: the sandbox has the two it was given), `ptrace`,
///   `process_vm_readv` and `process_vm_writev` (no reading or writing another process) fail with `EPERM`;
///   everything else is allowed.
///
/// Descriptors: the sandbox has closed every descriptor but standard input (`/dev/null`), output and error (the
/// host's standard error), its two channels and the shared memory before this (``SandboxServer``).
enum SandboxConfinement {
    /// The system calls that fail with `EPERM` in a sandbox.
    static let deniedSystemCalls = ["execve", "execveat", "socket", "ptrace", "process_vm_readv", "process_vm_writev"]

    /// Confines the calling process, for good.
    /// - Parameter memoryLimit: `RLIMIT_AS` in bytes, or `nil` for none.
    /// - Returns: `nil` when every step took effect, else what failed.
    static func apply(memoryLimit: Int?) -> String? {
        if let memoryLimit {
            var limit = rlimit(rlim_cur: rlim_t(memoryLimit), rlim_max: rlim_t(memoryLimit))
            if setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit) != 0 {
                return "setrlimit(RLIMIT_AS, \(memoryLimit)) failed: \(Errno.current)"
            }
        }
        if cseccomp_set_no_new_privileges() != 0 { return "prctl(PR_SET_NO_NEW_PRIVS) failed: \(Errno.current)" }
        guard let filter = seccomp_init(cseccomp_action_allow()) else { return "seccomp_init failed" }
        defer { seccomp_release(filter) }
        for name in deniedSystemCalls {
            let number = seccomp_syscall_resolve_name(name)
            guard number != __NR_SCMP_ERROR else { continue }
            let result = cseccomp_deny(filter, number, EPERM)
            if result != 0 { return "seccomp_rule_add(\(name)) failed: \(Errno(rawValue: -result))" }
        }
        let result = seccomp_load(filter)
        if result != 0 { return "seccomp_load failed: \(Errno(rawValue: -result))" }
        return nil
    }
}
