// Events to the API server (client-go tools/record/event.go recordToSink): the agent's EventStore
// already ran them through the correlator; a new event is POSTed, a repeat (the correlator raised
// its count) is PATCHed with the new count, time and message, and created when the API server no
// longer has it. Sends are queued one at a time, at most MAX_PENDING_EVENTS waiting (client-go's
// broadcaster drops events beyond its queue, too).
import type { KubeEvent, WatchEvent } from "../apiserver/endpoints/host-interface.js";
import type { Logger } from "../util/logger.js";
import { IN_BACKGROUND, type Clock } from "../util/clock.js";
import { ApiStatusError, isStatus, type RestClient } from "../client/rest-client.js";

/** MAX_PENDING_EVENTS bounds the queue of events waiting to be sent (client-go maxQueuedEvents). */
export const MAX_PENDING_EVENTS = 1000;

/** MAX_TRIES_PER_EVENT is client-go's maxTriesPerEvent. */
export const MAX_TRIES_PER_EVENT = 12;
/** EVENT_RETRY_SLEEP_MS is client-go's sleepDuration between tries. */
export const EVENT_RETRY_SLEEP_MS = 10_000;

/** EventSinkOptions configure an EventSink. */
export interface EventSinkOptions {
  client: RestClient;
  clock: Clock;
  logger: Logger;
}

/** EventSink forwards the agent's events to the API server. */
export class EventSink {
  private readonly pending: WatchEvent<KubeEvent>[] = [];
  private sending: Promise<void> | undefined;
  private dropped = 0;
  private readonly stop = new AbortController();

  constructor(private readonly options: EventSinkOptions) {}

  /** send queues one event the agent recorded (ADDED) or counted again (MODIFIED). */
  send(event: WatchEvent<KubeEvent>): void {
    if (!this.stop.signal.aborted) this.enqueue(event);
  }

  /** close stops sending; events already queued are dropped. */
  close(): void {
    this.pending.length = 0;
    this.stop.abort();
  }

  private enqueue(event: WatchEvent<KubeEvent>): void {
    if (this.pending.length >= MAX_PENDING_EVENTS) {
      if (this.dropped++ === 0) this.options.logger.warn("Event queue is full, dropping events");
      return;
    }
    this.pending.push(event);
    this.sending ??= this.drain().finally(() => (this.sending = undefined));
  }

  private async drain(): Promise<void> {
    for (let next = this.pending.shift(); next !== undefined && !this.stop.signal.aborted; next = this.pending.shift()) {
      for (let tries = 1; !this.stop.signal.aborted; tries++) {
        try {
          await this.write(next);
          break;
        } catch (err) {
          const fields = { reason: next.object.reason, involvedObject: next.object.involvedObject.name, err: err instanceof Error ? err.message : String(err) };
          // client-go recordToSink: an answer of the server is final; a transport error is tried again.
          if (err instanceof ApiStatusError) {
            this.options.logger.warn("Server rejected event (will not retry!)", fields);
            break;
          }
          if (tries >= MAX_TRIES_PER_EVENT) {
            this.options.logger.error("Unable to write event (retry limit exceeded!)", fields);
            break;
          }
          this.options.logger.warn("Unable to write event (may retry after sleeping)", fields);
          await this.options.clock.sleep(EVENT_RETRY_SLEEP_MS, this.stop.signal, IN_BACKGROUND);
        }
      }
    }
  }

  private async write({ type, object }: WatchEvent<KubeEvent>): Promise<void> {
    const namespace = encodeURIComponent(object.metadata.namespace ?? "default");
    const event = { ...object, metadata: { name: object.metadata.name, namespace: object.metadata.namespace } };
    if (type === "MODIFIED") {
      const path = `/api/v1/namespaces/${namespace}/events/${encodeURIComponent(object.metadata.name ?? "")}`;
      try {
        await this.options.client.request("PATCH", path, { body: { count: object.count, lastTimestamp: object.lastTimestamp, message: object.message }, contentType: "application/strategic-merge-patch+json" });
        return;
      } catch (err) {
        if (!isStatus(err, 404)) throw err;
      }
    }
    await this.options.client.request("POST", `/api/v1/namespaces/${namespace}/events`, { body: event });
  }
}
