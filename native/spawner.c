/*
 * probelet-spawner: a small long-lived helper that runs exec-probe commands for the Node agent.
 *
 * Why: child_process.spawn forks the whole Node process from the event loop. Here a command is
 * started with clone(CLONE_VM|CLONE_VFORK), as the Go kubelet's os/exec does, so one exec costs
 * a fraction of the CPU and Node's event loop only does one pipe write and one read.
 *
 * Protocol (stdin -> requests, stdout -> responses; integers are little-endian u32 unless said):
 *   request  = len op(u8) id [RUN: timeout_ms cap argc envc has_cwd str*] ; str = len bytes
 *              op 1 = RUN (argv, "K=V" env entries, optional cwd), op 2 = KILL id (abort)
 *   response = len id status(u8) code(i32) stdout_len stdout stderr_len stderr cpu_us
 *              status: 0 exited (code = exit status, or 128+signal), 1 timed out, 2 aborted,
 *              3 spawn failed (code = errno), 4 cwd unusable (code = errno), 5 bad request
 *              cpu_us: the user + system CPU of the group leader and of the children it waited
 *              for (wait4's rusage), in microseconds, saturated at UINT32_MAX; 0 when none ran
 *
 * Each command runs in a new process group. On timeout or KILL the whole group gets SIGKILL.
 * When the group leader exits, the rest of its group is killed too (clean exec probes: no
 * orphans), then the pipes are drained until EOF, at most POST_EXIT_DRAIN_MS and never past
 * the deadline; the leader's exit status is the result. The helper is a child subreaper, so
 * grandchildren orphaned by those kills are reaped here: no zombies. Stdin EOF (or SIGTERM)
 * kills every running group, reaps them and exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define POST_EXIT_DRAIN_MS 1000
#define MAX_FRAME (16u << 20)
#define DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

enum { ST_EXITED, ST_TIMEOUT, ST_ABORTED, ST_SPAWN_ERR, ST_CWD_ERR, ST_BAD_REQUEST };

typedef struct req {
  uint32_t id, cap;
  pid_t pid;             /* group leader; 0 once reaped */
  int fds[2];            /* stdout, stderr read ends; -1 once closed */
  char *buf[2];          /* captured bytes, at most cap each */
  uint32_t len[2];
  int64_t deadline;      /* monotonic ms; 0 = none */
  int64_t drain_until;   /* set when the leader is reaped */
  int status, code;      /* ST_* and exit code */
  uint32_t cpu_us;       /* the leader's user + system CPU, set when it is reaped */
  struct req *next;
} req_t;

typedef struct { char *data; size_t len, size; } bytes_t;

static req_t *reqs;
static bytes_t in, out;
static int stdin_open = 1;

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void reserve(bytes_t *b, size_t extra) {
  if (b->len + extra <= b->size) return;
  size_t size = b->size ? b->size : 4096;
  while (size < b->len + extra) size *= 2;
  b->data = realloc(b->data, size);
  if (!b->data) abort();
  b->size = size;
}

static void put(bytes_t *b, const void *p, size_t n) { reserve(b, n); memcpy(b->data + b->len, p, n); b->len += n; }
static void put_u32(bytes_t *b, uint32_t v) { uint8_t x[4] = {v, v >> 8, v >> 16, v >> 24}; put(b, x, 4); }
static uint32_t get_u32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

static void respond(uint32_t id, int status, int code, const req_t *r) {
  uint32_t l0 = r ? r->len[0] : 0, l1 = r ? r->len[1] : 0;
  put_u32(&out, 4 + 1 + 4 + 4 + l0 + 4 + l1 + 4);
  put_u32(&out, id);
  uint8_t st = (uint8_t)status;
  put(&out, &st, 1);
  put_u32(&out, (uint32_t)code);
  put_u32(&out, l0);
  if (l0) put(&out, r->buf[0], l0);
  put_u32(&out, l1);
  if (l1) put(&out, r->buf[1], l1);
  put_u32(&out, r ? r->cpu_us : 0);
}

static void close_fd(req_t *r, int i) {
  if (r->fds[i] >= 0) close(r->fds[i]);
  r->fds[i] = -1;
}

/* drain reads what a pipe holds without blocking; bytes past the cap are read and dropped. */
static void drain(req_t *r, int i) {
  char scratch[16384];
  while (r->fds[i] >= 0) {
    ssize_t n = read(r->fds[i], scratch, sizeof scratch);
    if (n > 0) {
      uint32_t room = r->cap - r->len[i];
      uint32_t keep = (uint32_t)n < room ? (uint32_t)n : room;
      memcpy(r->buf[i] + r->len[i], scratch, keep);
      r->len[i] += keep;
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      if (n < 0 && errno == EAGAIN) return;
      close_fd(r, i); /* EOF or a read error */
    }
  }
}

/* spawn_args is shared with the vfork child (CLONE_VM): the child writes `err` if it cannot exec. */
typedef struct {
  char **argv, **envp;
  int out_w, err_w, dirfd;
  volatile int err;
} spawn_args_t;

static int devnull = -1;
static char child_stack[64 * 1024] __attribute__((aligned(16)));

/* exec_child runs in the vfork child, on its own stack but in the helper's memory: it only
 * makes system calls and uses async-signal-safe string functions. It starts a new process group, wires /dev/null and the two pipes, enters
 * the working directory, restores default signal handling and execs argv[0] like execvp (a name
 * without "/" is searched in the command's own PATH). glibc's posix_spawn would do the same but
 * with ~120 sigaction calls per spawn; this child needs five. */
static int exec_child(void *p) {
  spawn_args_t *a = p;
  struct sigaction dfl;
  sigset_t none;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&none);
  if (setpgid(0, 0) < 0 || dup2(devnull, 0) < 0 || dup2(a->out_w, 1) < 0 || dup2(a->err_w, 2) < 0) goto fail;
  if (a->dirfd >= 0 && fchdir(a->dirfd) < 0) goto fail;
  prctl(PR_SET_PDEATHSIG, SIGKILL); /* if the helper itself dies, its leaders die with it */
  sigaction(SIGPIPE, &dfl, NULL); /* the only dispositions the helper changed */
  sigaction(SIGINT, &dfl, NULL);
  sigprocmask(SIG_SETMASK, &none, NULL);
  const char *file = a->argv[0];
  if (strchr(file, '/')) {
    execve(file, a->argv, a->envp);
    goto fail;
  }
  const char *path = DEFAULT_PATH;
  for (char **e = a->envp; *e; e++)
    if (strncmp(*e, "PATH=", 5) == 0) path = *e + 5;
  char full[4096];
  size_t nlen = strlen(file);
  int eacces = 0;
  for (;;) {
    const char *end = strchrnul(path, ':');
    size_t dlen = end > path ? (size_t)(end - path) : 1;
    if (dlen + nlen + 2 <= sizeof full) {
      memcpy(full, end > path ? path : ".", dlen);
      full[dlen] = '/';
      memcpy(full + dlen + 1, file, nlen + 1);
      execve(full, a->argv, a->envp);
      if (errno == EACCES) eacces = 1;
      else if (errno != ENOENT && errno != ENOTDIR) goto fail;
    }
    if (!*end) break;
    path = end + 1;
  }
  errno = eacces ? EACCES : ENOENT;
fail:
  a->err = errno ? errno : EINVAL;
  _exit(127);
}

static void start(uint32_t id, uint32_t timeout_ms, uint32_t cap, char **argv, char **envp, const char *cwd) {
  int dirfd = -1, p_out[2] = {-1, -1}, p_err[2] = {-1, -1};
  if (cwd && (dirfd = open(cwd, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
    respond(id, ST_CWD_ERR, errno, NULL);
    return;
  }
  if (pipe2(p_out, O_CLOEXEC) < 0 || pipe2(p_err, O_CLOEXEC) < 0) {
    int e = errno;
    for (int i = 0; i < 2; i++) { if (p_out[i] >= 0) close(p_out[i]); if (p_err[i] >= 0) close(p_err[i]); }
    if (dirfd >= 0) close(dirfd);
    respond(id, ST_SPAWN_ERR, e, NULL);
    return;
  }
  spawn_args_t args = {.argv = argv, .envp = envp, .out_w = p_out[1], .err_w = p_err[1], .dirfd = dirfd, .err = 0};
  sigset_t all, old;
  sigfillset(&all);
  sigprocmask(SIG_SETMASK, &all, &old); /* no signal may run in the child while it shares our memory */
  pid_t pid = clone(exec_child, child_stack + sizeof child_stack, CLONE_VM | CLONE_VFORK | SIGCHLD, &args);
  int err = pid < 0 ? errno : args.err;
  sigprocmask(SIG_SETMASK, &old, NULL);
  close(p_out[1]);
  close(p_err[1]);
  if (dirfd >= 0) close(dirfd);
  if (err) {
    if (pid > 0) while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
    close(p_out[0]);
    close(p_err[0]);
    respond(id, ST_SPAWN_ERR, err, NULL);
    return;
  }
  req_t *r = calloc(1, sizeof *r);
  if (!r) abort();
  r->id = id;
  r->cap = cap;
  r->pid = pid;
  r->fds[0] = p_out[0];
  r->fds[1] = p_err[0];
  for (int i = 0; i < 2; i++) {
    fcntl(r->fds[i], F_SETFL, O_NONBLOCK);
    r->buf[i] = malloc(cap ? cap : 1);
    if (!r->buf[i]) abort();
  }
  r->deadline = timeout_ms ? now_ms() + timeout_ms : 0;
  r->status = ST_EXITED;
  r->next = reqs;
  reqs = r;
}

static void kill_group(req_t *r, int status) {
  if (r->pid > 0 && r->status == ST_EXITED) {
    kill(-r->pid, SIGKILL);
    r->status = status;
  }
}

/* handle_frame decodes one request; a malformed one is answered with ST_BAD_REQUEST. */
static void handle_frame(const uint8_t *p, uint32_t n) {
  if (n < 5) return;
  uint8_t op = p[0];
  uint32_t id = get_u32(p + 1);
  if (op == 2) {
    for (req_t *r = reqs; r; r = r->next)
      if (r->id == id) kill_group(r, ST_ABORTED);
    return;
  }
  if (op != 1 || n < 25) { respond(id, ST_BAD_REQUEST, 0, NULL); return; }
  uint32_t timeout_ms = get_u32(p + 5), cap = get_u32(p + 9), argc = get_u32(p + 13), envc = get_u32(p + 17);
  uint32_t has_cwd = get_u32(p + 21), total = argc + envc + (has_cwd ? 1 : 0), off = 25;
  if (argc == 0 || total > n || cap > (64u << 20)) { respond(id, ST_BAD_REQUEST, 0, NULL); return; }
  char **strs = calloc(total + 2, sizeof *strs); /* argv NULL, envp NULL */
  if (!strs) abort();
  int ok = 1;
  for (uint32_t i = 0; i < total && ok; i++) {
    if (off + 4 > n || get_u32(p + off) > n - off - 4) { ok = 0; break; }
    uint32_t len = get_u32(p + off);
    strs[i < argc ? i : i + 1] = strndup((const char *)p + off + 4, len);
    off += 4 + len;
  }
  if (ok) {
    char **argv = strs, **envp = strs + argc + 1;
    const char *cwd = has_cwd ? strs[total] : NULL;
    if (has_cwd) strs[total] = NULL; /* terminates envp */
    start(id, timeout_ms, cap, argv, envp, cwd);
    free((void *)cwd);
  } else {
    respond(id, ST_BAD_REQUEST, 0, NULL);
  }
  for (uint32_t i = 0; i < total + 2; i++) free(strs[i]);
  free(strs);
}

/* reap collects every exited child; a group leader's group is killed before its PID is freed. */
static void reap(void) {
  for (;;) {
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid == 0) return;
    pid_t pid = si.si_pid;
    req_t *r = reqs;
    while (r && r->pid != pid) r = r->next;
    if (r) kill(-pid, SIGKILL); /* leader gone: no orphans left behind in its group */
    int ws = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    while (wait4(pid, &ws, 0, &ru) < 0 && errno == EINTR) {}
    if (!r) continue; /* an adopted orphan */
    r->pid = 0;
    uint64_t us = (uint64_t)ru.ru_utime.tv_sec * 1000000u + (uint64_t)ru.ru_utime.tv_usec
                + (uint64_t)ru.ru_stime.tv_sec * 1000000u + (uint64_t)ru.ru_stime.tv_usec;
    r->cpu_us = us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
    r->code = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    int64_t t = now_ms();
    r->drain_until = r->status == ST_EXITED ? t + POST_EXIT_DRAIN_MS : t;
    if (r->status == ST_EXITED && r->deadline && r->deadline < r->drain_until) r->drain_until = r->deadline;
  }
}

/* settle answers requests whose leader is reaped and whose pipes are closed or past draining. */
static void settle(int64_t t) {
  for (req_t **pp = &reqs; *pp;) {
    req_t *r = *pp;
    if (r->pid > 0 && r->deadline && t >= r->deadline) kill_group(r, ST_TIMEOUT);
    if (r->pid == 0 && t >= r->drain_until) {
      for (int i = 0; i < 2; i++) { drain(r, i); close_fd(r, i); }
    }
    if (r->pid == 0 && r->fds[0] < 0 && r->fds[1] < 0) {
      if (stdin_open) respond(r->id, r->status, r->code, r);
      *pp = r->next;
      free(r->buf[0]);
      free(r->buf[1]);
      free(r);
    } else {
      pp = &r->next;
    }
  }
}

static void read_requests(void) {
  reserve(&in, 65536);
  ssize_t n = read(0, in.data + in.len, in.size - in.len);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) {
    stdin_open = 0;
    for (req_t *r = reqs; r; r = r->next) kill_group(r, ST_ABORTED);
    return;
  }
  in.len += (size_t)n;
  size_t at = 0;
  while (in.len - at >= 4) {
    uint32_t flen = get_u32((uint8_t *)in.data + at);
    if (flen > MAX_FRAME) _exit(2); /* the stream is corrupt: give up, the agent restarts us */
    if (in.len - at - 4 < flen) break;
    handle_frame((uint8_t *)in.data + at + 4, flen);
    at += 4 + flen;
  }
  memmove(in.data, in.data + at, in.len - at);
  in.len -= at;
}

static void flush_responses(void) {
  while (out.len) {
    ssize_t n = write(1, out.data, out.len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n < 0) { out.len = 0; stdin_open = 0; return; } /* the agent is gone */
    memmove(out.data, out.data + n, out.len - (size_t)n);
    out.len -= (size_t)n;
  }
}

int main(void) {
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGCHLD);
  sigaddset(&mask, SIGTERM);
  sigprocmask(SIG_BLOCK, &mask, NULL);
  int sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
  if (sfd < 0) return 1;
  signal(SIGPIPE, SIG_IGN);
  signal(SIGINT, SIG_IGN); /* a terminal ^C is for the agent, which shuts us down via stdin */
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  if ((devnull = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) return 1;
  fcntl(1, F_SETFL, fcntl(1, F_GETFL) | O_NONBLOCK);

  struct pollfd *pfds = NULL;
  req_t **owners = NULL;
  size_t cap = 0;
  while (stdin_open || reqs) {
    size_t want = 3;
    for (req_t *r = reqs; r; r = r->next) want += 2;
    if (want > cap) {
      cap = want * 2;
      pfds = realloc(pfds, cap * sizeof *pfds);
      owners = realloc(owners, cap * sizeof *owners);
      if (!pfds || !owners) abort();
    }
    size_t n = 0;
    pfds[n++] = (struct pollfd){.fd = sfd, .events = POLLIN};
    pfds[n++] = (struct pollfd){.fd = stdin_open ? 0 : -1, .events = POLLIN};
    pfds[n++] = (struct pollfd){.fd = out.len ? 1 : -1, .events = POLLOUT};
    int64_t t = now_ms(), wake = -1;
    for (req_t *r = reqs; r; r = r->next) {
      for (int i = 0; i < 2; i++) {
        owners[n] = r;
        pfds[n++] = (struct pollfd){.fd = r->fds[i], .events = POLLIN};
      }
      int64_t at = r->pid > 0 ? (r->status == ST_EXITED ? r->deadline : 0) : r->drain_until;
      if (at > 0 && (wake < 0 || at < wake)) wake = at;
    }
    int timeout = wake < 0 ? -1 : (wake <= t ? 0 : (int)(wake - t));
    if (poll(pfds, n, timeout) < 0 && errno != EINTR) return 1;
    if (pfds[0].revents) {
      struct signalfd_siginfo si;
      while (read(sfd, &si, sizeof si) > 0)
        if (si.ssi_signo == SIGTERM && stdin_open) { stdin_open = 0; for (req_t *r = reqs; r; r = r->next) kill_group(r, ST_ABORTED); }
      reap();
    }
    for (size_t i = 3; i < n; i++)
      if (pfds[i].revents) drain(owners[i], (int)((i - 3) % 2));
    if (pfds[1].revents) read_requests();
    settle(now_ms());
    flush_responses();
  }
  return 0;
}
