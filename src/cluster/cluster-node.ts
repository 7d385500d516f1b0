// Cluster mode: the agent as a Kubernetes node. One object starts and stops what a kubelet runs
// against the API server: registration and node status (node-status-reporter.ts), the Lease
// (node-lease.ts), the pods bound to the node (api-pod-source.ts → store-bridge.ts), their
// statuses back to the API server (api-status-sync.ts), events, and the daemon endpoint
// (kubelet-server.ts).
import { arch, networkInterfaces } from "node:os";
import type { AgentApi } from "../apiserver/endpoints/host-interface.js";
import type { EventRecorder } from "../prober/event-recorder.js";
import type { PodStatusSink } from "../status/pod-status-sink.js";
import type { Clock } from "../util/clock.js";
import type { Logger } from "../util/logger.js";
import { RestClient } from "../client/rest-client.js";
import { ApiPodSource } from "./api-pod-source.js";
import { ApiStatusSync } from "./api-status-sync.js";
import { fromApiServer, StoreBridge } from "./store-bridge.js";
import { EventSink } from "./event-sink.js";
import type { ClusterCredentials } from "./kubeconfig.js";
import { CertificateRotation, clientTemplate, servingTemplate } from "./certificate-rotation.js";
import type { CertificateStore, StoredCertificate } from "./certificate-store.js";
import { KubeletAuth } from "./kubelet-auth.js";
import { startKubeletServer, type KubeletServer } from "./kubelet-server.js";
import { MirrorPods } from "./mirror-pods.js";
import { NodeLease } from "./node-lease.js";
import { goArch, type NodeIdentity } from "./node-object.js";
import { NodeStatusReporter } from "./node-status-reporter.js";
import { MachineStats } from "./node-stats.js";

/** ClusterNodeOptions configure a ClusterNode. */
export interface ClusterNodeOptions {
  credentials: ClusterCredentials;
  identity: NodeIdentity;
  agent: AgentApi & { runtimeErrors(): string[]; events: EventRecorder; addStatusSink(sink: PodStatusSink): () => void; podCouldHaveRunningContainers(uid: string): boolean };
  /** The daemon endpoint's serving certificate and the CA of the clients it lets in; none: no endpoint. */
  server?: { host: string; cert: Buffer; key: Buffer; clientCa: Buffer };
  /**
   * The node's client certificate from a TLS bootstrap: rotated before it expires
   * (certificate-rotation.ts), the node's API clients switching to each new one.
   */
  clientCertificates?: { store: CertificateStore; rotated: (cert: StoredCertificate) => void };
  /**
   * The daemon endpoint's certificate from kubernetes.io/kubelet-serving CSRs (the kubelet's
   * serverTLSBootstrap), kept in this store and rotated; the endpoint listens once the first one
   * is issued. Without it the endpoint serves `server.cert`.
   */
  servingCertificates?: CertificateStore;
  clock: Clock;
  logger: Logger;
}

/** ClusterNode runs the node's conversation with the API server. */
export class ClusterNode {
  readonly client: RestClient;
  readonly status: NodeStatusReporter;
  readonly lease: NodeLease;
  readonly pods: ApiPodSource;
  readonly statusSync: ApiStatusSync;
  private readonly bridge: StoreBridge;
  /** Stops the agent's statuses going to the status sync. */
  private readonly stopSink: () => void;
  private readonly mirrors: MirrorPods;
  private readonly events: EventSink;
  private readonly stop = new AbortController();
  private readonly loops: Promise<void>[] = [];
  private server: KubeletServer | undefined;
  private markRegistered: (uid: string) => void = () => undefined;
  /** Resolves with the Node's UID once it is registered. */
  private readonly registered = new Promise<string>((resolve) => (this.markRegistered = resolve));

  constructor(private readonly options: ClusterNodeOptions) {
    const { credentials, identity, clock, logger, agent } = options;
    this.client = new RestClient({ credentials, clock, logger, userAgent: nodeUserAgent(identity.kubeletVersion) });
    this.status = new NodeStatusReporter({ client: this.client, identity, health: () => ({ runtimeErrors: agent.runtimeErrors() }), clock, logger: logger.child("node") });
    this.lease = new NodeLease({ client: this.client, nodeName: identity.name, clock, logger: logger.child("lease"), nodeUid: () => this.status.node?.metadata.uid });
    this.statusSync = new ApiStatusSync({ client: this.client, clock, logger: logger.child("status"), apiPod: (uid) => this.pods.get(uid), couldHaveRunningContainers: (uid) => agent.podCouldHaveRunningContainers(uid) });
    // The status manager's statuses of the API server's pods go to the API server with the
    // status manager's versions (status_manager.go syncPod), not through the local store.
    const sync = this.statusSync;
    this.stopSink = agent.addStatusSink({
      statusChanged: (pod, version) => (fromApiServer(pod) ? sync.statusChanged(pod, version) : undefined),
      podTerminated: (pod) => (fromApiServer(pod) ? sync.podTerminated(pod) : undefined),
    });
    this.mirrors = new MirrorPods({ client: this.client, nodeName: identity.name, nodeUid: this.registered, sink: this.statusSync, logger: logger.child("mirror") });
    this.events = new EventSink({ client: this.client, clock, logger: logger.child("events") });
    this.bridge = new StoreBridge({ store: agent.store, nodeName: identity.name, sink: this.statusSync, staticPods: (e) => this.mirrors.handle(e), mirrorRemoved: (p) => this.mirrors.mirrorGone(p), mirrorDeleting: (p) => this.mirrors.mirrorDeleting(p), events: (e) => this.events.send(e), recorder: agent.events, logger: logger.child("pods") });
    this.pods = new ApiPodSource({ client: this.client, nodeName: identity.name, clock, logger: logger.child("source"), listener: (u) => this.bridge.handle(u) });
    void this.pods.hasSynced.then(() => this.bridge.forgetMissing((uid) => this.pods.get(uid) !== undefined));
  }

  /**
   * start serves the daemon endpoint, then registers the node in the background and runs the
   * lease, node status, pod source and status sync. Resolves once the endpoint listens (with
   * serving CSRs and no valid certificate yet, it listens once the first one is issued).
   */
  async start(): Promise<void> {
    const { server, identity, agent, clock, logger } = this.options;
    const signal = this.stop.signal;
    const serving = this.options.servingCertificates;
    const issued = serving === undefined ? undefined : await serving.current();
    const serve = async (cert: Buffer, key: Buffer): Promise<void> => {
      if (server === undefined) return;
      const auth = new KubeletAuth({ client: this.client, nodeName: identity.name, clock, logger: logger.child("kubelet-auth") });
      const machine = new MachineStats(identity.stateDir, clock);
      this.server = await startKubeletServer({ agent, host: server.host, port: identity.kubeletPort, cert, key, clientCa: server.clientCa, auth, machine, logger: logger.child("kubelet-server") });
    };
    if (serving === undefined && server !== undefined) await serve(server.cert, server.key);
    else if (issued !== undefined && issued.notAfter > clock.now()) await serve(issued.cert, issued.key);
    this.loops.push(this.pods.run(signal), this.statusSync.run(signal));
    const certificates = this.options.clientCertificates;
    if (certificates !== undefined) {
      const rotated = (cert: StoredCertificate): void => {
        this.client.useClientCertificate(cert.cert, cert.key);
        certificates.rotated(cert);
      };
      const rotation = new CertificateRotation({ store: certificates.store, template: clientTemplate(identity.name), client: this.client, rotated, clock, logger: logger.child("certificates") });
      this.loops.push(rotation.run(signal));
    }
    if (serving !== undefined) {
      // kubelet.go NewKubeletServerCertificateManager: the node's host name and IP in the SANs.
      const template = servingTemplate(identity.name, [identity.hostname], [identity.internalIP]);
      const rotated = (cert: StoredCertificate): void => {
        if (this.server !== undefined) this.server.useServingCertificate(cert.cert, cert.key);
        else serve(cert.cert, cert.key).catch((err: unknown) => logger.error("Cannot serve the daemon endpoint", { err: err instanceof Error ? err.message : String(err) }));
      };
      this.loops.push(new CertificateRotation({ store: serving, template, client: this.client, rotated, clock, logger: logger.child("serving-certificates") }).run(signal));
    }
    this.loops.push(
      (async () => {
        const node = await this.status.register(signal);
        if (node === undefined) return;
        this.markRegistered(node.metadata.uid ?? "");
        await Promise.all([this.lease.run(signal), this.status.fastStatusUpdateOnce(signal).then(() => this.status.run(signal))]);
      })(),
    );
  }

  /** podsSynced resolves after the first list of the node's pods (orphan cleanup waits for it). */
  get podsSynced(): Promise<void> {
    return this.pods.hasSynced;
  }

  /**
   * close stops talking to the API server first (so the pods the agent then stops on its way
   * out are not reported as stopped), then stops the loops and the endpoint.
   */
  async close(): Promise<void> {
    this.bridge.close();
    this.stopSink();
    this.mirrors.close();
    this.events.close();
    await this.statusSync.stop();
    this.stop.abort();
    await Promise.all(this.loops);
    await this.server?.close();
    this.client.close();
  }
}

/**
 * nodeUserAgent is the User-Agent of the node's requests, in the shape client-go's
 * DefaultKubernetesUserAgent gives the kubelet's: `kubelet/<version> (<os>/<arch>) kubernetes/<commit>`,
 * with probelet in the commit's place.
 */
export function nodeUserAgent(kubeletVersion: string): string {
  return `kubelet/${kubeletVersion} (${process.platform}/${goArch(arch())}) kubernetes/probelet`;
}

/**
 * defaultNodeIP picks the node's InternalIP: the first non-internal IPv4 address of the machine
 * (kubelet nodeutil.GetNodeHostIPs with no --node-ip: the address of the default route's
 * interface), or the loopback address when there is none.
 */
export function defaultNodeIP(): string {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === "IPv4" && !a.internal) return a.address;
  }
  return "127.0.0.1";
}
