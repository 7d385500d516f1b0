// probelet's native probe I/O engine: a Node-API addon that runs the socket work of tcpSocket
// and plain-HTTP httpGet probes on its own epoll thread.
//
// The JavaScript thread calls submit(), which queues the probe, and flush() once after a turn's
// submissions, which wakes the engine thread; the engine thread creates the non-blocking socket and
// connects (a loopback connect() does the whole handshake inside the system call, so it stays
// off the event loop), finishes the connect, writes the prebuilt request bytes, reads the
// response in bounded chunks and watches each probe's deadline. What happens is queued as fixed-size event
// records plus one byte area, and the JavaScript callback receives everything queued since its
// last call in one batch (one threadsafe-function call per batch, not per probe).
//
// Parsing stays in JavaScript (the same incremental parser as the socket path): once a probe
// has had PAUSE_BYTES delivered since JavaScript last armed it, its socket is paused until
// JavaScript arms it again, so what the engine reads is bounded by what the parser asks for. Closing follows the prober's close
// mode: "reset" sets SO_LINGER {1, 0} before close() (an RST, no TIME-WAIT), as Node's
// resetAndDestroy() does; errors and deadlines close plainly, as Node's destroy() does.
#define NAPI_VERSION 8
#include <node_api.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

// Event types delivered to JavaScript (mirrored in src/probe/native-engine.ts).
enum { EV_CONNECTED = 1, EV_ERROR = 2, EV_TIMEOUT = 3, EV_DATA = 4 };
// System calls named in EV_ERROR (Go names them in its error texts).
enum { SYS_CONNECT = 0, SYS_READ = 1, SYS_WRITE = 2 };
enum { KIND_TCP = 0, KIND_HTTP = 1 };
// ST_CLOSING: a tcpSocket probe whose verdict JavaScript already has, waiting for the server's
// own close before closing (CLOSE_GRACE_NS); its handle is already released.
enum { ST_FREE = 0, ST_QUEUED, ST_CONNECTING, ST_WRITING, ST_READING, ST_PAUSED, ST_CLOSING };

#define EVENT_FIELDS 7   // handle, type, errno, syscall, data offset, data length, flags
#define FLAG_EOF 1
#define FLAG_FINAL 2     // the engine released the probe: no more events for its handle
#define READ_CHUNK 16384 // at most this much is read per delivery, as Node's read size
#define PAUSE_BYTES 65536 // delivered without JavaScript arming the probe: reading pauses (mirrored in http-native.ts)
#define SLOT_BITS 20
#define MAX_SLOTS (1u << SLOT_BITS)
#define WAKE_TAG UINT64_MAX
// How long a gracefully closed tcpSocket probe waits for the server to close first (see close_after_server).
#define CLOSE_GRACE_NS (10 * 1000000LL)

typedef struct {
  int fd;
  int state;
  int kind;
  int reset;
  uint32_t gen;
  int64_t deadline_ns; // 0: none armed
  int heap_index;      // position in the deadline heap, -1 when not in it
  char *request;
  size_t request_len;
  size_t request_sent;
  size_t unarmed_bytes; // delivered since JavaScript last armed the probe
  struct sockaddr_storage peer;
  socklen_t peer_len;
  char local[64];      // "ip:port" of the local end once connected
  uint32_t next_free;
} probe_slot;

typedef struct {
  int32_t *events;
  size_t count, cap;
  char *data;
  size_t data_len, data_cap;
} event_queue;

typedef struct {
  pthread_mutex_t lock;
  pthread_t thread;
  int thread_started;
  int epoll_fd;
  int wake_fd;
  int stopping;
  probe_slot *slots;
  uint32_t slot_count, slot_cap, free_head;
  uint32_t *heap; // slot indexes, min-heap on deadline_ns
  uint32_t heap_len;
  int64_t wait_until_ns; // when the engine thread plans to wake up (INT64_MAX: no deadline)
  uint64_t *queued;       // submitted probes the engine thread has not connected yet: (gen << 32) | slot
  size_t queued_len, queued_cap;
  // The events for JavaScript. queue_lock guards `pending` and `js_signalled` only, so that
  // call_js takes its events without waiting for the engine thread's pass to end (which holds
  // `lock` while it connects, reads and closes).
  pthread_mutex_t queue_lock;
  event_queue pending, delivering;
  int js_signalled;
  napi_threadsafe_function tsfn;
  int js_active; // probes submitted and not yet released, seen from the JavaScript thread
  int tsfn_refed;
  napi_ref callback;
} engine;

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static uint32_t handle_of(engine *e, uint32_t slot) {
  return ((e->slots[slot].gen & 0x7ff) << SLOT_BITS) | slot;
}

// ---- deadline heap -------------------------------------------------------------------------

static void heap_swap(engine *e, uint32_t a, uint32_t b) {
  uint32_t sa = e->heap[a], sb = e->heap[b];
  e->heap[a] = sb;
  e->heap[b] = sa;
  e->slots[sb].heap_index = (int)a;
  e->slots[sa].heap_index = (int)b;
}

static int64_t heap_key(engine *e, uint32_t i) {
  return e->slots[e->heap[i]].deadline_ns;
}

static void heap_up(engine *e, uint32_t i) {
  while (i > 0) {
    uint32_t parent = (i - 1) / 2;
    if (heap_key(e, parent) <= heap_key(e, i)) break;
    heap_swap(e, parent, i);
    i = parent;
  }
}

static void heap_down(engine *e, uint32_t i) {
  for (;;) {
    uint32_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < e->heap_len && heap_key(e, l) < heap_key(e, m)) m = l;
    if (r < e->heap_len && heap_key(e, r) < heap_key(e, m)) m = r;
    if (m == i) return;
    heap_swap(e, m, i);
    i = m;
  }
}

static void heap_remove(engine *e, uint32_t slot) {
  int idx = e->slots[slot].heap_index;
  if (idx < 0) return;
  uint32_t last = --e->heap_len;
  if ((uint32_t)idx != last) {
    heap_swap(e, (uint32_t)idx, last);
    heap_down(e, (uint32_t)idx);
    heap_up(e, (uint32_t)idx);
  }
  e->slots[slot].heap_index = -1;
}

// heap_set arms (or re-arms) a slot's deadline; the caller holds the lock and e->heap has room.
static void heap_set(engine *e, uint32_t slot, int64_t deadline) {
  heap_remove(e, slot);
  e->slots[slot].deadline_ns = deadline;
  uint32_t i = e->heap_len++;
  e->heap[i] = slot;
  e->slots[slot].heap_index = (int)i;
  heap_up(e, i);
}

// ---- event queue ---------------------------------------------------------------------------

static int queue_reserve(event_queue *q, size_t data_extra) {
  if (q->count == q->cap) {
    size_t cap = q->cap ? q->cap * 2 : 256;
    int32_t *events = realloc(q->events, cap * EVENT_FIELDS * sizeof(int32_t));
    if (!events) return -1;
    q->events = events;
    q->cap = cap;
  }
  if (q->data_len + data_extra > q->data_cap) {
    size_t cap = q->data_cap ? q->data_cap : 65536;
    while (cap < q->data_len + data_extra) cap *= 2;
    char *data = realloc(q->data, cap);
    if (!data) return -1;
    q->data = data;
    q->data_cap = cap;
  }
  return 0;
}

// push_event queues one event (engine thread, lock held); signal_js wakes JavaScript for it
// at the end of the engine's pass.
static void push_event(engine *e, uint32_t slot, int type, int err, int syscall, const char *bytes, size_t len, int flags) {
  event_queue *q = &e->pending;
  pthread_mutex_lock(&e->queue_lock);
  if (queue_reserve(q, len) != 0) {
    // Out of memory: the probe's deadline still ends it on the JavaScript side as a timeout.
    pthread_mutex_unlock(&e->queue_lock);
    return;
  }
  int32_t *ev = q->events + q->count * EVENT_FIELDS;
  ev[0] = (int32_t)handle_of(e, slot);
  ev[1] = type;
  ev[2] = err;
  ev[3] = syscall;
  ev[4] = (int32_t)q->data_len;
  ev[5] = (int32_t)len;
  ev[6] = flags;
  if (len > 0) memcpy(q->data + q->data_len, bytes, len);
  q->data_len += len;
  q->count++;
  pthread_mutex_unlock(&e->queue_lock);
}

// signal_js wakes JavaScript once for the events of an engine pass, unless a wake-up for them
// is already on its way. One wake-up per pass rather than at the pass's first event: woken at
// the first, the event loop would take the events of that one probe and be woken again for
// the rest.
static void signal_js(engine *e) {
  pthread_mutex_lock(&e->queue_lock);
  int wake = e->pending.count > 0 && !e->js_signalled;
  if (wake) e->js_signalled = 1;
  pthread_mutex_unlock(&e->queue_lock);
  if (wake) napi_call_threadsafe_function(e->tsfn, NULL, napi_tsfn_nonblocking);
}

// ---- slots ---------------------------------------------------------------------------------

static int alloc_slot(engine *e, uint32_t *out) {
  if (e->free_head == UINT32_MAX) {
    if (e->slot_count == e->slot_cap) {
      if (e->slot_cap == MAX_SLOTS) return -1;
      uint32_t cap = e->slot_cap ? e->slot_cap * 2 : 1024;
      probe_slot *slots = realloc(e->slots, cap * sizeof(probe_slot));
      if (!slots) return -1;
      e->slots = slots;
      uint32_t *heap = realloc(e->heap, cap * sizeof(uint32_t));
      if (!heap) return -1;
      e->heap = heap;
      e->slot_cap = cap;
    }
    uint32_t i = e->slot_count++;
    memset(&e->slots[i], 0, sizeof(probe_slot));
    e->slots[i].fd = -1;
    e->slots[i].heap_index = -1;
    *out = i;
    return 0;
  }
  *out = e->free_head;
  e->free_head = e->slots[*out].next_free;
  return 0;
}

// release_slot closes the probe's socket (abortively when asked) and frees its slot.
static void release_slot(engine *e, uint32_t slot, int abortive) {
  probe_slot *p = &e->slots[slot];
  heap_remove(e, slot);
  if (p->fd >= 0) {
    if (abortive) {
      struct linger lg = {1, 0};
      setsockopt(p->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    }
    close(p->fd); // also removes it from the epoll set
  }
  free(p->request);
  p->request = NULL;
  p->fd = -1;
  p->state = ST_FREE;
  p->gen++;
  p->next_free = e->free_head;
  e->free_head = slot;
}

static int lookup_handle(engine *e, uint32_t handle, uint32_t *slot) {
  uint32_t s = handle & (MAX_SLOTS - 1);
  if (s >= e->slot_count) return -1;
  probe_slot *p = &e->slots[s];
  if (p->state == ST_FREE || p->state == ST_CLOSING || handle_of(e, s) != handle) return -1;
  *slot = s;
  return 0;
}

static void wake_thread(engine *e) {
  uint64_t one = 1;
  ssize_t ignored = write(e->wake_fd, &one, sizeof one);
  (void)ignored;
}

static void set_deadline(engine *e, uint32_t slot, int64_t deadline) {
  heap_set(e, slot, deadline);
  if (deadline < e->wait_until_ns) wake_thread(e);
}

static int watch(engine *e, uint32_t slot, uint32_t events, int op) {
  struct epoll_event ev = {.events = events, .data.u64 = ((uint64_t)e->slots[slot].gen << 32) | slot};
  return epoll_ctl(e->epoll_fd, op, e->slots[slot].fd, &ev);
}

// ---- engine thread -------------------------------------------------------------------------

static void record_local(probe_slot *p) {
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;
  p->local[0] = 0;
  if (getsockname(p->fd, (struct sockaddr *)&ss, &len) != 0) return;
  char ip[INET6_ADDRSTRLEN];
  if (ss.ss_family == AF_INET) {
    struct sockaddr_in *a = (struct sockaddr_in *)&ss;
    inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
    snprintf(p->local, sizeof p->local, "%s:%u", ip, ntohs(a->sin_port));
  } else if (ss.ss_family == AF_INET6) {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
    inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof ip);
    snprintf(p->local, sizeof p->local, "[%s]:%u", ip, ntohs(a->sin6_port));
  }
}

static void fail(engine *e, uint32_t slot, int err, int syscall) {
  probe_slot *p = &e->slots[slot];
  push_event(e, slot, EV_ERROR, err, syscall, p->local, strlen(p->local), FLAG_FINAL);
  release_slot(e, slot, 0);
}

static void write_request(engine *e, uint32_t slot) {
  probe_slot *p = &e->slots[slot];
  while (p->request_sent < p->request_len) {
    ssize_t n = send(p->fd, p->request + p->request_sent, p->request_len - p->request_sent, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        p->state = ST_WRITING;
        watch(e, slot, EPOLLOUT, EPOLL_CTL_MOD);
        return;
      }
      fail(e, slot, errno, SYS_WRITE);
      return;
    }
    p->request_sent += (size_t)n;
  }
  free(p->request);
  p->request = NULL;
  p->state = ST_READING;
  watch(e, slot, EPOLLIN, EPOLL_CTL_MOD);
}

// close_after_server closes a tcpSocket probe's socket once the server has closed its end, or
// after CLOSE_GRACE_NS. The verdict is already delivered; only who closes first changes: the
// side that closes first keeps the connection in TIME-WAIT for 60 s, so a server that closes
// right after accept (many health ports do) keeps it instead of the prober, whose ephemeral
// ports it would use up (docs/connection-hygiene.md). A server that waits for the client still
// sees an orderly close, CLOSE_GRACE_NS later than the kubelet's.
static void close_after_server(engine *e, uint32_t slot) {
  e->slots[slot].state = ST_CLOSING;
  if (watch(e, slot, EPOLLIN | EPOLLRDHUP, EPOLL_CTL_MOD) != 0) {
    release_slot(e, slot, 0);
    return;
  }
  heap_set(e, slot, now_ns() + CLOSE_GRACE_NS); // the engine thread recomputes its wait before sleeping
}

static void on_connect_ready(engine *e, uint32_t slot) {
  probe_slot *p = &e->slots[slot];
  int err = 0;
  socklen_t len = sizeof err;
  if (getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
  if (err != 0) return fail(e, slot, err, SYS_CONNECT);
  if (p->kind == KIND_TCP) {
    // kubelet tcp.go: the probe succeeds as soon as the connection is made, and closes it.
    push_event(e, slot, EV_CONNECTED, 0, 0, NULL, 0, FLAG_FINAL);
    if (p->reset) release_slot(e, slot, 1);
    else close_after_server(e, slot);
    return;
  }
  record_local(p);
  write_request(e, slot);
}

static void on_readable(engine *e, uint32_t slot, char *buf) {
  probe_slot *p = &e->slots[slot];
  size_t got = 0;
  int eof = 0, err = 0;
  while (got < READ_CHUNK) {
    ssize_t n = read(p->fd, buf + got, READ_CHUNK - got);
    if (n > 0) {
      got += (size_t)n;
    } else if (n == 0) {
      eof = 1;
      break;
    } else if (errno == EINTR) {
      continue;
    } else {
      if (errno != EAGAIN && errno != EWOULDBLOCK) err = errno;
      break;
    }
  }
  if (got > 0 || eof) {
    push_event(e, slot, EV_DATA, 0, 0, buf, got, eof ? FLAG_EOF | FLAG_FINAL : 0);
  }
  if (err != 0) {
    // Bytes read before the error were delivered first, as a socket's data precedes its error.
    fail(e, slot, err, SYS_READ);
  } else if (eof) {
    release_slot(e, slot, p->reset); // the JavaScript side would close it the same way now
  } else if ((p->unarmed_bytes += got) >= PAUSE_BYTES) {
    p->state = ST_PAUSED; // JavaScript resumes it when it arms the probe again
    watch(e, slot, 0, EPOLL_CTL_MOD);
  }
}

// start_queued creates and connects the sockets of the probes submitted since the last turn.
static void start_queued(engine *e) {
  for (size_t i = 0; i < e->queued_len; i++) {
    uint32_t slot = (uint32_t)(e->queued[i] & 0xffffffffu);
    probe_slot *p = &e->slots[slot];
    if (p->state != ST_QUEUED || p->gen != (uint32_t)(e->queued[i] >> 32)) continue; // closed meanwhile
    int fd = socket(p->peer.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      fail(e, slot, errno, SYS_CONNECT);
      continue;
    }
    p->fd = fd;
    if (connect(fd, (struct sockaddr *)&p->peer, p->peer_len) != 0 && errno != EINPROGRESS) {
      fail(e, slot, errno, SYS_CONNECT);
      continue;
    }
    p->state = ST_CONNECTING;
    watch(e, slot, EPOLLOUT, EPOLL_CTL_ADD);
  }
  e->queued_len = 0;
}

static void expire_deadlines(engine *e) {
  int64_t now = now_ns();
  while (e->heap_len > 0 && heap_key(e, 0) <= now) {
    uint32_t slot = e->heap[0];
    heap_remove(e, slot);
    e->slots[slot].deadline_ns = 0;
    if (e->slots[slot].state == ST_CLOSING) {
      release_slot(e, slot, 0); // the server kept its end open: the prober closes first
    } else if (e->slots[slot].kind == KIND_TCP) {
      push_event(e, slot, EV_TIMEOUT, 0, 0, NULL, 0, FLAG_FINAL);
      release_slot(e, slot, 0);
    } else {
      // The HTTP probe decides (FIN wait over, deadline, redirect); it closes or re-arms.
      push_event(e, slot, EV_TIMEOUT, 0, 0, NULL, 0, 0);
    }
  }
}

static void *engine_main(void *arg) {
  engine *e = arg;
  struct epoll_event events[256];
  char *buf = malloc(READ_CHUNK);
  if (!buf) return NULL;
  pthread_mutex_lock(&e->lock);
  while (!e->stopping) {
    int timeout_ms = -1;
    e->wait_until_ns = INT64_MAX;
    if (e->heap_len > 0) {
      int64_t due = heap_key(e, 0);
      int64_t left = due - now_ns();
      timeout_ms = left <= 0 ? 0 : (int)((left + 999999) / 1000000);
      e->wait_until_ns = due;
    }
    signal_js(e);
    pthread_mutex_unlock(&e->lock);
    int n = epoll_wait(e->epoll_fd, events, 256, timeout_ms);
    pthread_mutex_lock(&e->lock);
    for (int i = 0; i < n; i++) {
      uint64_t tag = events[i].data.u64;
      if (tag == WAKE_TAG) {
        uint64_t count;
        ssize_t ignored = read(e->wake_fd, &count, sizeof count);
        (void)ignored;
        continue;
      }
      uint32_t slot = (uint32_t)(tag & 0xffffffffu);
      if (slot >= e->slot_count) continue;
      probe_slot *p = &e->slots[slot];
      // A probe released (and its slot reused) after epoll_wait returned is skipped.
      if (p->state == ST_FREE || p->gen != (uint32_t)(tag >> 32)) continue;
      if (p->state == ST_CONNECTING) on_connect_ready(e, slot);
      else if (p->state == ST_WRITING) write_request(e, slot);
      else if (p->state == ST_READING) on_readable(e, slot, buf);
      else if (p->state == ST_CLOSING) release_slot(e, slot, 0); // the server closed (or wrote): close now
    }
    start_queued(e);
    expire_deadlines(e);
  }
  pthread_mutex_unlock(&e->lock);
  free(buf);
  return NULL;
}

// ---- JavaScript side -----------------------------------------------------------------------

static void tsfn_ref(engine *e, napi_env env, int delta) {
  e->js_active += delta;
  int want = e->js_active > 0;
  if (want == e->tsfn_refed) return;
  e->tsfn_refed = want;
  if (want) napi_ref_threadsafe_function(env, e->tsfn);
  else napi_unref_threadsafe_function(env, e->tsfn);
}

// call_js hands every queued event to the JavaScript callback: (events Int32Array, data Buffer).
static void call_js(napi_env env, napi_value js_cb, void *context, void *data) {
  (void)js_cb;
  (void)data;
  engine *e = context;
  if (env == NULL) return;
  pthread_mutex_lock(&e->queue_lock);
  event_queue q = e->pending;
  e->pending = e->delivering;
  e->pending.count = 0;
  e->pending.data_len = 0;
  e->delivering = q;
  e->js_signalled = 0;
  pthread_mutex_unlock(&e->queue_lock);
  if (q.count == 0) return;

  int finals = 0;
  for (size_t i = 0; i < q.count; i++) {
    if (q.events[i * EVENT_FIELDS + 6] & FLAG_FINAL) finals++;
  }
  napi_value ab, events, bytes, cb, global, argv[2];
  void *ab_data;
  size_t ev_bytes = q.count * EVENT_FIELDS * sizeof(int32_t);
  if (napi_create_arraybuffer(env, ev_bytes, &ab_data, &ab) != napi_ok) return;
  memcpy(ab_data, q.events, ev_bytes);
  napi_create_typedarray(env, napi_int32_array, q.count * EVENT_FIELDS, ab, 0, &events);
  if (q.data_len > 0) {
    void *copy;
    napi_create_buffer_copy(env, q.data_len, q.data, &copy, &bytes);
  } else {
    napi_get_null(env, &bytes);
  }
  argv[0] = events;
  argv[1] = bytes;
  tsfn_ref(e, env, -finals);
  napi_get_reference_value(env, e->callback, &cb);
  napi_get_global(env, &global);
  napi_call_function(env, global, cb, 2, argv, NULL);
}

static engine *engine_of(napi_env env) {
  void *data = NULL;
  napi_get_instance_data(env, &data);
  return data;
}

static napi_value throw_error(napi_env env, const char *message) {
  napi_throw_error(env, NULL, message);
  return NULL;
}

// start(callback): starts the engine thread; callback receives the event batches.
static napi_value js_start(napi_env env, napi_callback_info info) {
  engine *e = engine_of(env);
  size_t argc = 1;
  napi_value argv[1], name;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (e->thread_started) return throw_error(env, "probe engine already started");
  napi_create_reference(env, argv[0], 1, &e->callback);
  napi_create_string_utf8(env, "probelet-probe-engine", NAPI_AUTO_LENGTH, &name);
  if (napi_create_threadsafe_function(env, NULL, NULL, name, 0, 1, NULL, NULL, e, call_js, &e->tsfn) != napi_ok) {
    return throw_error(env, "probe engine: cannot create its callback");
  }
  napi_unref_threadsafe_function(env, e->tsfn);
  if (pthread_create(&e->thread, NULL, engine_main, e) != 0) return throw_error(env, "probe engine: cannot start its thread");
  e->thread_started = 1;
  return NULL;
}

static int64_t arg_int(napi_env env, napi_value v) {
  int64_t out = 0;
  napi_get_value_int64(env, v, &out);
  return out;
}

// submit(kind, ip, port, request|null, timeoutMs, reset) → handle (≥ 0), or −ENOMEM. The engine
// thread connects once flush() wakes it; socket() and connect() errors come back as EV_ERROR events.
static napi_value js_submit(napi_env env, napi_callback_info info) {
  engine *e = engine_of(env);
  size_t argc = 6;
  napi_value argv[6], out;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  int kind = (int)arg_int(env, argv[0]);
  char ip[INET6_ADDRSTRLEN + 1];
  size_t ip_len = 0;
  napi_get_value_string_utf8(env, argv[1], ip, sizeof ip, &ip_len);
  int port = (int)arg_int(env, argv[2]);
  int64_t timeout_ms = arg_int(env, argv[4]);
  bool reset = false;
  napi_get_value_bool(env, argv[5], &reset);

  struct sockaddr_storage ss;
  socklen_t ss_len;
  memset(&ss, 0, sizeof ss);
  struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
  struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
  if (inet_pton(AF_INET, ip, &a4->sin_addr) == 1) {
    a4->sin_family = AF_INET;
    a4->sin_port = htons((uint16_t)port);
    ss_len = sizeof *a4;
  } else if (inet_pton(AF_INET6, ip, &a6->sin6_addr) == 1) {
    a6->sin6_family = AF_INET6;
    a6->sin6_port = htons((uint16_t)port);
    ss_len = sizeof *a6;
  } else {
    return throw_error(env, "probe engine: not an IP address");
  }

  char *request = NULL;
  size_t request_len = 0;
  if (kind == KIND_HTTP) {
    void *bytes;
    napi_get_buffer_info(env, argv[3], &bytes, &request_len);
    request = malloc(request_len ? request_len : 1);
    if (!request) return throw_error(env, "probe engine: out of memory");
    memcpy(request, bytes, request_len);
  }

  pthread_mutex_lock(&e->lock);
  uint32_t slot;
  if (e->queued_len == e->queued_cap) {
    size_t cap = e->queued_cap ? e->queued_cap * 2 : 256;
    uint64_t *queued = realloc(e->queued, cap * sizeof(uint64_t));
    if (queued) {
      e->queued = queued;
      e->queued_cap = cap;
    }
  }
  if (e->queued_len == e->queued_cap || alloc_slot(e, &slot) != 0) {
    pthread_mutex_unlock(&e->lock);
    free(request);
    napi_create_int32(env, -ENOMEM, &out);
    return out;
  }
  probe_slot *p = &e->slots[slot];
  p->fd = -1;
  p->state = ST_QUEUED;
  p->peer = ss;
  p->peer_len = ss_len;
  p->unarmed_bytes = 0;
  p->kind = kind;
  p->reset = reset;
  p->request = request;
  p->request_len = request_len;
  p->request_sent = 0;
  p->local[0] = 0;
  p->heap_index = -1;
  if (timeout_ms > 0) heap_set(e, slot, now_ns() + timeout_ms * 1000000LL);
  // JavaScript calls flush() after the turn's submissions (native-engine.ts): a thread woken
  // here would take the lock to connect while the event loop still submits.
  e->queued[e->queued_len++] = ((uint64_t)p->gen << 32) | slot;
  uint32_t handle = handle_of(e, slot);
  pthread_mutex_unlock(&e->lock);
  tsfn_ref(e, env, 1);
  napi_create_int32(env, (int32_t)handle, &out);
  return out;
}

// flush(): wakes the engine thread to start what submit() queued.
static napi_value js_flush(napi_env env, napi_callback_info info) {
  (void)info;
  engine *e = engine_of(env);
  pthread_mutex_lock(&e->lock);
  if (e->queued_len > 0) wake_thread(e);
  pthread_mutex_unlock(&e->lock);
  return NULL;
}

// arm(handle, ms): a new deadline ms from now, and reading resumes if it was paused.
static napi_value js_arm(napi_env env, napi_callback_info info) {
  engine *e = engine_of(env);
  size_t argc = 2;
  napi_value argv[2];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  uint32_t handle = (uint32_t)arg_int(env, argv[0]);
  int64_t ms = arg_int(env, argv[1]);
  pthread_mutex_lock(&e->lock);
  uint32_t slot;
  if (lookup_handle(e, handle, &slot) == 0) {
    set_deadline(e, slot, now_ns() + ms * 1000000LL);
    e->slots[slot].unarmed_bytes = 0;
    if (e->slots[slot].state == ST_PAUSED) {
      e->slots[slot].state = ST_READING;
      watch(e, slot, EPOLLIN, EPOLL_CTL_MOD);
    }
  }
  pthread_mutex_unlock(&e->lock);
  return NULL;
}

// close(handle, reset): closes a probe's socket (RST when reset) and releases it; no more events.
static napi_value js_close(napi_env env, napi_callback_info info) {
  engine *e = engine_of(env);
  size_t argc = 2;
  napi_value argv[2];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  uint32_t handle = (uint32_t)arg_int(env, argv[0]);
  bool reset = false;
  napi_get_value_bool(env, argv[1], &reset);
  pthread_mutex_lock(&e->lock);
  uint32_t slot;
  int released = lookup_handle(e, handle, &slot) == 0;
  if (released) release_slot(e, slot, reset);
  pthread_mutex_unlock(&e->lock);
  if (released) tsfn_ref(e, env, -1);
  return NULL;
}

static void engine_cleanup(void *arg) {
  engine *e = arg;
  if (e->thread_started) {
    pthread_mutex_lock(&e->lock);
    e->stopping = 1;
    wake_thread(e);
    pthread_mutex_unlock(&e->lock);
    pthread_join(e->thread, NULL);
    for (uint32_t i = 0; i < e->slot_count; i++) {
      if (e->slots[i].state != ST_FREE) release_slot(e, i, 0);
    }
    napi_release_threadsafe_function(e->tsfn, napi_tsfn_abort);
  }
  close(e->epoll_fd);
  close(e->wake_fd);
  free(e->slots);
  free(e->heap);
  free(e->queued);
  free(e->pending.events);
  free(e->pending.data);
  free(e->delivering.events);
  free(e->delivering.data);
  pthread_mutex_destroy(&e->lock);
  pthread_mutex_destroy(&e->queue_lock);
  free(e);
}

static napi_value init(napi_env env, napi_value exports) {
  engine *e = calloc(1, sizeof *e);
  if (!e) return throw_error(env, "probe engine: out of memory");
  pthread_mutex_init(&e->lock, NULL);
  pthread_mutex_init(&e->queue_lock, NULL);
  e->free_head = UINT32_MAX;
  e->wait_until_ns = INT64_MAX;
  e->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  e->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (e->epoll_fd < 0 || e->wake_fd < 0) return throw_error(env, "probe engine: cannot create its epoll set");
  struct epoll_event wake = {.events = EPOLLIN, .data.u64 = WAKE_TAG};
  epoll_ctl(e->epoll_fd, EPOLL_CTL_ADD, e->wake_fd, &wake);
  napi_set_instance_data(env, e, NULL, NULL);
  napi_add_env_cleanup_hook(env, engine_cleanup, e);

  napi_property_descriptor props[] = {
      {"start", NULL, js_start, NULL, NULL, NULL, napi_default, NULL},
      {"submit", NULL, js_submit, NULL, NULL, NULL, napi_default, NULL},
      {"flush", NULL, js_flush, NULL, NULL, NULL, napi_default, NULL},
      {"arm", NULL, js_arm, NULL, NULL, NULL, napi_default, NULL},
      {"close", NULL, js_close, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
