/* The host's last words: see include/CMotionHostSupport.h. Everything reachable from a signal handler
 * here uses only async-signal-safe calls (write, read, getpid, gettid, sigaction, raise, nanosleep,
 * clock_gettime) and memory it does not allocate. */
#define _GNU_SOURCE
#include "CMotionHostSupport.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

_Thread_local cmotionhost_call_mark cmotionhost_thread_mark = {NULL, NULL, -1, 0};
_Thread_local void *cmotionhost_thread_log_route = NULL;
_Thread_local void *cmotionhost_thread_plans_stack = NULL;

/* MARK: Text without allocation */

typedef struct text {
    char *bytes;
    size_t length;
    size_t capacity;
} text;

static void append_bytes(text *t, const char *bytes, size_t count) {
    for (size_t i = 0; i < count && t->length < t->capacity; i++) t->bytes[t->length++] = bytes[i];
}

static void append(text *t, const char *string) {
    if (string != NULL) append_bytes(t, string, strlen(string));
}

static void append_int(text *t, int64_t value) {
    char digits[24];
    size_t n = 0;
    uint64_t magnitude = value < 0 ? (uint64_t)(-(value + 1)) + 1 : (uint64_t)value;
    do {
        digits[n++] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude > 0);
    if (value < 0) append_bytes(t, "-", 1);
    while (n > 0) append_bytes(t, &digits[--n], 1);
}

/* A JSON string's contents (RFC 8259): quote, backslash and control characters escaped. */
static void append_json_escaped(text *t, const char *string) {
    static const char hex[] = "0123456789abcdef";
    for (const unsigned char *c = (const unsigned char *)string; *c != 0; c++) {
        if (*c == '"' || *c == '\\') {
            char escaped[2] = {'\\', (char)*c};
            append_bytes(t, escaped, 2);
        } else if (*c < 0x20) {
            char escaped[6] = {'\\', 'u', '0', '0', hex[*c >> 4], hex[*c & 15]};
            append_bytes(t, escaped, 6);
        } else {
            append_bytes(t, (const char *)c, 1);
        }
    }
}

static void write_all(int fd, const void *bytes, size_t count) {
    const char *next = bytes;
    while (count > 0) {
        ssize_t n = write(fd, next, count);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        next += n;
        count -= (size_t)n;
    }
}

static pid_t current_tid(void) { return (pid_t)syscall(SYS_gettid); }

/* MARK: Loaded libraries */

enum { maximum_libraries = 128 };
typedef struct library_range {
    uintptr_t start, end;
    const char *plugin;
} library_range;
static library_range libraries[maximum_libraries];
static size_t library_count; /* published with release after the entry is filled */
static pthread_mutex_t libraries_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct range_search {
    uintptr_t address;
    uintptr_t start, end;
    bool found;
} range_search;

static int find_object(struct dl_phdr_info *info, size_t size, void *context) {
    (void)size;
    range_search *search = context;
    uintptr_t low = UINTPTR_MAX, high = 0;
    bool holds = false;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
        if (segment->p_type != PT_LOAD) continue;
        uintptr_t start = info->dlpi_addr + segment->p_vaddr;
        uintptr_t end = start + segment->p_memsz;
        if (start < low) low = start;
        if (end > high) high = end;
        if (search->address >= start && search->address < end) holds = true;
    }
    if (!holds) return 0;
    search->start = low;
    search->end = high;
    search->found = true;
    return 1;
}

bool cmotionhost_record_library(const void *address, const char *plugin) {
    range_search search = {(uintptr_t)address, 0, 0, false};
    dl_iterate_phdr(find_object, &search);
    if (!search.found) return false;
    pthread_mutex_lock(&libraries_lock);
    size_t count = __atomic_load_n(&library_count, __ATOMIC_RELAXED);
    bool recorded = true;
    bool known = false;
    for (size_t i = 0; i < count; i++) {
        if (libraries[i].start == search.start) known = true;
    }
    if (!known) {
        if (count < maximum_libraries) {
            libraries[count] = (library_range){search.start, search.end, plugin};
            __atomic_store_n(&library_count, count + 1, __ATOMIC_RELEASE);
        } else {
            recorded = false;
        }
    }
    pthread_mutex_unlock(&libraries_lock);
    return recorded;
}

const char *cmotionhost_library_plugin(uintptr_t address) {
    size_t count = __atomic_load_n(&library_count, __ATOMIC_ACQUIRE);
    for (size_t i = 0; i < count; i++) {
        if (address >= libraries[i].start && address < libraries[i].end) return libraries[i].plugin;
    }
    return NULL;
}

/* MARK: The timeline */

static struct {
    int fd;
    const unsigned char *buffer;
    size_t length;
    bool takes_error_line;
    char stamps[2][96];
    int stamp; /* which of stamps is current */
    int64_t frame;
    pid_t scheduler_tid;
} timeline = {-1, NULL, 0, false, {{0}, {0}}, 0, -1, 0};

void cmotionhost_timeline_attach(int fd, const unsigned char *buffer, bool takesErrorLine) {
    timeline.buffer = buffer;
    timeline.takes_error_line = takesErrorLine;
    timeline.scheduler_tid = current_tid();
    __atomic_store_n(&timeline.length, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&timeline.fd, fd, __ATOMIC_RELEASE);
}

void cmotionhost_timeline_detach(void) { __atomic_store_n(&timeline.fd, -1, __ATOMIC_RELEASE); }

void cmotionhost_timeline_set_length(size_t length) { __atomic_store_n(&timeline.length, length, __ATOMIC_RELEASE); }

void cmotionhost_timeline_set_point(int64_t frame, const char *stamp) {
    int next = 1 - __atomic_load_n(&timeline.stamp, __ATOMIC_RELAXED);
    size_t n = strlen(stamp);
    if (n >= sizeof timeline.stamps[next]) n = sizeof timeline.stamps[next] - 1;
    memcpy(timeline.stamps[next], stamp, n);
    timeline.stamps[next][n] = 0;
    __atomic_store_n(&timeline.stamp, next, __ATOMIC_RELEASE);
    __atomic_store_n(&timeline.frame, frame, __ATOMIC_RELEASE);
}

/* The thread that claimed the last words (0: nobody yet). */
static pid_t last_words_owner;

/* 0: claimed now; 1: this thread claimed them before (a fault inside the handler); 2: another thread did. */
static int claim_last_words(void) {
    pid_t me = current_tid();
    pid_t expected = 0;
    if (__atomic_compare_exchange_n(&last_words_owner, &expected, me, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return 0;
    return expected == me ? 1 : 2;
}

/* The buffered bytes, then the error line when the timeline takes one and `message` is given. */
static void write_timeline(const char *message) {
    int fd = __atomic_load_n(&timeline.fd, __ATOMIC_ACQUIRE);
    if (fd < 0) return;
    size_t length = __atomic_load_n(&timeline.length, __ATOMIC_ACQUIRE);
    if (length > 0 && timeline.buffer != NULL) write_all(fd, timeline.buffer, length);
    __atomic_store_n(&timeline.length, 0, __ATOMIC_RELEASE);
    if (message == NULL || !timeline.takes_error_line) return;
    char bytes[2048];
    text line = {bytes, 0, sizeof bytes - 3};
    append(&line, "{\"error\":\"");
    append_json_escaped(&line, message);
    append(&line, "\"");
    append(&line, timeline.stamps[__atomic_load_n(&timeline.stamp, __ATOMIC_ACQUIRE)]);
    line.capacity += 3;
    append(&line, "}\n");
    write_all(fd, line.bytes, line.length);
}

bool cmotionhost_write_last_words(const char *message) {
    if (claim_last_words() != 0) return false;
    write_timeline(message);
    return true;
}

/* MARK: Fatal signals */

static int probe_pipe[2] = {-1, -1};

/* Whether the page at `address` can be read, asked of the kernel (a write from it into a pipe fails
 * with EFAULT instead of faulting), so scanning a stack never faults inside the handler. */
static bool is_readable(uintptr_t address) {
    if (probe_pipe[1] < 0) return false;
    if (write(probe_pipe[1], (const void *)address, 1) != 1) return false;
    char byte;
    (void)read(probe_pipe[0], &byte, 1);
    return true;
}

/* The plugin whose library a return address on the stack from `sp` up points into, or NULL. */
static const char *plugin_on_stack(uintptr_t sp) {
    enum { page = 4096, limit = 512 * 1024 };
    uintptr_t word = sp & ~(uintptr_t)7;
    uintptr_t checked_page = 0;
    for (uintptr_t end = word + limit; word < end; word += sizeof(uintptr_t)) {
        uintptr_t this_page = word & ~(uintptr_t)(page - 1);
        if (this_page != checked_page) {
            if (!is_readable(this_page)) return NULL;
            checked_page = this_page;
        }
        const char *plugin = cmotionhost_library_plugin(*(const uintptr_t *)word);
        if (plugin != NULL) return plugin;
    }
    return NULL;
}

static const char *signal_name(int signal) {
    switch (signal) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGABRT: return "SIGABRT";
    case SIGTRAP: return "SIGTRAP";
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    default: return "a signal";
    }
}

static void append_signal(text *t, int signal) {
    append(t, " (signal ");
    append_int(t, signal);
    append(t, ")");
}

static void append_frame(text *t, int64_t frame) {
    if (frame < 0) frame = __atomic_load_n(&timeline.frame, __ATOMIC_ACQUIRE);
    if (frame < 0) return;
    append(t, " at frame ");
    append_int(t, frame);
}

static void die(int signal) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    sigaction(signal, &action, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, signal);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    raise(signal);
    _exit(128 + signal);
}

/* The message naming who crashed, without "error: ". */
static void compose_crash(text *m, int signal, const siginfo_t *info, const ucontext_t *context) {
    const char *plugin = __atomic_load_n(&cmotionhost_thread_mark.plugin, __ATOMIC_RELAXED);
    if (plugin != NULL) {
        append(m, "plugin ");
        append(m, plugin);
        append(m, " crashed the host");
        append_signal(m, signal);
        append(m, " in ");
        append(m, __atomic_load_n(&cmotionhost_thread_mark.call, __ATOMIC_RELAXED));
        append_frame(m, __atomic_load_n(&cmotionhost_thread_mark.frame, __ATOMIC_RELAXED));
        append(m, ". To find out more, run motion-host plugins validate on its manifest");
        return;
    }
    uintptr_t pc = 0, sp = 0;
#if defined(__x86_64__)
    pc = (uintptr_t)context->uc_mcontext.gregs[REG_RIP];
    sp = (uintptr_t)context->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
    pc = (uintptr_t)context->uc_mcontext.pc;
    sp = (uintptr_t)context->uc_mcontext.sp;
#endif
    bool is_plugin_thread = current_tid() != timeline.scheduler_tid || timeline.scheduler_tid == 0;
    const char *owner = cmotionhost_library_plugin(pc);
    if (owner != NULL) {
        append(m, "a thread of plugin ");
        append(m, owner);
        append(m, " crashed the host");
        append_signal(m, signal);
        append_frame(m, -1);
        append(m, ", in the plugin's own code outside any call from the host");
    } else if ((signal == SIGSEGV || signal == SIGBUS) &&
               (owner = cmotionhost_library_plugin((uintptr_t)info->si_addr)) != NULL) {
        append(m, "a thread crashed the host");
        append_signal(m, signal);
        append_frame(m, -1);
        append(m, ", touching the library of plugin ");
        append(m, owner);
    } else if (is_plugin_thread && sp != 0 && (owner = plugin_on_stack(sp)) != NULL) {
        append(m, "a thread of plugin ");
        append(m, owner);
        append(m, " crashed the host");
        append_signal(m, signal);
        append_frame(m, -1);
        append(m, ", in the host's code called from that thread (its stack returns into the plugin; a call for a "
                  "performer after destroy_performer, which the header forbids, does this)");
    } else if (is_plugin_thread) {
        append(m, "a plugin thread (one the host did not start) crashed the host");
        append_signal(m, signal);
        append_frame(m, -1);
    } else {
        append(m, "the host crashed");
        append_signal(m, signal);
        append_frame(m, -1);
        append(m, " outside any call into a plugin");
    }
    if (owner != NULL) append(m, ". To find out more, run motion-host plugins validate on its manifest");
}

static void crash_handler(int signal, siginfo_t *info, void *context) {
    int claim = claim_last_words();
    if (claim == 1) die(signal); /* a fault while writing the last words */
    if (claim == 2) {
        /* Another thread is writing them and will end the process; give it time, then end it anyway. */
        struct timespec pause = {0, 10 * 1000 * 1000};
        for (int i = 0; i < 500; i++) nanosleep(&pause, NULL);
        die(signal);
    }
    char bytes[1536];
    text message = {bytes, 0, sizeof bytes - 1};
    compose_crash(&message, signal, info, context);
    message.bytes[message.length] = 0;
    write_all(STDERR_FILENO, "error: ", 7);
    write_all(STDERR_FILENO, message.bytes, message.length);
    write_all(STDERR_FILENO, "\n", 1);
    write_timeline(message.bytes);
    die(signal);
}

void cmotionhost_install_crash_handler(void) {
    if (probe_pipe[0] < 0 && pipe2(probe_pipe, O_CLOEXEC | O_NONBLOCK) != 0) probe_pipe[0] = probe_pipe[1] = -1;
    /* An alternate stack, so a stack overflow in a plugin still gets its last words out. */
    static char alternate[64 * 1024];
    stack_t stack = {.ss_sp = alternate, .ss_flags = 0, .ss_size = sizeof alternate};
    sigaltstack(&stack, NULL);
    const int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = crash_handler;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        sigaction(signals[i], &action, NULL);
    }
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) sigaddset(&set, signals[i]);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

/* MARK: Interruption */

static int interruption;

static void interrupt_handler(int signal) {
    int expected = 0;
    if (__atomic_compare_exchange_n(&interruption, &expected, signal, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return; /* the frame loop stops at the next frame boundary */
    /* A second one: the run did not reach a frame boundary (a plugin call that does not return?). */
    if (claim_last_words() == 0) {
        char bytes[1024];
        text message = {bytes, 0, sizeof bytes - 1};
        append(&message, "a second ");
        append(&message, signal_name(signal));
        append(&message, " ended the run before the frame ended");
        const char *plugin = __atomic_load_n(&cmotionhost_thread_mark.plugin, __ATOMIC_RELAXED);
        if (plugin != NULL) {
            append(&message, ", in plugin ");
            append(&message, plugin);
            append(&message, "'s ");
            append(&message, __atomic_load_n(&cmotionhost_thread_mark.call, __ATOMIC_RELAXED));
        }
        append_frame(&message, __atomic_load_n(&cmotionhost_thread_mark.frame, __ATOMIC_RELAXED));
        message.bytes[message.length] = 0;
        write_all(STDERR_FILENO, "error: ", 7);
        write_all(STDERR_FILENO, message.bytes, message.length);
        write_all(STDERR_FILENO, "\n", 1);
        write_timeline(message.bytes);
    }
    die(signal);
}

void cmotionhost_install_interrupt_handler(void) {
    const int signals[] = {SIGINT, SIGTERM};
    for (size_t i = 0; i < 2; i++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = interrupt_handler;
        action.sa_flags = SA_RESTART;
        sigemptyset(&action.sa_mask);
        sigaction(signals[i], &action, NULL);
    }
    cmotionhost_unblock_interrupts();
}

void cmotionhost_unblock_interrupts(void) {
    /* A process may start with them blocked (the mask is inherited through exec, from a thread of its parent
     * that blocks them): then they would stay pending and the run would never stop. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

int cmotionhost_interruption(void) { return __atomic_load_n(&interruption, __ATOMIC_ACQUIRE); }

/* MARK: Watchdog */

static struct {
    cmotionhost_call_mark *watched;
    double seconds;
    char description[32];
} watchdog;

static double now_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

static void *watchdog_main(void *unused) {
    (void)unused;
    cmotionhost_call_mark *mark = watchdog.watched;
    double step = watchdog.seconds / 10;
    if (step > 0.1) step = 0.1;
    if (step < 0.001) step = 0.001;
    struct timespec pause = {(time_t)step, (long)((step - (double)(time_t)step) * 1e9)};
    uint64_t last_sequence = __atomic_load_n(&mark->sequence, __ATOMIC_ACQUIRE);
    double since = now_seconds();
    for (;;) {
        nanosleep(&pause, NULL);
        uint64_t sequence = __atomic_load_n(&mark->sequence, __ATOMIC_ACQUIRE);
        const char *plugin = __atomic_load_n(&mark->plugin, __ATOMIC_RELAXED);
        if (sequence != last_sequence || plugin == NULL) {
            last_sequence = sequence;
            since = now_seconds();
            continue;
        }
        if (now_seconds() - since < watchdog.seconds) continue;
        const char *call = __atomic_load_n(&mark->call, __ATOMIC_RELAXED);
        int64_t frame = __atomic_load_n(&mark->frame, __ATOMIC_RELAXED);
        if (__atomic_load_n(&mark->sequence, __ATOMIC_ACQUIRE) != sequence) continue;
        char bytes[1536];
        text message = {bytes, 0, sizeof bytes - 1};
        append(&message, "plugin ");
        append(&message, plugin);
        append(&message, " did not return from ");
        append(&message, call);
        append_frame(&message, frame);
        append(&message, " within ");
        append(&message, watchdog.description);
        append(&message, " (--plugin-timeout); the run was stopped. To fix, find why the plugin hangs (motion-host "
                         "plugins validate on its manifest), or raise --plugin-timeout if it is only slow");
        message.bytes[message.length] = 0;
        if (claim_last_words() != 0) return NULL; /* a crash handler is writing them */
        write_all(STDERR_FILENO, "error: ", 7);
        write_all(STDERR_FILENO, message.bytes, message.length);
        write_all(STDERR_FILENO, "\n", 1);
        write_timeline(message.bytes);
        _exit(1);
    }
    return NULL;
}

bool cmotionhost_start_watchdog(double seconds, const char *description) {
    if (!(seconds > 0) || watchdog.watched != NULL) return false;
    watchdog.watched = &cmotionhost_thread_mark;
    watchdog.seconds = seconds;
    size_t n = strlen(description);
    if (n >= sizeof watchdog.description) n = sizeof watchdog.description - 1;
    memcpy(watchdog.description, description, n);
    watchdog.description[n] = 0;
    pthread_t thread;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    /* The watchdog must not take a signal meant for the scheduler's thread's handlers. */
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &previous);
    int status = pthread_create(&thread, &attributes, watchdog_main, NULL);
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    pthread_attr_destroy(&attributes);
    if (status != 0) {
        watchdog.watched = NULL;
        return false;
    }
    return true;
}
