/* crashpoint.c: an LD_PRELOAD shim that kills a process exactly before its N-th "write
 * event" on one family of files, so that a test can prove crash safety exhaustively: run
 * once counting the events, then once for every N killed before event N, and check each
 * time that the file can still be resumed.
 *
 *   head -c 8 /dev/zero > ctr
 *   CRASHPOINT_MATCH=$PWD/out.h5 CRASHPOINT_COUNTER=$PWD/ctr CRASHPOINT_AT=7 \
 *       LD_PRELOAD=libcrashpoint.so impactsweep run job.ini --output $PWD/out.h5
 *   # exit status 137 (SIGKILL) if the run had a 7th event; the counter holds the number
 *   # of events seen (all of them, in a count-only run)
 *
 * Settings (environment variables, read once when the library is loaded):
 *   CRASHPOINT_MATCH    an absolute path prefix: an event concerns a file whose absolute
 *                       path starts with it (out.h5, out.h5.lock, out.h5.partial-123, ...).
 *                       Unset or empty: the shim does nothing, every call passes through.
 *   CRASHPOINT_COUNTER  a file whose first 8 bytes are the event counter (a native uint64;
 *                       created or extended to 8 bytes when shorter). It is mapped
 *                       MAP_SHARED and bumped atomically, so all the processes that use it
 *                       (MPI ranks, the successive commands of a test, forked children)
 *                       share one numbering. Unset or unusable: a counter shared only by
 *                       the process and its forked children. Events are numbered from 1.
 *   CRASHPOINT_AT       N >= 1: the process about to perform event N kills itself with
 *                       SIGKILL instead, before the call reaches the kernel. 0 or unset:
 *                       count only.
 *   CRASHPOINT_MODE     "before" (the default) as above; "torn": if event N is a data write
 *                       (write, pwrite, writev, pwritev families) of k bytes, first write
 *                       only its first k/2 bytes (rounded down) at the same offset, then
 *                       SIGKILL. Other events behave as in "before".
 *   CRASHPOINT_LOG      optional: append one line per event, "N pid kind path bytes offset",
 *                       with kind one of write pwrite writev pwritev ftruncate fallocate
 *                       rename link unlink open_creat, path "from->to" for rename and link,
 *                       bytes the byte count of a write or fallocate, the new length for
 *                       ftruncate and 0 otherwise, offset -1 where the call names none.
 *                       The line of the event that kills ends with " killed" (" torn" in
 *                       torn mode). Spaces, tabs, newlines and backslashes in paths are
 *                       written as \040 \011 \012 \134. Each line is one O_APPEND write, so
 *                       lines of several processes never interleave (but can come out of
 *                       numeric order: sort -n).
 *   CRASHPOINT_VERBOSE  1: one line on stderr when the shim kills. Otherwise the shim never
 *                       prints anything.
 *
 * Events (an event is an attempt: a call that then fails still counts):
 *   - write, pwrite, pwrite64, writev, pwritev, pwritev64, pwritev2, pwritev64v2, ftruncate,
 *     ftruncate64, fallocate, fallocate64, posix_fallocate, posix_fallocate64 on a
 *     descriptor of a regular file whose path (/proc/self/fd/N) matches; zero-byte writes
 *     count;
 *   - rename, renameat, renameat2, link, linkat, unlink, unlinkat when either path matches,
 *     made absolute lexically (against the current directory or the dirfd's path; "." and
 *     ".." are folded, symlinks are not resolved);
 *   - open, open64, openat, openat64, creat, creat64 with O_CREAT on a matching path that
 *     does not exist yet ("open_creat": killing before it means the file is never made).
 * The prefix also matches in the form with its directory's symlinks resolved (descriptor
 * paths from /proc are always resolved). The log and counter files never count.
 *
 * Not seen, because they bypass the dynamic symbol table or write without a write call:
 * stdio (fwrite, fprintf, fflush and fclose reach the kernel through glibc's internal
 * write), fopen, remove, copy_file_range, sendfile, splice, stores into a shared mapping,
 * io_uring, POSIX AIO, and direct system calls. O_TRUNC on an existing file is not an event.
 *
 * Build: cc -Wall -Wextra -std=gnu11 -fPIC -shared -o libcrashpoint.so crashpoint.c -ldl
 * (CMake target `crashpoint`). Self-test: crashpoint_selftest.sh. */
#define _GNU_SOURCE
/* The definitions below must keep their own symbol names: with 64-bit file offsets the
 * headers would rename open to open64 (a duplicate definition), and fortification would
 * make open an inline function. */
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 26))
#define CRASHPOINT_HAVE_PWRITEV2 1
#endif

/* --- the real functions ------------------------------------------------------------------ */

/* Each is looked up on first use, not in the constructor: other libraries' constructors
 * may write before ours has run. Concurrent look-ups store the same pointer. */
static void *real_write, *real_pwrite, *real_pwrite64, *real_writev, *real_pwritev, *real_pwritev64,
    *real_ftruncate, *real_ftruncate64, *real_fallocate, *real_fallocate64, *real_posix_fallocate,
    *real_posix_fallocate64, *real_rename, *real_renameat, *real_renameat2, *real_link,
    *real_linkat, *real_unlink, *real_unlinkat, *real_open, *real_open64, *real_openat,
    *real_openat64, *real_creat, *real_creat64;
#ifdef CRASHPOINT_HAVE_PWRITEV2
static void *real_pwritev2, *real_pwritev64v2;
#endif

static void *resolve(const char *name, void **slot)
{
    void *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (!fn) {
        int saved = errno; /* dlsym may leave errno changed even when it succeeds */
        fn = dlsym(RTLD_NEXT, name);
        errno = saved;
        __atomic_store_n(slot, fn, __ATOMIC_RELEASE);
    }
    return fn;
}

/* Declares `fn`, the next definition of `name` (libc's), with name's own type. */
#define REAL(name, fn) __typeof__(&name) fn = (__typeof__(&name))resolve(#name, &real_##name)

/* What a wrapper returns when libc lacks the function (it never does on glibc 2.26+). */
static long missing(void)
{
    errno = ENOSYS;
    return -1;
}

/* --- configuration ----------------------------------------------------------------------- */

static struct {
    int enabled;               /* CRASHPOINT_MATCH set and a counter mapped */
    char match[PATH_MAX];      /* the prefix, absolute */
    char match_real[PATH_MAX]; /* the same, its directory's symlinks resolved */
    size_t match_len, match_real_len;
    uint64_t at;        /* the event that kills, 0: none */
    int torn;           /* CRASHPOINT_MODE=torn */
    int verbose;        /* CRASHPOINT_VERBOSE=1 */
    char log[PATH_MAX]; /* "" for no log */
    char log_real[PATH_MAX];
    char counter_file[PATH_MAX];
    char counter_file_real[PATH_MAX];
    uint64_t *counter; /* the shared event counter */
} cfg;

/* 0: not read yet, 1: being read, 2: ready. Reading is not locked (a lock taken in a
 * write wrapper could deadlock if reading it wrote); a call that comes while another
 * thread is reading simply passes through. */
static int cfg_state;

/* Set while this thread is inside the shim's own bookkeeping, so that whatever that calls
 * can never count as an event. Initial-exec: no allocation on first access. */
static __thread int busy __attribute__((tls_model("initial-exec")));

/* Appends the components of `path` to the absolute path out[0 .. *len) lexically: empty
 * and "." components vanish, ".." drops the last component. Symlinks are deliberately not
 * resolved: the harness names files the way the program does. -1 if too long. */
static int append_components(char *out, size_t *len, const char *path)
{
    while (*path) {
        const char *end = strchrnul(path, '/');
        size_t n = (size_t)(end - path);
        if (n == 2 && path[0] == '.' && path[1] == '.') {
            while (*len > 1 && out[*len - 1] != '/')
                (*len)--;
            if (*len > 1)
                (*len)--;
        } else if (n > 0 && !(n == 1 && path[0] == '.')) {
            if (*len + 1 + n >= PATH_MAX)
                return -1;
            if (out[*len - 1] != '/')
                out[(*len)++] = '/';
            memcpy(out + *len, path, n);
            *len += n;
        }
        path = *end ? end + 1 : end;
    }
    out[*len] = '\0';
    return 0;
}

/* The path of an open descriptor, as the kernel reports it (absolute, symlinks resolved);
 * -1 for descriptors that are not files (pipes, sockets: "pipe:[123]") or on error. */
static int fd_path(int fd, char *out)
{
    char link[32] = "/proc/self/fd/";
    char digits[12];
    int n = 0;
    unsigned v = (unsigned)fd;
    if (fd < 0)
        return -1;
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) > 0);
    size_t len = strlen(link);
    while (n > 0)
        link[len++] = digits[--n];
    link[len] = '\0';
    ssize_t got = readlink(link, out, PATH_MAX - 1);
    if (got <= 0 || got >= PATH_MAX - 1 || out[0] != '/')
        return -1;
    out[got] = '\0';
    return 0;
}

/* `path` made absolute against dirfd (AT_FDCWD: the current directory), lexically. */
static int absolute(int dirfd, const char *path, char *out)
{
    size_t len = 1;
    out[0] = '/';
    out[1] = '\0';
    if (!path)
        return -1;
    if (path[0] != '/') {
        char base[PATH_MAX];
        if (dirfd == AT_FDCWD) {
            if (!getcwd(base, sizeof base) || base[0] != '/')
                return -1;
        } else if (fd_path(dirfd, base) < 0) {
            return -1;
        }
        if (append_components(out, &len, base) < 0)
            return -1;
    }
    return append_components(out, &len, path);
}

/* An absolute path with its directory's symlinks resolved (the file itself need not
 * exist); the path unchanged where the directory cannot be resolved. */
static void resolve_directory(const char *path, char *out)
{
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX], real[PATH_MAX];
    size_t n = (size_t)(slash - path);
    memcpy(dir, path, n);
    dir[n] = '\0';
    if (!realpath(n ? dir : "/", real) || strlen(real) + strlen(slash) >= PATH_MAX) {
        strcpy(out, path);
        return;
    }
    strcpy(out, real);
    strcat(out, strcmp(real, "/") == 0 ? slash + 1 : slash);
}

/* CRASHPOINT_MATCH and the log and counter names: absolute, and resolved. A trailing
 * slash of the prefix is kept (it means "inside this directory"). */
static int setting_path(const char *value, char *out, char *out_real)
{
    size_t len = strlen(value);
    int slash = len > 1 && value[len - 1] == '/';
    if (absolute(AT_FDCWD, value, out) < 0)
        return -1;
    len = strlen(out);
    if (slash && len > 1 && len + 1 < PATH_MAX) {
        out[len++] = '/';
        out[len] = '\0';
    }
    resolve_directory(out, out_real);
    return 0;
}

static uint64_t setting_number(const char *name)
{
    const char *value = getenv(name);
    char *end;
    if (!value || !*value)
        return 0;
    errno = 0;
    unsigned long long n = strtoull(value, &end, 10);
    return errno || *end || value[0] == '-' ? 0 : (uint64_t)n;
}

/* Maps the counter file, creating it or growing it to 8 bytes if needed; NULL on error. */
static uint64_t *map_counter(const char *path)
{
    REAL(open, open_fn);
    REAL(ftruncate, ftruncate_fn);
    struct stat st;
    if (!open_fn || !ftruncate_fn)
        return NULL;
    int fd = open_fn(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
        return NULL;
    void *map = MAP_FAILED;
    if (fstat(fd, &st) == 0 && (st.st_size >= 8 || ftruncate_fn(fd, 8) == 0))
        map = mmap(NULL, sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd); /* the mapping outlives the descriptor */
    return map == MAP_FAILED ? NULL : map;
}

static void read_settings(void)
{
    const char *match = getenv("CRASHPOINT_MATCH");
    const char *counter = getenv("CRASHPOINT_COUNTER");
    const char *mode = getenv("CRASHPOINT_MODE");
    const char *log = getenv("CRASHPOINT_LOG");
    const char *verbose = getenv("CRASHPOINT_VERBOSE");
    if (!match || !*match || setting_path(match, cfg.match, cfg.match_real) < 0)
        return;
    cfg.match_len = strlen(cfg.match);
    cfg.match_real_len = strlen(cfg.match_real);
    cfg.at = setting_number("CRASHPOINT_AT");
    cfg.torn = mode && strcmp(mode, "torn") == 0;
    cfg.verbose = verbose && strcmp(verbose, "1") == 0;
    if (log && *log && setting_path(log, cfg.log, cfg.log_real) < 0)
        cfg.log[0] = cfg.log_real[0] = '\0';
    if (counter && *counter && setting_path(counter, cfg.counter_file, cfg.counter_file_real) == 0)
        cfg.counter = map_counter(cfg.counter_file);
    if (!cfg.counter) {
        /* No usable shared counter: still number the events consistently within this
         * process and the children it forks. */
        void *map =
            mmap(NULL, sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        cfg.counter = map == MAP_FAILED ? NULL : map;
    }
    cfg.enabled = cfg.counter != NULL;
}

/* Reads the settings once, whichever comes first: the constructor or a wrapper called by
 * another library's constructor. 1 when ready. */
static int settings_ready(void)
{
    int state = __atomic_load_n(&cfg_state, __ATOMIC_ACQUIRE);
    if (state == 2)
        return 1;
    if (state != 0 ||
        !__atomic_compare_exchange_n(&cfg_state, &state, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return 0;
    int saved = errno;
    busy = 1;
    read_settings();
    busy = 0;
    errno = saved;
    __atomic_store_n(&cfg_state, 2, __ATOMIC_RELEASE);
    return 1;
}

__attribute__((constructor)) static void crashpoint_load(void)
{
    settings_ready();
}

/* Whether calls of this thread are being watched at all (the cheap test every wrapper
 * makes first). */
static int watching(void)
{
    return !busy && settings_ready() && cfg.enabled;
}

static int is_own_file(const char *path)
{
    return (cfg.log[0] && (strcmp(path, cfg.log) == 0 || strcmp(path, cfg.log_real) == 0)) ||
           (cfg.counter_file[0] &&
            (strcmp(path, cfg.counter_file) == 0 || strcmp(path, cfg.counter_file_real) == 0));
}

static int matches(const char *path)
{
    return (strncmp(path, cfg.match, cfg.match_len) == 0 ||
            strncmp(path, cfg.match_real, cfg.match_real_len) == 0) &&
           !is_own_file(path);
}

/* --- events ------------------------------------------------------------------------------ */

enum kind {
    K_WRITE,
    K_PWRITE,
    K_WRITEV,
    K_PWRITEV,
    K_FTRUNCATE,
    K_FALLOCATE,
    K_RENAME,
    K_LINK,
    K_UNLINK,
    K_OPEN_CREAT
};
static const char *const kind_names[] = {"write",     "pwrite", "writev", "pwritev", "ftruncate",
                                         "fallocate", "rename", "link",   "unlink",  "open_creat"};

/* A line under construction. Formatting by hand, not with snprintf: no locale, no
 * allocation, and nothing that is unsafe in a signal handler that writes. */
struct line {
    char text[2 * PATH_MAX + 256];
    size_t len;
};

static void put_text(struct line *l, const char *s)
{
    size_t n = strlen(s);
    if (n > sizeof l->text - 1 - l->len)
        n = sizeof l->text - 1 - l->len;
    memcpy(l->text + l->len, s, n);
    l->len += n;
}

/* A path, with the characters that would break a space-separated line escaped. The
 * last 64 bytes of the buffer are kept for the numbers that follow. */
static void put_path(struct line *l, const char *s)
{
    for (; *s && l->len + 4 < sizeof l->text - 64; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == ' ' || c == '\t' || c == '\n' || c == '\\') {
            l->text[l->len++] = '\\';
            l->text[l->len++] = (char)('0' + (c >> 6));
            l->text[l->len++] = (char)('0' + ((c >> 3) & 7));
            l->text[l->len++] = (char)('0' + (c & 7));
        } else {
            l->text[l->len++] = (char)c;
        }
    }
}

static void put_number(struct line *l, long long v)
{
    char digits[24];
    int n = 0;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do
        digits[n++] = (char)('0' + u % 10);
    while ((u /= 10) > 0);
    if (v < 0)
        digits[n++] = '-';
    while (n > 0 && l->len < sizeof l->text - 1)
        l->text[l->len++] = digits[--n];
}

static void put_unsigned(struct line *l, uint64_t v)
{
    char digits[24];
    int n = 0;
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) > 0);
    while (n > 0 && l->len < sizeof l->text - 1)
        l->text[l->len++] = digits[--n];
}

/* One line appended to the log: opened for each line rather than kept open, because a
 * program may close or dup2 over any descriptor it does not know about. */
static void log_event(uint64_t number, enum kind kind, const char *path, long long bytes,
                      long long offset, const char *suffix)
{
    REAL(open, open_fn);
    REAL(write, write_fn);
    struct line l = {.len = 0};
    if (!cfg.log[0] || !open_fn || !write_fn)
        return;
    put_unsigned(&l, number);
    put_text(&l, " ");
    put_number(&l, (long long)getpid());
    put_text(&l, " ");
    put_text(&l, kind_names[kind]);
    put_text(&l, " ");
    put_path(&l, path);
    put_text(&l, " ");
    put_number(&l, bytes);
    put_text(&l, " ");
    put_number(&l, offset);
    put_text(&l, suffix);
    put_text(&l, "\n");
    int fd = open_fn(cfg.log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
    if (fd >= 0) {
        if (write_fn(fd, l.text, l.len) < 0) {
            /* nothing to do: the log is a diagnostic */
        }
        close(fd);
    }
}

static void say_killing(uint64_t number, enum kind kind, const char *path, int tear,
                        long long bytes)
{
    REAL(write, write_fn);
    struct line l = {.len = 0};
    if (!write_fn)
        return;
    put_text(&l, "crashpoint: killing pid ");
    put_number(&l, (long long)getpid());
    put_text(&l, tear ? " during event " : " before event ");
    put_unsigned(&l, number);
    put_text(&l, " (");
    put_text(&l, kind_names[kind]);
    put_text(&l, " ");
    put_text(&l, path);
    put_text(&l, ")");
    if (tear) {
        put_text(&l, ", torn after ");
        put_number(&l, bytes / 2);
        put_text(&l, " of ");
        put_number(&l, bytes);
        put_text(&l, " bytes");
    }
    put_text(&l, "\n");
    if (write_fn(STDERR_FILENO, l.text, l.len) < 0) {
        /* stderr closed: the kill is the message */
    }
}

static _Noreturn void die(void)
{
    kill(getpid(), SIGKILL);
    for (;;) /* SIGKILL cannot be blocked; this only waits for its delivery */
        pause();
}

/* Numbers the event and logs it. In "before" mode the process dies here if it is the
 * chosen one. Returns 1 when the caller must tear the call instead: write its first
 * half, then die(); 0 to perform it. `data`: the call is a data write. */
static int count_event(enum kind kind, const char *path, long long bytes, long long offset,
                       int data)
{
    uint64_t number = __atomic_add_fetch(cfg.counter, 1, __ATOMIC_SEQ_CST);
    int hit = cfg.at != 0 && number == cfg.at;
    int tear = hit && cfg.torn && data;
    log_event(number, kind, path, bytes, offset, !hit ? "" : tear ? " torn" : " killed");
    if (!hit)
        return 0;
    if (cfg.verbose)
        say_killing(number, kind, path, tear, bytes);
    if (!tear)
        die();
    return 1;
}

/* An event on a descriptor: counted if it is a regular file whose path matches. Costs
 * one readlink when it does not match; errno is left as it was. Returns as count_event. */
static int fd_event(int fd, enum kind kind, long long bytes, long long offset, int data)
{
    char path[PATH_MAX];
    struct stat st;
    int saved = errno, tear = 0;
    busy = 1;
    if (fd_path(fd, path) == 0 && matches(path) && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
        tear = count_event(kind, path, bytes, offset, data);
    busy = 0;
    errno = saved;
    return tear;
}

/* An event on one or two paths (the second NULL for unlink), counted if either matches.
 * An empty path with a dirfd (linkat's AT_EMPTY_PATH) names the dirfd's file. */
static void path_event(enum kind kind, int dirfd1, const char *path1, int dirfd2, const char *path2)
{
    char abs1[PATH_MAX], abs2[PATH_MAX], both[2 * PATH_MAX + 2];
    int saved = errno;
    busy = 1;
    int ok1 = path1 && ((path1[0] || dirfd1 == AT_FDCWD) ? absolute(dirfd1, path1, abs1)
                                                         : fd_path(dirfd1, abs1)) == 0;
    int ok2 = path2 && absolute(dirfd2, path2, abs2) == 0;
    if ((ok1 && matches(abs1)) || (ok2 && matches(abs2))) {
        strcpy(both, ok1 ? abs1 : path1 ? path1 : "?");
        if (path2) {
            strcat(both, "->");
            strcat(both, ok2 ? abs2 : path2);
        }
        count_event(kind, both, 0, -1, 0);
    }
    busy = 0;
    errno = saved;
}

/* open with O_CREAT: an event if the path matches and the file does not exist yet (with
 * O_EXCL a dangling symlink is not followed, as open would not follow it). */
static void creat_event(int dirfd, const char *path, int flags)
{
    char abs[PATH_MAX];
    struct stat st;
    int saved = errno;
    busy = 1;
    if (absolute(dirfd, path, abs) == 0 && matches(abs) &&
        fstatat(dirfd, path, &st, flags & O_EXCL ? AT_SYMLINK_NOFOLLOW : 0) < 0 && errno == ENOENT)
        count_event(K_OPEN_CREAT, abs, 0, -1, 0);
    busy = 0;
    errno = saved;
}

/* --- tearing a write --------------------------------------------------------------------- */

/* Writes all of buf with the real write or pwrite (offset < 0: write). A short write can
 * only come from a full disk here, after which there is nothing more to do. */
static void write_part(int fd, const char *buf, size_t count, long long offset)
{
    REAL(write, write_fn);
    REAL(pwrite64, pwrite_fn);
    while (count > 0) {
        ssize_t n = offset < 0 ? write_fn(fd, buf, count) : pwrite_fn(fd, buf, count, offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        buf += n;
        count -= (size_t)n;
        if (offset >= 0)
            offset += n;
    }
}

/* The first `count` bytes of a vector, written with one real call of the same family
 * (so that pwritev2's flags still apply); the rest of a short write piece by piece. */
enum vector_call { V_WRITEV, V_PWRITEV, V_PWRITEV64, V_PWRITEV2, V_PWRITEV64V2 };

static void write_vector_part(enum vector_call call, int fd, const struct iovec *iov, int iovcnt,
                              size_t count, long long offset, int flags)
{
    struct iovec *cut = malloc((size_t)(iovcnt > 0 ? iovcnt : 1) * sizeof *cut);
    int n = 0;
    size_t left = count;
    ssize_t done = -1;
    (void)flags;
    if (!cut)
        return;
    for (int i = 0; i < iovcnt && left > 0; i++) {
        cut[n] = iov[i];
        if (cut[n].iov_len > left)
            cut[n].iov_len = left;
        left -= cut[n++].iov_len;
    }
    if (n == 0) { /* nothing to write: k/2 == 0 */
        free(cut);
        return;
    }
    for (;;) {
        if (call == V_WRITEV) {
            REAL(writev, fn);
            done = fn ? fn(fd, cut, n) : missing();
        } else if (call == V_PWRITEV) {
            REAL(pwritev, fn);
            done = fn ? fn(fd, cut, n, (off_t)offset) : missing();
        } else if (call == V_PWRITEV64) {
            REAL(pwritev64, fn);
            done = fn ? fn(fd, cut, n, (off64_t)offset) : missing();
#ifdef CRASHPOINT_HAVE_PWRITEV2
        } else if (call == V_PWRITEV2) {
            REAL(pwritev2, fn);
            done = fn ? fn(fd, cut, n, (off_t)offset, flags) : missing();
        } else {
            REAL(pwritev64v2, fn);
            done = fn ? fn(fd, cut, n, (off64_t)offset, flags) : missing();
#endif
        }
        if (done < 0 && errno == EINTR)
            continue;
        break;
    }
    if (done >= 0 && (size_t)done < count) {
        /* short: the rest with plain writes, at the offset where the call stopped */
        size_t skip = (size_t)done;
        long long at = offset < 0 ? -1 : offset + done;
        for (int i = 0; i < n; i++) {
            if (skip >= cut[i].iov_len) {
                skip -= cut[i].iov_len;
                continue;
            }
            write_part(fd, (const char *)cut[i].iov_base + skip, cut[i].iov_len - skip, at);
            if (at >= 0)
                at += (long long)(cut[i].iov_len - skip);
            skip = 0;
        }
    }
    free(cut);
}

static long long vector_bytes(const struct iovec *iov, int iovcnt)
{
    long long total = 0;
    for (int i = 0; i < iovcnt && iov; i++)
        total += (long long)iov[i].iov_len;
    return total;
}

/* --- the wrappers ------------------------------------------------------------------------ */

ssize_t write(int fd, const void *buf, size_t count)
{
    REAL(write, fn);
    if (!fn)
        return missing();
    if (watching() && fd_event(fd, K_WRITE, (long long)count, -1, 1)) {
        write_part(fd, buf, count / 2, -1);
        die();
    }
    return fn(fd, buf, count);
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset)
{
    REAL(pwrite, fn);
    if (!fn)
        return missing();
    if (watching() && fd_event(fd, K_PWRITE, (long long)count, (long long)offset, 1)) {
        write_part(fd, buf, count / 2, (long long)offset);
        die();
    }
    return fn(fd, buf, count, offset);
}

ssize_t pwrite64(int fd, const void *buf, size_t count, off64_t offset)
{
    REAL(pwrite64, fn);
    if (!fn)
        return missing();
    if (watching() && fd_event(fd, K_PWRITE, (long long)count, (long long)offset, 1)) {
        write_part(fd, buf, count / 2, (long long)offset);
        die();
    }
    return fn(fd, buf, count, offset);
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
    REAL(writev, fn);
    if (!fn)
        return missing();
    if (watching()) {
        long long bytes = vector_bytes(iov, iovcnt);
        if (fd_event(fd, K_WRITEV, bytes, -1, 1)) {
            write_vector_part(V_WRITEV, fd, iov, iovcnt, (size_t)bytes / 2, -1, 0);
            die();
        }
    }
    return fn(fd, iov, iovcnt);
}

ssize_t pwritev(int fd, const struct iovec *iov, int iovcnt, off_t offset)
{
    REAL(pwritev, fn);
    if (!fn)
        return missing();
    if (watching()) {
        long long bytes = vector_bytes(iov, iovcnt);
        if (fd_event(fd, K_PWRITEV, bytes, (long long)offset, 1)) {
            write_vector_part(V_PWRITEV, fd, iov, iovcnt, (size_t)bytes / 2, (long long)offset, 0);
            die();
        }
    }
    return fn(fd, iov, iovcnt, offset);
}

ssize_t pwritev64(int fd, const struct iovec *iov, int iovcnt, off64_t offset)
{
    REAL(pwritev64, fn);
    if (!fn)
        return missing();
    if (watching()) {
        long long bytes = vector_bytes(iov, iovcnt);
        if (fd_event(fd, K_PWRITEV, bytes, (long long)offset, 1)) {
            write_vector_part(V_PWRITEV64, fd, iov, iovcnt, (size_t)bytes / 2, (long long)offset,
                              0);
            die();
        }
    }
    return fn(fd, iov, iovcnt, offset);
}

#ifdef CRASHPOINT_HAVE_PWRITEV2
/* offset -1 means the current file position, as for writev. */
ssize_t pwritev2(int fd, const struct iovec *iov, int iovcnt, off_t offset, int flags)
{
    REAL(pwritev2, fn);
    if (!fn)
        return missing();
    if (watching()) {
        long long bytes = vector_bytes(iov, iovcnt);
        if (fd_event(fd, K_PWRITEV, bytes, (long long)offset, 1)) {
            write_vector_part(V_PWRITEV2, fd, iov, iovcnt, (size_t)bytes / 2, (long long)offset,
                              flags);
            die();
        }
    }
    return fn(fd, iov, iovcnt, offset, flags);
}

ssize_t pwritev64v2(int fd, const struct iovec *iov, int iovcnt, off64_t offset, int flags)
{
    REAL(pwritev64v2, fn);
    if (!fn)
        return missing();
    if (watching()) {
        long long bytes = vector_bytes(iov, iovcnt);
        if (fd_event(fd, K_PWRITEV, bytes, (long long)offset, 1)) {
            write_vector_part(V_PWRITEV64V2, fd, iov, iovcnt, (size_t)bytes / 2, (long long)offset,
                              flags);
            die();
        }
    }
    return fn(fd, iov, iovcnt, offset, flags);
}
#endif

int ftruncate(int fd, off_t length)
{
    REAL(ftruncate, fn);
    if (!fn)
        return (int)missing();
    if (watching())
        fd_event(fd, K_FTRUNCATE, (long long)length, -1, 0);
    return fn(fd, length);
}

int ftruncate64(int fd, off64_t length)
{
    REAL(ftruncate64, fn);
    if (!fn)
        return (int)missing();
    if (watching())
        fd_event(fd, K_FTRUNCATE, (long long)length, -1, 0);
    return fn(fd, length);
}

int fallocate(int fd, int mode, off_t offset, off_t len)
{
    REAL(fallocate, fn);
    if (!fn)
        return (int)missing();
    if (watching())
        fd_event(fd, K_FALLOCATE, (long long)len, (long long)offset, 0);
    return fn(fd, mode, offset, len);
}

int fallocate64(int fd, int mode, off64_t offset, off64_t len)
{
    REAL(fallocate64, fn);
    if (!fn)
        return (int)missing();
    if (watching())
        fd_event(fd, K_FALLOCATE, (long long)len, (long long)offset, 0);
    return fn(fd, mode, offset, len);
}

/* posix_fallocate returns an error number and leaves errno alone. */
int posix_fallocate(int fd, off_t offset, off_t len)
{
    REAL(posix_fallocate, fn);
    if (!fn)
        return ENOSYS;
    if (watching())
        fd_event(fd, K_FALLOCATE, (long long)len, (long long)offset, 0);
    return fn(fd, offset, len);
}

int posix_fallocate64(int fd, off64_t offset, off64_t len)
{
    REAL(posix_fallocate64, fn);
    if (!fn)
        return ENOSYS;
    if (watching())
        fd_event(fd, K_FALLOCATE, (long long)len, (long long)offset, 0);
    return fn(fd, offset, len);
}

int rename(const char *from, const char *to)
{
    REAL(rename, fn);
    if (!fn)
        return (int)missing();
    if (watching())
        path_event(K_RENAME, AT_FDCWD, from, AT_FDCWD, to);
    return fn(from, to);
}

int renameat(int fromdir, const char *from, int todir, const char *to)
{
    REAL(renameat, fn);
    if (!fn)
        return (int)missing();
    if (watching())
        path_event(K_RENAME, fromdir, from, todir, to);
    return fn(fromdir, from, todir, to);
}

int renameat2(int fromdir, const char *from, int todir, const char *to, unsigned int flags)
{
    REAL(renameat2, fn);
    if (!fn)
        return (int)missing();
    if (watching())
        path_event(K_RENAME, fromdir, from, todir, to);
    return fn(fromdir, from, todir, to, flags);
}

int link(const char *from, const char *to)
{
    REAL(link, fn);
    if (!fn)
        return (int)missing();
    if (watching())
        path_event(K_LINK, AT_FDCWD, from, AT_FDCWD, to);
    return fn(from, to);
}

int linkat(int fromdir, const char *from, int todir, const char *to, int flags)
{
    REAL(linkat, fn);
    if (!fn)
        return (int)missing();
    if (watching())
        path_event(K_LINK, fromdir, from, todir, to);
    return fn(fromdir, from, todir, to, flags);
}

int unlink(const char *path)
{
    REAL(unlink, fn);
    if (!fn)
        return (int)missing();
    if (watching())
        path_event(K_UNLINK, AT_FDCWD, path, AT_FDCWD, NULL);
    return fn(path);
}

int unlinkat(int dirfd, const char *path, int flags)
{
    REAL(unlinkat, fn);
    if (!fn)
        return (int)missing();
    if (watching())
        path_event(K_UNLINK, dirfd, path, AT_FDCWD, NULL);
    return fn(dirfd, path, flags);
}

/* The mode argument exists only with O_CREAT or O_TMPFILE; reading it otherwise would
 * read garbage, harmless but undefined. */
static int needs_mode(int flags)
{
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

int open(const char *path, int flags, ...)
{
    REAL(open, fn);
    mode_t mode = 0;
    if (needs_mode(flags)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    if (!fn)
        return (int)missing();
    if ((flags & O_CREAT) && watching())
        creat_event(AT_FDCWD, path, flags);
    return fn(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
    REAL(open64, fn);
    mode_t mode = 0;
    if (needs_mode(flags)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    if (!fn)
        return (int)missing();
    if ((flags & O_CREAT) && watching())
        creat_event(AT_FDCWD, path, flags);
    return fn(path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
    REAL(openat, fn);
    mode_t mode = 0;
    if (needs_mode(flags)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    if (!fn)
        return (int)missing();
    if ((flags & O_CREAT) && watching())
        creat_event(dirfd, path, flags);
    return fn(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
    REAL(openat64, fn);
    mode_t mode = 0;
    if (needs_mode(flags)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    if (!fn)
        return (int)missing();
    if ((flags & O_CREAT) && watching())
        creat_event(dirfd, path, flags);
    return fn(dirfd, path, flags, mode);
}

int creat(const char *path, mode_t mode)
{
    REAL(creat, fn);
    if (!fn)
        return (int)missing();
    if (watching())
        creat_event(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC);
    return fn(path, mode);
}

int creat64(const char *path, mode_t mode)
{
    REAL(creat64, fn);
    if (!fn)
        return (int)missing();
    if (watching())
        creat_event(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC);
    return fn(path, mode);
}
