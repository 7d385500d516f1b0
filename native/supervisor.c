/*
 * probelet-supervisor: watches ONE process-runtime container, like containerd's shim or conmon,
 * so that the container outlives the agent that started it.
 *
 * The agent starts it detached (own session; it is not the agent's to reap once the agent is
 * gone) with the container spec on stdin. It forks the container into its own session and
 * process group, answers on stdout, then reads the container's stdout and stderr and writes them
 * into the container log in the CRI format, line-split exactly as the agent's own writer does
 * (src/runtime/process/cri-line-splitter.ts). Once the group leader has exited, the rest of its
 * group is killed, the pipes are drained (at most DRAIN_AFTER_EXIT_MS), the log is closed and the
 * exit is recorded in the state file (atomically: a temporary file, then rename), then it exits.
 *
 * Protocol (src/runtime/process/supervisor-protocol.ts is the other side):
 *   stdin  = "probelet-supervisor/4" NUL, then NUL-terminated fields: log path ("" = no log),
 *            state file path, working dir, executable path, max line size (decimal),
 *            argc (decimal), argv..., envc (decimal), "K=V" env entries..., then mount fields
 *            (decimal count, a multiple of 3): host path, container path, "ro" or "rw" for each
 *            mount; at most MAX_SPEC bytes. With mounts, the container gets a private mount
 *            namespace (unshare CLONE_NEWNS, "/" made MS_PRIVATE recursively) in which each host
 *            path is bind-mounted at its container path (missing mount points are created as
 *            empty directories, or empty files for a file source), read-only ones remounted
 *            MS_RDONLY. Last, the network namespace: "" (the agent's) or the absolute path of a
 *            bind-mounted namespace file, which the container joins (setns CLONE_NEWNET) before
 *            anything else, as runc joins a pod's netns path. Then the container's world
 *            (securityContext, see apply_world): uid ("" = the supervisor's own uid, gid and
 *            groups), gid, the supplementary groups (decimal count, then one decimal gid each),
 *            the capability set to keep ("" = unchanged, else hexadecimal bits: the bounding set
 *            and, for uid 0, the permitted and effective sets) and no_new_privs ("0" or "1").
 *   stdout = one line: "started <pid>\n", or "error <errno>\n" (the exec failed; nothing runs),
 *            "mounterror <errno>\n" (a mount failed; nothing runs),
 *            "netnserror <errno>\n" (the network namespace cannot be joined; nothing runs),
 *            "usererror <errno>\n" (the user, groups, capabilities or no_new_privs cannot be
 *            applied; nothing runs), "chdirerror <errno>\n" (the working directory cannot be
 *            entered as the container's user; nothing runs),
 *            "logerror <errno>\n" (the log file cannot be opened), or "invalid <what>\n" (bad spec)
 * Memory is bounded: the spec (MAX_SPEC), one read chunk, one output buffer, and at most
 * max line size + 2 bytes of an unfinished line per stream.
 *   state  = "code=<exit code>\n" or "signal=<signal number>\n", then "finished_at_ns=<unix ns>\n"
 * The agent stops a container by signalling its process group itself; SIGTERM or SIGINT sent to
 * the supervisor is forwarded to the group. SIGHUP reopens the log file at its path (CRI
 * ReopenContainerLog: the agent renamed it to rotate it); supervisors of protocol 3 ignore it.
 *
 * Exec mode: "probelet-supervisor enter PID START_TICKS JOIN UID GID GROUPS CAPS NNP CWD FILE
 * ARGV0 [ARG...]" runs FILE in the world of the running container whose leader is PID (checked
 * against its start time in /proc, so a recycled PID is never entered): it joins the leader's
 * mount and/or network namespace (JOIN: "mnt", "net", "mnt,net" or "-"), takes the container's
 * user, groups (comma-separated, "-" for none), capabilities (hexadecimal, "-" unchanged) and
 * no_new_privs ("1"), changes to CWD inside that world and execs FILE with the environment it was
 * given, as runc exec does for kubectl exec and exec probes. UID and GID are "-" to keep them.
 * A failure before the exec prints "probelet-supervisor: <step>: <error>" on stderr and exits
 * 126 (127 when FILE is missing), as a shell does for a command it cannot run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <linux/capability.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAGIC "probelet-supervisor/4"
#define MAX_SPEC (8u << 20)
#define MAX_ITEMS 65536
#define MAX_LINE_LIMIT (1u << 20)
#define READ_CHUNK 65536
#define OUT_BUF 65536
#define DRAIN_AFTER_EXIT_MS 2000

/* stream_t is one container output stream and its unfinished line (at most max_line + 2 bytes). */
typedef struct {
  int fd;             /* read end; -1 once closed */
  const char *name;   /* "stdout" or "stderr" */
  unsigned char *pending;
  size_t plen;
} stream_t;

static int log_fd = -1;     /* -1: output is discarded */
static int log_broken;      /* set after a write error: later output is dropped */
static size_t max_line;
static unsigned char out_buf[OUT_BUF];
static size_t out_len;
static char stamp[40];      /* the current chunk's "<timestamp> " */

static int64_t monotonic_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* write_all writes everything, retrying on EINTR and short writes; -1 on error. */
static int write_all(int fd, const void *data, size_t len) {
  const char *p = data;
  while (len > 0) {
    ssize_t n = write(fd, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

static void flush_out(void) {
  if (out_len > 0 && log_fd >= 0 && !log_broken && write_all(log_fd, out_buf, out_len) != 0) log_broken = 1;
  out_len = 0;
}

static void put(const void *data, size_t len) {
  const unsigned char *p = data;
  while (len > 0) {
    if (out_len == OUT_BUF) flush_out();
    size_t n = OUT_BUF - out_len < len ? OUT_BUF - out_len : len;
    memcpy(out_buf + out_len, p, n);
    out_len += n;
    p += n;
    len -= n;
  }
}

/* set_stamp formats the wall clock as Go's RFC3339Nano in UTC (trailing fraction zeros trimmed). */
static void set_stamp(void) {
  struct timespec ts;
  struct tm tm;
  clock_gettime(CLOCK_REALTIME, &ts);
  gmtime_r(&ts.tv_sec, &tm);
  size_t n = strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
  if (ts.tv_nsec != 0) {
    char frac[16];
    snprintf(frac, sizeof frac, ".%09ld", ts.tv_nsec);
    size_t f = strlen(frac);
    while (frac[f - 1] == '0') frac[--f] = '\0';
    memcpy(stamp + n, frac, f);
    n += f;
  }
  memcpy(stamp + n, "Z ", 3);
}

static void emit(const stream_t *s, char tag, const unsigned char *content, size_t len) {
  if (log_fd < 0 || log_broken) return;
  char head[16];
  int h = snprintf(head, sizeof head, "%s %c ", s->name, tag);
  put(stamp, strlen(stamp));
  put(head, (size_t)h);
  put(content, len);
  put("\n", 1);
}

static size_t effective_len(const stream_t *s) {
  return s->plen - (s->plen > 0 && s->pending[s->plen - 1] == '\r' ? 1 : 0);
}

/* hold appends part of a line (no "\n" in it); every max_line bytes beyond which the line is
 * known to go on become a P entry. A trailing "\r" does not count yet: it is dropped if "\n"
 * comes next. Between calls effective_len <= max_line, so plen <= max_line + 1. */
static void hold(stream_t *s, const unsigned char *p, size_t n) {
  while (n > 0) {
    size_t room = max_line + 2 - s->plen;
    size_t k = n < room ? n : room;
    memcpy(s->pending + s->plen, p, k);
    s->plen += k;
    p += k;
    n -= k;
    while (effective_len(s) > max_line) {
      emit(s, 'P', s->pending, max_line);
      memmove(s->pending, s->pending + max_line, s->plen - max_line);
      s->plen -= max_line;
    }
  }
}

/* feed cuts one chunk into entries: a line ends at "\n" (a "\r" before it is dropped). */
static void feed(stream_t *s, const unsigned char *p, size_t n) {
  while (n > 0) {
    const unsigned char *nl = memchr(p, '\n', n);
    size_t part = nl ? (size_t)(nl - p) : n;
    hold(s, p, part);
    if (!nl) return;
    size_t len = s->plen;
    if (len > 0 && s->pending[len - 1] == '\r') len--;
    emit(s, 'F', s->pending, len);
    s->plen = 0;
    p += part + 1;
    n -= part + 1;
  }
}

/* finish flushes an unfinished last line as P entries and closes the stream. */
static void finish(stream_t *s) {
  if (s->fd < 0) return;
  close(s->fd);
  s->fd = -1;
  set_stamp();
  size_t at = 0;
  while (s->plen - at > max_line) {
    emit(s, 'P', s->pending + at, max_line);
    at += max_line;
  }
  if (s->plen > at) emit(s, 'P', s->pending + at, s->plen - at);
  s->plen = 0;
  flush_out();
}

/* pump reads one chunk of a readable stream into the log; EOF or an error closes it. */
static void pump(stream_t *s) {
  static unsigned char chunk[READ_CHUNK];
  ssize_t n = read(s->fd, chunk, sizeof chunk);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) {
    finish(s);
    return;
  }
  set_stamp();
  feed(s, chunk, (size_t)n);
  flush_out();
}

/* world_t is who a container's processes run as and what they may do (its securityContext), the
 * same for the container and for every exec into it. */
typedef struct {
  int set_user;        /* 0: keep the supervisor's uid, gid and supplementary groups */
  uid_t uid;
  gid_t gid;
  gid_t *groups;       /* the supplementary groups, when set_user */
  size_t ngroups;
  int set_caps;        /* 0: keep the capability sets as they are */
  uint64_t caps;       /* the capabilities kept (bit n = capability n) */
  int no_new_privs;
} world_t;

/* reopen_log closes the log and opens its path again (the agent renamed the file to rotate it). A
 * log that cannot be opened again drops later output until the next successful reopen. */
static void reopen_log(const char *path) {
  if (path[0] == '\0') return;
  flush_out();
  if (log_fd >= 0) close(log_fd);
  log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
  log_broken = log_fd < 0;
}

/* spec_t is the parsed stdin spec; every string points into the spec buffer. */
typedef struct {
  const char *log_path, *state_path, *cwd, *file;
  char **argv, **envp;
  char **mounts; /* triples: host path, container path, "ro" | "rw" */
  const char *netns; /* "" or the namespace file to join */
  world_t world;
} spec_t;

static char *spec_buf;
static size_t spec_len, spec_at;

static const char *next_field(void) {
  if (spec_at >= spec_len) return NULL;
  char *start = spec_buf + spec_at;
  char *nul = memchr(start, '\0', spec_len - spec_at);
  if (!nul) return NULL;
  spec_at = (size_t)(nul - spec_buf) + 1;
  return start;
}

static int parse_count(const char *text, unsigned long limit, unsigned long *out) {
  if (!text || *text == '\0') return -1;
  char *end;
  errno = 0;
  unsigned long v = strtoul(text, &end, 10);
  if (errno != 0 || *end != '\0' || v > limit || text[0] == '-') return -1;
  *out = v;
  return 0;
}

/* parse_id reads a uid or gid: a decimal below 2^31 (the API server's range for runAsUser). */
static int parse_id(const char *text, unsigned int *out) {
  unsigned long v;
  if (parse_count(text, 0x7fffffffUL, &v) != 0) return -1;
  *out = (unsigned int)v;
  return 0;
}

/* parse_caps reads a capability set: 1 to 16 hexadecimal digits. */
static int parse_caps(const char *text, uint64_t *out) {
  size_t n = text ? strlen(text) : 0;
  if (n == 0 || n > 16 || strspn(text, "0123456789abcdef") != n) return -1;
  *out = strtoull(text, NULL, 16);
  return 0;
}

/* parse_world reads the world fields of a spec (uid "" = keep the supervisor's identity). */
static const char *parse_world(world_t *w, const char *uid, const char *gid, char **groups, const char *caps, const char *nnp) {
  memset(w, 0, sizeof *w);
  if (!uid || !gid || !groups || !caps || !nnp) return "world";
  if (uid[0] != '\0') {
    unsigned int u, g;
    if (parse_id(uid, &u) != 0 || parse_id(gid, &g) != 0) return "user";
    w->set_user = 1;
    w->uid = u;
    w->gid = g;
    while (groups[w->ngroups]) w->ngroups++;
    w->groups = calloc(w->ngroups + 1, sizeof *w->groups);
    if (!w->groups) return "memory";
    for (size_t i = 0; i < w->ngroups; i++) {
      unsigned int v;
      if (parse_id(groups[i], &v) != 0) return "groups";
      w->groups[i] = v;
    }
  } else if (gid[0] != '\0' || groups[0]) {
    return "user";
  }
  if (caps[0] != '\0') {
    if (parse_caps(caps, &w->caps) != 0) return "capabilities";
    w->set_caps = 1;
  }
  if (strcmp(nnp, "0") != 0 && strcmp(nnp, "1") != 0) return "no_new_privs";
  w->no_new_privs = nnp[0] == '1';
  return NULL;
}

static char **read_list(unsigned long min) {
  unsigned long n;
  if (parse_count(next_field(), MAX_ITEMS, &n) != 0 || n < min) return NULL;
  char **list = calloc(n + 1, sizeof *list);
  if (!list) return NULL;
  for (unsigned long i = 0; i < n; i++) {
    const char *f = next_field();
    if (!f) return NULL;
    list[i] = (char *)f;
  }
  return list;
}

/* read_spec reads stdin to EOF (bounded) and parses it; returns what is wrong, or NULL. */
static const char *read_spec(spec_t *spec) {
  size_t cap = 65536;
  spec_buf = malloc(cap);
  if (!spec_buf) return "memory";
  for (;;) {
    if (spec_len == cap) {
      if (cap >= MAX_SPEC) return "spec too large";
      cap *= 2;
      char *grown = realloc(spec_buf, cap);
      if (!grown) return "memory";
      spec_buf = grown;
    }
    ssize_t n = read(0, spec_buf + spec_len, cap - spec_len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return "spec unreadable";
    if (n == 0) break;
    spec_len += (size_t)n;
  }
  const char *magic = next_field();
  if (!magic || strcmp(magic, MAGIC) != 0) return "protocol";
  spec->log_path = next_field();
  spec->state_path = next_field();
  spec->cwd = next_field();
  spec->file = next_field();
  unsigned long line;
  if (!spec->log_path || !spec->state_path || !spec->cwd || !spec->file) return "fields";
  if (spec->state_path[0] == '\0' || spec->file[0] == '\0') return "fields";
  if (parse_count(next_field(), MAX_LINE_LIMIT, &line) != 0 || line == 0) return "max line";
  max_line = line;
  if (!(spec->argv = read_list(1))) return "argv";
  if (!(spec->envp = read_list(0))) return "env";
  if (!(spec->mounts = read_list(0))) return "mounts";
  size_t fields = 0;
  while (spec->mounts[fields]) fields++;
  if (fields % 3 != 0) return "mounts";
  for (size_t i = 0; i < fields; i += 3) {
    if (spec->mounts[i][0] != '/' || spec->mounts[i + 1][0] != '/') return "mounts";
    if (strcmp(spec->mounts[i + 2], "ro") != 0 && strcmp(spec->mounts[i + 2], "rw") != 0) return "mounts";
  }
  spec->netns = next_field();
  if (!spec->netns || (spec->netns[0] != '\0' && spec->netns[0] != '/')) return "netns";
  const char *uid = next_field(), *gid = next_field();
  char **groups = read_list(0);
  const char *caps = next_field(), *nnp = next_field();
  const char *bad = parse_world(&spec->world, uid, gid, groups, caps, nnp);
  if (bad) return bad;
  if (spec_at != spec_len) return "trailing data";
  return NULL;
}

static void reply(const char *text) {
  if (write_all(1, text, strlen(text)) != 0) _exit(1);
}

/* close_extra_fds closes every descriptor above stderr that the agent may have leaked to us. */
static void close_extra_fds(void) {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0) return;
#endif
  long max = sysconf(_SC_OPEN_MAX);
  if (max < 0 || max > 65536) max = 65536;
  for (int fd = 3; fd < max; fd++) close(fd);
}

/* write_state records the exit atomically: a temporary file beside it, fsync, rename. */
static void write_state(const char *path, int status, const struct timespec *finished) {
  char tmp[4096];
  if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) return;
  char text[128];
  int n = WIFSIGNALED(status)
              ? snprintf(text, sizeof text, "signal=%d\n", WTERMSIG(status))
              : snprintf(text, sizeof text, "code=%d\n", WEXITSTATUS(status));
  n += snprintf(text + n, sizeof text - (size_t)n, "finished_at_ns=%lld\n",
                (long long)finished->tv_sec * 1000000000LL + finished->tv_nsec);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
  if (fd < 0) return;
  int ok = write_all(fd, text, (size_t)n) == 0 && fsync(fd) == 0;
  close(fd);
  if (!ok || rename(tmp, path) != 0) unlink(tmp);
}

/* make_parents creates the missing directories above path (like mkdir -p of its dirname). */
static int make_parents(const char *path) {
  char buf[4096];
  size_t len = strlen(path);
  if (len >= sizeof buf) return ENAMETOOLONG;
  memcpy(buf, path, len + 1);
  for (size_t i = 1; i < len; i++) {
    if (buf[i] != '/') continue;
    buf[i] = '\0';
    if (mkdir(buf, 0755) != 0 && errno != EEXIST) return errno;
    buf[i] = '/';
  }
  return 0;
}

/* make_mount_point creates target like source: a directory, or an empty file. */
static int make_mount_point(const char *source, const char *target) {
  struct stat src, dst;
  if (stat(source, &src) != 0) return errno;
  if (stat(target, &dst) == 0) return 0;
  int err = make_parents(target);
  if (err) return err;
  if (S_ISDIR(src.st_mode)) return mkdir(target, 0755) == 0 || errno == EEXIST ? 0 : errno;
  int fd = open(target, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  close(fd);
  return 0;
}

/* setup_mounts gives the child its own mount namespace with the spec's bind mounts; 0 or an errno. */
static int setup_mounts(const spec_t *spec) {
  if (!spec->mounts[0]) return 0;
  if (unshare(CLONE_NEWNS) != 0) return errno;
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) return errno;
  for (size_t i = 0; spec->mounts[i]; i += 3) {
    const char *source = spec->mounts[i], *target = spec->mounts[i + 1];
    int err = make_mount_point(source, target);
    if (err) return err;
    if (mount(source, target, NULL, MS_BIND | MS_REC, NULL) != 0) return errno;
    if (strcmp(spec->mounts[i + 2], "ro") == 0 &&
        mount(NULL, target, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_REC, NULL) != 0)
      return errno;
  }
  return 0;
}

/* join_netns moves the child into the spec's network namespace, if any; 0 or an errno. */
static int join_netns(const spec_t *spec) {
  if (spec->netns[0] == '\0') return 0;
  int fd = open(spec->netns, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  int err = setns(fd, CLONE_NEWNET) == 0 ? 0 : errno;
  close(fd);
  return err;
}

/* last_cap is the highest capability this kernel knows (/proc/sys/kernel/cap_last_cap). */
static int last_cap(void) {
  int cap = 40;
  int fd = open("/proc/sys/kernel/cap_last_cap", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    char text[16] = {0};
    if (read(fd, text, sizeof text - 1) > 0) cap = atoi(text);
    close(fd);
  }
  return cap > 0 && cap < 64 ? cap : 40;
}

/* apply_world makes the calling process the container's user with its capabilities, as runc's
 * init does (finalizeNamespace): the bounding set first, then groups, gid and uid, then the
 * permitted and effective sets (a uid other than 0 has none left after setuid, as with
 * containerd), then no_new_privs. 0 or an errno; *step names what failed. */
static int apply_world(const world_t *w, const char **step) {
  if (w->set_caps) {
    *step = "capabilities";
    int last = last_cap();
    for (int cap = 0; cap <= last; cap++) {
      if (w->caps & (1ULL << cap)) continue;
      if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) return errno;
    }
  }
  if (w->set_user) {
    *step = "user";
    if (setgroups(w->ngroups, w->groups) != 0) return errno;
    if (setresgid(w->gid, w->gid, w->gid) != 0) return errno;
    if (setresuid(w->uid, w->uid, w->uid) != 0) return errno;
  }
  if (w->set_caps) {
    *step = "capabilities";
    uint64_t keep = geteuid() == 0 ? w->caps : 0;
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    data[0].effective = data[0].permitted = (uint32_t)keep;
    data[1].effective = data[1].permitted = (uint32_t)(keep >> 32);
    if (syscall(SYS_capset, &header, data) != 0) return errno;
  }
  if (w->no_new_privs) {
    *step = "no_new_privs";
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
  }
  return 0;
}

/* report_t is what a child that could not exec tells its supervisor: the step and its errno. */
typedef struct {
  int stage; /* STAGE_* */
  int err;
} report_t;

enum { STAGE_EXEC, STAGE_MOUNT, STAGE_NETNS, STAGE_USER, STAGE_CHDIR };

static void child_exec(const spec_t *spec, int out_w, int err_w, int report_w) {
  sigset_t none;
  sigemptyset(&none);
  signal(SIGPIPE, SIG_DFL);
  sigprocmask(SIG_SETMASK, &none, NULL);
  report_t report = {STAGE_EXEC, 0};
  int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (setsid() < 0 || devnull < 0 || dup2(devnull, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0) report.err = errno;
  if (!report.err && (report.err = join_netns(spec)) != 0) report.stage = STAGE_NETNS;
  if (!report.err && (report.err = setup_mounts(spec)) != 0) report.stage = STAGE_MOUNT;
  const char *step = "";
  if (!report.err && (report.err = apply_world(&spec->world, &step)) != 0) report.stage = STAGE_USER;
  if (!report.err && chdir(spec->cwd) != 0) {
    report.err = errno;
    report.stage = STAGE_CHDIR;
  }
  if (!report.err) {
    execve(spec->file, spec->argv, spec->envp);
    report.err = errno;
  }
  (void)write_all(report_w, &report, sizeof report);
  _exit(127);
}

/* enter_fail says on stderr why an exec into a container did not start; returns the exit status. */
static int enter_fail(const char *step, int err) {
  char text[256];
  int n = snprintf(text, sizeof text, "probelet-supervisor: %s: %s\n", step, strerror(err));
  if (n > 0) (void)write_all(2, text, (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
  return err == ENOENT && strcmp(step, "exec") == 0 ? 127 : 126;
}

/* start_ticks_at reads a process's start time (field 22 of stat) through its /proc directory. */
static long long start_ticks_at(int dir) {
  int fd = openat(dir, "stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[1024];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return -1;
  buf[n] = '\0';
  char *p = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
  if (!p || p[1] != ' ') return -1;
  p += 2; /* field 3 */
  for (int field = 3; field < 22; field++) {
    p = strchr(p, ' ');
    if (!p) return -1;
    p++;
  }
  char *end;
  long long ticks = strtoll(p, &end, 10);
  return end == p ? -1 : ticks;
}

/* split_list cuts a comma-separated argument into a NULL-terminated list ("-" is the empty list). */
static char **split_list(char *text) {
  size_t n = 0;
  if (strcmp(text, "-") != 0) {
    n = 1;
    for (const char *c = text; *c; c++) n += *c == ',';
  }
  char **list = calloc(n + 1, sizeof *list);
  if (!list || n == 0) return list;
  size_t i = 0;
  for (char *part = strtok(text, ","); part && i < n; part = strtok(NULL, ",")) list[i++] = part;
  return list;
}

/* enter runs a command in a running container's world (the exec mode described at the top). */
static int enter(int argc, char **argv) {
  if (argc < 11) return enter_fail("usage", EINVAL);
  unsigned long pid;
  if (parse_count(argv[0], 0x7fffffffUL, &pid) != 0 || pid == 0) return enter_fail("container pid", EINVAL);
  const char *join = argv[2], *cwd = argv[8], *file = argv[9];
  int want_mnt = strcmp(join, "mnt") == 0 || strcmp(join, "mnt,net") == 0;
  int want_net = strcmp(join, "net") == 0 || strcmp(join, "mnt,net") == 0;
  if (!want_mnt && !want_net && strcmp(join, "-") != 0) return enter_fail("namespaces", EINVAL);
  world_t world;
  char *none[] = {NULL};
  char **groups = split_list(argv[5]);
  const char *uid = strcmp(argv[3], "-") == 0 ? "" : argv[3], *gid = strcmp(argv[4], "-") == 0 ? "" : argv[4];
  const char *caps = strcmp(argv[6], "-") == 0 ? "" : argv[6];
  if (!groups || parse_world(&world, uid, gid, uid[0] ? groups : none, caps, argv[7]) != NULL) return enter_fail("security context", EINVAL);
  /* The leader's /proc directory, held open: if the PID is recycled after the start time matched,
   * the directory still names the old (gone) process and its namespaces cannot be opened. */
  char path[64];
  snprintf(path, sizeof path, "/proc/%lu", pid);
  int dir = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return enter_fail("container", ESRCH);
  char *end;
  long long want = strtoll(argv[1], &end, 10);
  if (*end != '\0' || start_ticks_at(dir) != want) return enter_fail("container", ESRCH);
  int net = -1, mnt = -1;
  if (want_net && (net = openat(dir, "ns/net", O_RDONLY | O_CLOEXEC)) < 0) return enter_fail("network namespace", errno);
  if (want_mnt && (mnt = openat(dir, "ns/mnt", O_RDONLY | O_CLOEXEC)) < 0) return enter_fail("mount namespace", errno);
  close(dir);
  if (net >= 0 && setns(net, CLONE_NEWNET) != 0) return enter_fail("network namespace", errno);
  if (mnt >= 0 && setns(mnt, CLONE_NEWNS) != 0) return enter_fail("mount namespace", errno);
  if (net >= 0) close(net);
  if (mnt >= 0) close(mnt);
  const char *step = "";
  int err = apply_world(&world, &step);
  if (err) return enter_fail(step, err);
  if (chdir(cwd) != 0) return enter_fail("chdir", errno);
  extern char **environ;
  execve(file, argv + 10, environ);
  return enter_fail("exec", errno);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "enter") == 0) return enter(argc - 2, argv + 2);
  close_extra_fds();
  spec_t spec;
  const char *problem = read_spec(&spec);
  if (problem) {
    char text[64];
    snprintf(text, sizeof text, "invalid %s\n", problem);
    reply(text);
    return 2;
  }
  if (spec.log_path[0] != '\0') {
    log_fd = open(spec.log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
    if (log_fd < 0) {
      char text[64];
      snprintf(text, sizeof text, "logerror %d\n", errno);
      reply(text);
      return 1;
    }
  }
  signal(SIGPIPE, SIG_IGN);
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGCHLD);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGHUP);
  sigprocmask(SIG_BLOCK, &mask, NULL);
  int sig_fd = signalfd(-1, &mask, SFD_CLOEXEC);
  int out_p[2], err_p[2], report_p[2];
  if (sig_fd < 0 || pipe2(out_p, O_CLOEXEC) != 0 || pipe2(err_p, O_CLOEXEC) != 0 || pipe2(report_p, O_CLOEXEC) != 0) {
    char text[64];
    snprintf(text, sizeof text, "error %d\n", errno);
    reply(text);
    return 1;
  }
  pid_t pid = fork();
  if (pid < 0) {
    char text[64];
    snprintf(text, sizeof text, "error %d\n", errno);
    reply(text);
    return 1;
  }
  if (pid == 0) child_exec(&spec, out_p[1], err_p[1], report_p[1]);
  close(out_p[1]);
  close(err_p[1]);
  close(report_p[1]);
  report_t report = {STAGE_EXEC, 0};
  ssize_t got;
  do got = read(report_p[0], &report, sizeof report);
  while (got < 0 && errno == EINTR);
  close(report_p[0]);
  if (got > 0) {
    static const char *const words[] = {"error", "mounterror", "netnserror", "usererror", "chdirerror"};
    char text[64];
    snprintf(text, sizeof text, "%s %d\n", words[report.stage], report.err);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
    reply(text);
    return 1;
  }
  char text[64];
  snprintf(text, sizeof text, "started %d\n", (int)pid);
  reply(text);
  /* From here on nobody reads our stdio: point it at /dev/null so no write can block or fail. */
  int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (devnull >= 0) {
    dup2(devnull, 0);
    dup2(devnull, 1);
    close(devnull);
  }

  stream_t streams[2] = {{out_p[0], "stdout", malloc(max_line + 2), 0}, {err_p[0], "stderr", malloc(max_line + 2), 0}};
  if (!streams[0].pending || !streams[1].pending) {
    kill(-pid, SIGKILL);
    return 1;
  }
  int exited = 0, status = 0;
  struct timespec finished = {0, 0};
  int64_t drain_until = 0;
  for (;;) {
    int open_streams = (streams[0].fd >= 0) + (streams[1].fd >= 0);
    if (exited && (open_streams == 0 || monotonic_ms() >= drain_until)) break;
    struct pollfd fds[3] = {{sig_fd, POLLIN, 0}, {streams[0].fd, POLLIN, 0}, {streams[1].fd, POLLIN, 0}};
    int timeout = exited ? (int)(drain_until - monotonic_ms()) : -1;
    if (exited && timeout < 0) timeout = 0;
    int ready = poll(fds, 3, timeout);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) break;
    if (fds[0].revents & POLLIN) {
      struct signalfd_siginfo info;
      ssize_t n = read(sig_fd, &info, sizeof info);
      if (n == (ssize_t)sizeof info && (info.ssi_signo == SIGTERM || info.ssi_signo == SIGINT) && !exited) {
        kill(-pid, (int)info.ssi_signo);
      }
      if (n == (ssize_t)sizeof info && info.ssi_signo == SIGHUP) reopen_log(spec.log_path);
    }
    if (!exited) {
      pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid) {
        exited = 1;
        clock_gettime(CLOCK_REALTIME, &finished);
        kill(-pid, SIGKILL); /* the rest of the group goes with its leader */
        drain_until = monotonic_ms() + DRAIN_AFTER_EXIT_MS;
      }
    }
    for (int i = 0; i < 2; i++) {
      if (streams[i].fd >= 0 && (fds[i + 1].revents & (POLLIN | POLLHUP | POLLERR))) pump(&streams[i]);
    }
  }
  if (!exited) {
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    clock_gettime(CLOCK_REALTIME, &finished);
  }
  finish(&streams[0]);
  finish(&streams[1]);
  if (log_fd >= 0) close(log_fd);
  write_state(spec.state_path, status, &finished);
  return 0;
}
