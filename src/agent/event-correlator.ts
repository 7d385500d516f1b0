// The event correlator of client-go's recorder (tools/record/events_cache.go), which every event
// the kubelet emits passes through before it reaches the API server:
//   1. aggregation: events of one object that differ only in their message are counted per
//      (source, object, type, reason); from the 10th distinct message within 10 minutes on, they
//      become one event "(combined from similar events): <latest message>";
//   2. observation: an event seen before (same key) updates the earlier one: same name, count + 1,
//      the first firstTimestamp, the new lastTimestamp and message;
//   3. spam filter: per source and object a token bucket of 25 events refilled by one every 5
//      minutes; an event over budget is dropped (its observation still counts, as upstream).
import type { Clock } from "../util/clock.js";
import type { KubeEvent } from "../apiserver/endpoints/host-interface.js";

/** AGGREGATE_MAX_EVENTS and AGGREGATE_INTERVAL_MS are client-go's defaultAggregateMaxEvents and its interval. */
export const AGGREGATE_MAX_EVENTS = 10;
export const AGGREGATE_INTERVAL_MS = 600_000;
/** SPAM_BURST and SPAM_QPS are client-go's defaultSpamBurst and defaultSpamQPS (one event per 5 minutes). */
export const SPAM_BURST = 25;
export const SPAM_QPS = 1 / 300;
/** The prefix client-go's EventAggregatorByReasonMessageFunc puts before an aggregated message. */
export const COMBINED_PREFIX = "(combined from similar events): ";
/** LRU_ENTRIES is client-go's maxLruCacheEntries, for each of the three caches. */
const LRU_ENTRIES = 4096;

/** Correlated is what to do with an event: create it, or update the earlier event of the same name. */
export interface Correlated {
  event: KubeEvent;
  /** True when event.metadata.name names an event already recorded (patch it). */
  update: boolean;
}

/** EventCorrelator filters, aggregates and counts events as client-go's EventCorrelator does. */
export class EventCorrelator {
  private readonly aggregates = new LruMap<string, { messages: Set<string>; lastMs: number }>(LRU_ENTRIES);
  private readonly observed = new LruMap<string, { count: number; firstTimestamp: string; name: string }>(LRU_ENTRIES);
  private readonly buckets = new LruMap<string, TokenBucket>(LRU_ENTRIES);

  constructor(private readonly clock: Clock) {}

  /**
   * correlate returns the event to record (created or updated) for a new occurrence, or
   * undefined when the spam filter drops it. `event` has count 1 and fresh timestamps.
   */
  correlate(event: KubeEvent): Correlated | undefined {
    const { event: aggregated, key } = this.aggregate(event);
    const observed = this.observe(aggregated, key);
    return this.allow(observed.event) ? observed : undefined;
  }

  /** aggregate is EventAggregate: past the threshold, the event becomes the combined one, keyed without its message. */
  private aggregate(event: KubeEvent): { event: KubeEvent; key: string } {
    const nowMs = this.clock.now();
    const aggregateKey = joinKey(sourceObjectKey(event), event.type, event.reason, event.reportingComponent ?? "", event.reportingInstance ?? "");
    let record = this.aggregates.get(aggregateKey);
    if (record === undefined || nowMs - record.lastMs > AGGREGATE_INTERVAL_MS) record = { messages: new Set(), lastMs: nowMs };
    record.messages.add(event.message);
    record.lastMs = nowMs;
    this.aggregates.set(aggregateKey, record);
    if (record.messages.size < AGGREGATE_MAX_EVENTS) return { event, key: eventKey(event) };
    // Keep the set at the threshold (client-go pops any one of them).
    const first = record.messages.values().next().value;
    if (first !== undefined) record.messages.delete(first);
    return { event: { ...event, message: COMBINED_PREFIX + event.message }, key: aggregateKey };
  }

  /** observe is eventObserve: a key seen before continues that event's name, count and firstTimestamp. */
  private observe(event: KubeEvent, key: string): Correlated {
    const last = this.observed.get(key);
    const out: Correlated = last === undefined
      ? { event, update: false }
      : { event: { ...event, metadata: { ...event.metadata, name: last.name }, count: last.count + 1, firstTimestamp: last.firstTimestamp }, update: true };
    this.observed.set(key, { count: out.event.count, firstTimestamp: out.event.firstTimestamp, name: out.event.metadata.name ?? "" });
    return out;
  }

  /** allow is the EventSourceObjectSpamFilter: one token bucket per source and object. */
  private allow(event: KubeEvent): boolean {
    const key = sourceObjectKey(event);
    const bucket = this.buckets.get(key) ?? new TokenBucket(SPAM_BURST, SPAM_QPS, this.clock.monotonic());
    this.buckets.set(key, bucket);
    return bucket.tryAccept(this.clock.monotonic());
  }
}

/** TokenBucket is flowcontrol's token bucket: starts full, refills at qps, never above burst. */
class TokenBucket {
  private tokens: number;

  constructor(
    private readonly burst: number,
    private readonly qps: number,
    private lastMs: number,
  ) {
    this.tokens = burst;
  }

  tryAccept(nowMs: number): boolean {
    this.tokens = Math.min(this.burst, this.tokens + ((nowMs - this.lastMs) / 1000) * this.qps);
    this.lastMs = nowMs;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/** LruMap is a Map bounded to `capacity` entries that drops the least recently used one. */
class LruMap<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) {
      const oldest = this.map.keys().next().value;
      if (oldest !== undefined) this.map.delete(oldest);
    }
  }
}

/** sourceObjectKey is client-go's getSpamKey: source and involved object, without the field path. */
function sourceObjectKey(e: KubeEvent): string {
  const o = e.involvedObject;
  return joinKey(e.source.component, e.source.host ?? "", o.kind, o.namespace ?? "", o.name ?? "", o.uid ?? "", o.apiVersion ?? "");
}

/** eventKey is client-go's getEventKey: source, object with field path, type, reason and message. */
function eventKey(e: KubeEvent): string {
  const o = e.involvedObject;
  return joinKey(e.source.component, e.source.host ?? "", o.kind, o.namespace ?? "", o.name ?? "", o.fieldPath ?? "", o.uid ?? "", o.apiVersion ?? "", e.type, e.reason, e.message);
}

// client-go joins with "", which can collide ("ab"+"c" = "a"+"bc"); a separator no field holds avoids that.
function joinKey(...parts: string[]): string {
  return parts.join("\u0000");
}
