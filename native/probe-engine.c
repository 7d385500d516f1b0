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
//
// Standing probes: JavaScript may hand a healthy tcpSocket probe's ticker to the engine
// (stand()). The engine thread then dials it on every tick itself, with the worker's tick grid
// and Go's late-tick rule, and reports each result as a record; records of successes wait up to
// RECORD_FLUSH_NS to share one wake-up of JavaScript, while a failure ends the standing probe and
// wakes JavaScript at once, as does the end that unstand() asks for.
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
// A standing probe's records: a dial's outcome (data: start and end in JavaScript's monotonic
// ms, two doubles) and its end (data: its next tick, one double).
enum { EV_STAND_OK = 5, EV_STAND_ERROR = 6, EV_STAND_TIMEOUT = 7, EV_STAND_ENDED = 8 };
// System calls named in EV_ERROR (Go names them in its error texts).
enum { SYS_CONNECT = 0, SYS_READ = 1, SYS_WRITE = 2 };
enum { KIND_TCP = 0, KIND_HTTP = 1 };
// ST_CLOSING: a tcpSocket probe whose verdict JavaScript already has, giving the server
// CLOSE_GRACE_NS to close first (close_after_server); its handle is already released.
// ST_STANDING: a standing probe's own slot (its ticker); each tick dials on a slot of its own.
enum { ST_FREE = 0, ST_QUEUED, ST_CONNECTING, ST_WRITING, ST_READING, ST_PAUSED, ST_CLOSING, ST_STANDING };

#define EVENT_FIELDS 7   // handle, type, errno, syscall, data offset, data length, flags
#define FLAG_EOF 1
#define FLAG_FINAL 2     // the engine released the probe: no more events for its handle
#define READ_CHUNK 16384 // at most this much is read per delivery, as Node's read size
#define PAUSE_BYTES 65536 // delivered without JavaScript arming the probe: reading pauses (mirrored in http-native.ts)
#define SLOT_BITS 20
#define MAX_SLOTS (1u << SLOT_BITS)
#define WAKE_TAG UINT64_MAX
// How long a gracefully closed tcpSocket probe gives the server to close first (see close_after_server).
#define CLOSE_GRACE_NS (10 * 1000000LL)
// How long the records of a standing probe's successes may wait for a wake-up of JavaScript.
#define RECORD_FLUSH_NS (100 * 1000000LL)

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
  uint32_t owner;      // a standing probe's dial: the standing slot + 1; 0 for a JavaScript probe
  // A standing probe (ST_STANDING): its tick grid, in this engine's monotonic ns.
  int64_t base_ns, period_ns, next_ns, late_next_ns, timeout_ns, coalesce_ns;
  int64_t js_offset_ns; // now_ns() minus JavaScript's monotonic time, in ns
  int64_t start_ns;     // when the dial in flight started
  int tick_index;       // position in the tick heap, -1 when not in it
  int late;             // the tick at next_ns is a kept late tick: the one after is late_next_ns
  uint32_t dial;        // the dial in flight: its slot + 1, 0 when none
  int revoke;           // unstand() asked to end it after the dial in flight
} probe_slot;

// A min-heap of slot indexes: the deadline heap (deadline_ns) or the tick heap (next_ns).
typedef struct {
  uint32_t *items;
  uint32_t len;
  int by_tick;
} slot_heap;

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
  slot_heap deadlines; // probes' deadlines
  slot_heap ticks;     // standing probes' next ticks
  int64_t wait_until_ns; // when the engine thread plans to wake up (INT64_MAX: no deadline)
  uint64_t *queued;       // submitted probes the engine thread has not connected yet: (gen << 32) | slot
  size_t queued_len, queued_cap;
  // The events for JavaScript. queue_lock guards `pending` and `js_signalled` only, so that
  // call_js takes its events without waiting for the engine thread's pass to end (which holds
  // `lock` while it connects, reads and closes).
  pthread_mutex_t queue_lock;
  event_queue pending, delivering;
  int js_signalled;
  int pending_urgent;      // `pending` holds an event that JavaScript must have at once
  int64_t records_due_ns;  // when `pending`'s records of successes must be delivered (INT64_MAX: none)
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

// ---- slot heaps ----------------------------------------------------------------------------

static int64_t *key_of(engine *e, slot_heap *h, uint32_t slot) {
  return h->by_tick ? &e->slots[slot].next_ns : &e->slots[slot].deadline_ns;
}

static int *index_of(engine *e, slot_heap *h, uint32_t slot) {
  return h->by_tick ? &e->slots[slot].tick_index : &e->slots[slot].heap_index;
}

static int64_t heap_key(engine *e, slot_heap *h, uint32_t i) {
  return *key_of(e, h, h->items[i]);
}

static void heap_swap(engine *e, slot_heap *h, uint32_t a, uint32_t b) {
  uint32_t sa = h->items[a], sb = h->items[b];
  h->items[a] = sb;
  h->items[b] = sa;
  *index_of(e, h, sb) = (int)a;
  *index_of(e, h, sa) = (int)b;
}

static void heap_up(engine *e, slot_heap *h, uint32_t i) {
  while (i > 0) {
    uint32_t parent = (i - 1) / 2;
    if (heap_key(e, h, parent) <= heap_key(e, h, i)) break;
    heap_swap(e, h, parent, i);
    i = parent;
  }
}

static void heap_down(engine *e, slot_heap *h, uint32_t i) {
  for (;;) {
    uint32_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < h->len && heap_key(e, h, l) < heap_key(e, h, m)) m = l;
    if (r < h->len && heap_key(e, h, r) < heap_key(e, h, m)) m = r;
    if (m == i) return;
    heap_swap(e, h, m, i);
    i = m;
  }
}

static void heap_remove(engine *e, slot_heap *h, uint32_t slot) {
  int idx = *index_of(e, h, slot);
  if (idx < 0) return;
  uint32_t last = --h->len;
  if ((uint32_t)idx != last) {
    heap_swap(e, h, (uint32_t)idx, last);
    heap_down(e, h, (uint32_t)idx);
    heap_up(e, h, (uint32_t)idx);
  }
  *index_of(e, h, slot) = -1;
}

// heap_set puts a slot in the heap with a new key; the caller holds the lock and the heap has room.
static void heap_set(engine *e, slot_heap *h, uint32_t slot, int64_t key) {
  heap_remove(e, h, slot);
  *key_of(e, h, slot) = key;
  uint32_t i = h->len++;
  h->items[i] = slot;
  *index_of(e, h, slot) = (int)i;
  heap_up(e, h, i);
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

// push_event queues one event (lock held); signal_js wakes JavaScript for it at the end of the
// engine's pass, at once when it is urgent, else within RECORD_FLUSH_NS.
static void push_event(engine *e, uint32_t slot, int type, int err, int syscall, const char *bytes, size_t len, int flags, int urgent) {
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
  if (urgent) e->pending_urgent = 1;
  else if (e->records_due_ns == INT64_MAX) e->records_due_ns = now_ns() + RECORD_FLUSH_NS;
  pthread_mutex_unlock(&e->queue_lock);
}

// signal_js wakes JavaScript once for the events of an engine pass, unless a wake-up for them
// is already on its way. One wake-up per pass rather than at the pass's first event: woken at
// the first, the event loop would take the events of that one probe and be woken again for
// the rest.
static void signal_js(engine *e) {
  pthread_mutex_lock(&e->queue_lock);
  int wake = e->pending.count > 0 && !e->js_signalled && (e->pending_urgent || now_ns() >= e->records_due_ns);
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
      uint32_t *deadlines = realloc(e->deadlines.items, cap * sizeof(uint32_t));
      if (!deadlines) return -1;
      e->deadlines.items = deadlines;
      uint32_t *ticks = realloc(e->ticks.items, cap * sizeof(uint32_t));
      if (!ticks) return -1;
      e->ticks.items = ticks;
      e->slot_cap = cap;
    }
    uint32_t i = e->slot_count++;
    memset(&e->slots[i], 0, sizeof(probe_slot));
    e->slots[i].fd = -1;
    e->slots[i].heap_index = -1;
    e->slots[i].tick_index = -1;
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
  heap_remove(e, &e->deadlines, slot);
  heap_remove(e, &e->ticks, slot);
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
  p->owner = 0;
  p->dial = 0;
  p->revoke = 0;
  p->late = 0;
  p->gen++;
  p->next_free = e->free_head;
  e->free_head = slot;
}

static int lookup_handle(engine *e, uint32_t handle, uint32_t *slot) {
  uint32_t s = handle & (MAX_SLOTS - 1);
  if (s >= e->slot_count) return -1;
  probe_slot *p = &e->slots[s];
  if (p->state == ST_FREE || p->state == ST_CLOSING || p->state == ST_STANDING || handle_of(e, s) != handle) return -1;
  *slot = s;
  return 0;
}

static void wake_thread(engine *e) {
  uint64_t one = 1;
  ssize_t ignored = write(e->wake_fd, &one, sizeof one);
  (void)ignored;
}

static void set_deadline(engine *e, uint32_t slot, int64_t deadline) {
  heap_set(e, &e->deadlines, slot, deadline);
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

// ---- standing probes ------------------------------------------------------------------------

// js_ms converts a time of this engine's clock to JavaScript's monotonic ms for a standing probe.
static double js_ms(probe_slot *s, int64_t ns) {
  return (double)(ns - s->js_offset_ns) / 1e6;
}

// end_standing reports a standing probe's end with its next tick, and releases it.
static void end_standing(engine *e, uint32_t slot) {
  probe_slot *s = &e->slots[slot];
  // A kept late tick is due now (next_ns): JavaScript's loop then runs it at once, as the engine would have.
  double next = js_ms(s, s->next_ns);
  push_event(e, slot, EV_STAND_ENDED, 0, 0, (const char *)&next, sizeof next, 0, 1);
  release_slot(e, slot, 0);
}

// standing_done records the outcome of a standing probe's dial. A failure ends the standing
// probe (JavaScript takes its loop back at once), as does an end unstand() asked for meanwhile;
// otherwise the ticker goes on: a tick that fell due during the dial is kept and runs now, the
// ones after it are dropped (Go's ticker, kubelet worker.go run; the JavaScript loop does the same).
static void standing_done(engine *e, uint32_t owner, int type, int err, int syscall) {
  uint32_t slot = owner - 1;
  probe_slot *s = &e->slots[slot];
  int64_t now = now_ns();
  double times[2] = {js_ms(s, s->start_ns), js_ms(s, now)};
  s->dial = 0;
  push_event(e, slot, type, err, syscall, (const char *)times, sizeof times, 0, type != EV_STAND_OK);
  if (type != EV_STAND_OK || s->revoke) {
    end_standing(e, slot);
    return;
  }
  if (now >= s->next_ns) {
    s->late = 1;
    s->late_next_ns = s->base_ns + ((now - s->base_ns) / s->period_ns + 1) * s->period_ns;
    heap_set(e, &e->ticks, slot, now);
  } else {
    heap_set(e, &e->ticks, slot, s->next_ns);
  }
}

// fail ends a probe with a system call's error.
static void fail(engine *e, uint32_t slot, int err, int syscall) {
  probe_slot *p = &e->slots[slot];
  if (p->owner != 0) standing_done(e, p->owner, EV_STAND_ERROR, err, syscall);
  else push_event(e, slot, EV_ERROR, err, syscall, p->local, strlen(p->local), FLAG_FINAL, 1);
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

// close_after_server closes a tcpSocket probe's socket CLOSE_GRACE_NS after its connection
// was made. The verdict is already delivered; only who closes first changes: the side that
// closes first keeps the connection in TIME-WAIT for 60 s, so a server that closes right after
// accept (many health ports do) keeps it instead of the prober, whose ephemeral ports it would
// use up (docs/connection-hygiene.md). The socket is not watched meanwhile: the server's FIN
// needs no answer before the close, and a wake-up per FIN cost the engine a pass per probe. A
// server that waits for the client still sees an orderly close, CLOSE_GRACE_NS later than the
// kubelet's. `watched`: the socket is in the epoll set (its connect was waited for) and leaves it.
static void close_after_server(engine *e, uint32_t slot, int watched) {
  e->slots[slot].state = ST_CLOSING;
  if (watched) epoll_ctl(e->epoll_fd, EPOLL_CTL_DEL, e->slots[slot].fd, NULL);
  heap_set(e, &e->deadlines, slot, now_ns() + CLOSE_GRACE_NS); // the engine thread recomputes its wait before sleeping
}

// tcp_connected ends a tcpSocket probe whose connection is made: kubelet tcp.go succeeds as
// soon as the connection is made, and closes it. `watched`: the socket is in the epoll set
// (its connect had to be waited for).
static void tcp_connected(engine *e, uint32_t slot, int watched) {
  probe_slot *p = &e->slots[slot];
  if (p->owner != 0) standing_done(e, p->owner, EV_STAND_OK, 0, 0);
  else push_event(e, slot, EV_CONNECTED, 0, 0, NULL, 0, FLAG_FINAL, 1);
  if (e->slots[slot].reset) release_slot(e, slot, 1);
  else close_after_server(e, slot, watched);
}

static void on_connect_ready(engine *e, uint32_t slot) {
  probe_slot *p = &e->slots[slot];
  int err = 0;
  socklen_t len = sizeof err;
  if (getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
  if (err != 0) return fail(e, slot, err, SYS_CONNECT);
  if (p->kind == KIND_TCP) return tcp_connected(e, slot, 1);
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
    push_event(e, slot, EV_DATA, 0, 0, buf, got, eof ? FLAG_EOF | FLAG_FINAL : 0, 1);
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

// connect_slot creates a probe's non-blocking socket and starts connecting it.
static void connect_slot(engine *e, uint32_t slot) {
  probe_slot *p = &e->slots[slot];
  int fd = socket(p->peer.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return fail(e, slot, errno, SYS_CONNECT);
  p->fd = fd;
  int rc = connect(fd, (struct sockaddr *)&p->peer, p->peer_len);
  if (rc != 0 && errno != EINPROGRESS) return fail(e, slot, errno, SYS_CONNECT);
  p->state = ST_CONNECTING;
  // A loopback connect() has usually done the whole handshake by the time it returns
  // EINPROGRESS: a tcpSocket probe whose socket already has its peer is done without waiting
  // for EPOLLOUT (one system call and one engine pass fewer per probe).
  struct sockaddr_storage peer;
  socklen_t peer_len = sizeof peer;
  if (p->kind == KIND_TCP && (rc == 0 || getpeername(fd, (struct sockaddr *)&peer, &peer_len) == 0)) return tcp_connected(e, slot, 0);
  watch(e, slot, EPOLLOUT, EPOLL_CTL_ADD);
}

// start_queued creates and connects the sockets of the probes submitted since the last turn.
static void start_queued(engine *e) {
  for (size_t i = 0; i < e->queued_len; i++) {
    uint32_t slot = (uint32_t)(e->queued[i] & 0xffffffffu);
    probe_slot *p = &e->slots[slot];
    if (p->state != ST_QUEUED || p->gen != (uint32_t)(e->queued[i] >> 32)) continue; // closed meanwhile
    connect_slot(e, slot);
  }
  e->queued_len = 0;
}

// start_standing_dial dials a standing probe's target on a slot of its own, with its timeout.
static void start_standing_dial(engine *e, uint32_t slot, int64_t now) {
  uint32_t d;
  if (alloc_slot(e, &d) != 0) {
    // Out of slots: the tick counts as a dial that could not start (socket() failing alike).
    e->slots[slot].start_ns = now;
    standing_done(e, slot + 1, EV_STAND_ERROR, ENOMEM, SYS_CONNECT);
    return;
  }
  probe_slot *s = &e->slots[slot]; // alloc_slot may have moved the slots
  probe_slot *p = &e->slots[d];
  p->fd = -1;
  p->kind = KIND_TCP;
  p->reset = s->reset;
  p->peer = s->peer;
  p->peer_len = s->peer_len;
  p->request = NULL;
  p->request_len = 0;
  p->unarmed_bytes = 0;
  p->local[0] = 0;
  p->owner = slot + 1;
  s->dial = d + 1;
  s->start_ns = now;
  if (s->timeout_ns > 0) heap_set(e, &e->deadlines, d, now + s->timeout_ns);
  connect_slot(e, d);
}

// fire_ticks starts the dial of every standing probe whose tick is due.
static void fire_ticks(engine *e) {
  int64_t now = now_ns();
  for (uint32_t budget = e->ticks.len; budget > 0 && e->ticks.len > 0 && heap_key(e, &e->ticks, 0) <= now; budget--) {
    uint32_t slot = e->ticks.items[0];
    probe_slot *s = &e->slots[slot];
    heap_remove(e, &e->ticks, slot);
    s->next_ns = s->late ? s->late_next_ns : s->next_ns + s->period_ns;
    s->late = 0;
    start_standing_dial(e, slot, now);
  }
}

static void expire_deadlines(engine *e) {
  int64_t now = now_ns();
  while (e->deadlines.len > 0 && heap_key(e, &e->deadlines, 0) <= now) {
    uint32_t slot = e->deadlines.items[0];
    heap_remove(e, &e->deadlines, slot);
    e->slots[slot].deadline_ns = 0;
    if (e->slots[slot].state == ST_CLOSING) {
      release_slot(e, slot, 0); // the grace is over: a server that closed first keeps the TIME-WAIT
    } else if (e->slots[slot].kind == KIND_TCP) {
      if (e->slots[slot].owner != 0) standing_done(e, e->slots[slot].owner, EV_STAND_TIMEOUT, 0, 0);
      else push_event(e, slot, EV_TIMEOUT, 0, 0, NULL, 0, FLAG_FINAL, 1);
      release_slot(e, slot, 0);
    } else {
      // The HTTP probe decides (FIN wait over, deadline, redirect); it closes or re-arms.
      push_event(e, slot, EV_TIMEOUT, 0, 0, NULL, 0, 0, 1);
    }
  }
}

// next_wake is when the engine thread must wake up without an event: the first deadline, the
// first tick (late by at most its coalescing window, so that ticks due close together share a
// wake-up, as the JavaScript scheduler's do) or the delivery of waiting records.
static int64_t next_wake(engine *e) {
  int64_t due = INT64_MAX;
  if (e->deadlines.len > 0) due = heap_key(e, &e->deadlines, 0);
  if (e->ticks.len > 0) {
    uint32_t first = e->ticks.items[0];
    int64_t tick = e->slots[first].next_ns + e->slots[first].coalesce_ns;
    if (tick < due) due = tick;
  }
  pthread_mutex_lock(&e->queue_lock);
  if (!e->js_signalled && e->pending.count > 0 && e->records_due_ns < due) due = e->records_due_ns;
  pthread_mutex_unlock(&e->queue_lock);
  return due;
}

static void *engine_main(void *arg) {
  engine *e = arg;
  struct epoll_event events[256];
  char *buf = malloc(READ_CHUNK);
  if (!buf) return NULL;
  pthread_mutex_lock(&e->lock);
  while (!e->stopping) {
    signal_js(e);
    int timeout_ms = -1;
    int64_t due = next_wake(e);
    e->wait_until_ns = due;
    if (due != INT64_MAX) {
      int64_t left = due - now_ns();
      timeout_ms = left <= 0 ? 0 : (int)((left + 999999) / 1000000);
    }
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
    }
    start_queued(e);
    expire_deadlines(e);
    fire_ticks(e);
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
  e->pending_urgent = 0;
  e->records_due_ns = INT64_MAX;
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

// peer_address parses the JavaScript string `ip` and a port into a socket address; -1 when it is not an IP.
static int peer_address(napi_env env, napi_value ip_value, int port, struct sockaddr_storage *ss, socklen_t *ss_len) {
  char ip[INET6_ADDRSTRLEN + 1];
  size_t ip_len = 0;
  napi_get_value_string_utf8(env, ip_value, ip, sizeof ip, &ip_len);
  memset(ss, 0, sizeof *ss);
  struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
  struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
  if (inet_pton(AF_INET, ip, &a4->sin_addr) == 1) {
    a4->sin_family = AF_INET;
    a4->sin_port = htons((uint16_t)port);
    *ss_len = sizeof *a4;
  } else if (inet_pton(AF_INET6, ip, &a6->sin6_addr) == 1) {
    a6->sin6_family = AF_INET6;
    a6->sin6_port = htons((uint16_t)port);
    *ss_len = sizeof *a6;
  } else {
    return -1;
  }
  return 0;
}

// submit(kind, ip, port, request|null, timeoutMs, reset) → handle (≥ 0), or −ENOMEM. The engine
// thread connects once flush() wakes it; socket() and connect() errors come back as EV_ERROR events.
static napi_value js_submit(napi_env env, napi_callback_info info) {
  engine *e = engine_of(env);
  size_t argc = 6;
  napi_value argv[6], out;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  int kind = (int)arg_int(env, argv[0]);
  int port = (int)arg_int(env, argv[2]);
  int64_t timeout_ms = arg_int(env, argv[4]);
  bool reset = false;
  napi_get_value_bool(env, argv[5], &reset);

  struct sockaddr_storage ss;
  socklen_t ss_len;
  if (peer_address(env, argv[1], port, &ss, &ss_len) != 0) return throw_error(env, "probe engine: not an IP address");

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
  p->owner = 0;
  if (timeout_ms > 0) heap_set(e, &e->deadlines, slot, now_ns() + timeout_ms * 1000000LL);
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

static double arg_double(napi_env env, napi_value v) {
  double out = 0;
  napi_get_value_double(env, v, &out);
  return out;
}

// stand(ip, port, timeoutMs, reset, nowMs, baseMs, nextMs, periodMs, coalesceMs) → handle (≥ 0),
// or −ENOMEM: the engine dials ip:port on every tick of the grid baseMs + k·periodMs from nextMs
// on (JavaScript's monotonic ms, read as nowMs just before the call) until a dial fails or
// unstand() ends it. A standing probe keeps no reference: like a worker's wait, it does not
// keep the process alive.
static napi_value js_stand(napi_env env, napi_callback_info info) {
  engine *e = engine_of(env);
  size_t argc = 9;
  napi_value argv[9], out;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  struct sockaddr_storage ss;
  socklen_t ss_len;
  if (peer_address(env, argv[0], (int)arg_int(env, argv[1]), &ss, &ss_len) != 0) return throw_error(env, "probe engine: not an IP address");
  int64_t timeout_ms = arg_int(env, argv[2]);
  bool reset = false;
  napi_get_value_bool(env, argv[3], &reset);
  double js_now = arg_double(env, argv[4]), base = arg_double(env, argv[5]), next = arg_double(env, argv[6]);
  double period = arg_double(env, argv[7]), coalesce = arg_double(env, argv[8]);
  if (!(period >= 1)) return throw_error(env, "probe engine: a standing probe needs a period of at least 1 ms");

  pthread_mutex_lock(&e->lock);
  uint32_t slot;
  if (alloc_slot(e, &slot) != 0) {
    pthread_mutex_unlock(&e->lock);
    napi_create_int32(env, -ENOMEM, &out);
    return out;
  }
  probe_slot *s = &e->slots[slot];
  s->fd = -1;
  s->state = ST_STANDING;
  s->kind = KIND_TCP;
  s->reset = reset;
  s->peer = ss;
  s->peer_len = ss_len;
  s->request = NULL;
  s->owner = 0;
  s->dial = 0;
  s->revoke = 0;
  s->late = 0;
  s->js_offset_ns = now_ns() - (int64_t)(js_now * 1e6);
  s->base_ns = s->js_offset_ns + (int64_t)(base * 1e6);
  s->period_ns = (int64_t)(period * 1e6);
  s->timeout_ns = timeout_ms > 0 ? timeout_ms * 1000000LL : 0;
  s->coalesce_ns = coalesce > 0 ? (int64_t)(coalesce * 1e6) : 0;
  heap_set(e, &e->ticks, slot, s->js_offset_ns + (int64_t)(next * 1e6));
  if (s->next_ns + s->coalesce_ns < e->wait_until_ns) wake_thread(e);
  uint32_t handle = handle_of(e, slot);
  pthread_mutex_unlock(&e->lock);
  napi_create_int32(env, (int32_t)handle, &out);
  return out;
}

// unstand(handle) → true when the standing probe was still running: it ends after its dial in
// flight, if any, with EV_STAND_ENDED. False when it has already ended (its end is on its way).
static napi_value js_unstand(napi_env env, napi_callback_info info) {
  engine *e = engine_of(env);
  size_t argc = 1;
  napi_value argv[1], out;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  uint32_t handle = (uint32_t)arg_int(env, argv[0]);
  uint32_t s = handle & (MAX_SLOTS - 1);
  pthread_mutex_lock(&e->lock);
  int live = s < e->slot_count && e->slots[s].state == ST_STANDING && handle_of(e, s) == handle && !e->slots[s].revoke;
  if (live) {
    e->slots[s].revoke = 1;
    if (e->slots[s].dial == 0) end_standing(e, s);
  }
  pthread_mutex_unlock(&e->lock);
  if (live) signal_js(e);
  napi_get_boolean(env, live, &out);
  return out;
}

// hold(delta): JavaScript waits for (+1) or has had (−1) an event that must keep the event loop
// alive, such as the end of a standing probe it asked to end.
static napi_value js_hold(napi_env env, napi_callback_info info) {
  engine *e = engine_of(env);
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  tsfn_ref(e, env, (int)arg_int(env, argv[0]));
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
  free(e->deadlines.items);
  free(e->ticks.items);
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
  e->records_due_ns = INT64_MAX;
  e->ticks.by_tick = 1;
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
      {"stand", NULL, js_stand, NULL, NULL, NULL, napi_default, NULL},
      {"unstand", NULL, js_unstand, NULL, NULL, NULL, napi_default, NULL},
      {"hold", NULL, js_hold, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
