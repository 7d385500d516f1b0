// `probelet run`: the agent in the foreground. It loads manifests (-f, --manifests DIR), starts the
// status API, and prints a live view of pod changes and events until SIGINT/SIGTERM (graceful);
// a second signal kills everything at once.
import { stat } from "node:fs/promises";
import { hostname } from "node:os";
import { readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { isIP } from "node:net";
import { Agent } from "../agent/agent.js";
import { applyManifest, checkManifest, ManifestDirectory } from "../agent/manifest-source.js";
import { StateDirectoryLock } from "../agent/state-lock.js";
import { prepareStateDirectory, privateSubdirectory } from "../agent/state-directory.js";
import { ProcessRuntime } from "../runtime/process/process-runtime.js";
import { defaultSupervisorPath, supervisorAvailable } from "../runtime/process/supervised-process.js";
import type { Runtime } from "../runtime/runtime.js";
import { loadOrCreateAgentToken, readServingToken } from "../server/agent-token.js";
import { agentSocketPath, removeAgentUrl, writeAgentUrl } from "./agent-url-file.js";
import { defaultStateDir } from "./client-credentials.js";
import { removeStaleSocket } from "../util/unix-socket.js";
import { isLoopbackHost, parseListenAddress } from "../server/auth.js";
import { loadOrCreateServingCert, loadServingCert } from "../server/serving-cert.js";
import { parseGoDuration } from "./parse-go-duration.js";
import { SOCKET_SCHEME, startStatusServer, type StatusServer } from "../server/server.js";
import { consoleGateFactory } from "../console/console-gate.js";
import { ConsoleSessions } from "../console/console-sessions.js";
import { CriRuntime } from "../runtime/cri/cri-runtime.js";
import { systemClock, type Clock } from "../util/clock.js";
import { createLogger, type Logger, type LogLevel } from "../util/logger.js";
import { UsageError } from "./args.js";
import { CONTAINER_LOG_HELP, CONTAINER_LOG_OPTIONS, containerLogPolicy } from "./container-log-flags.js";
import { readInputFile } from "./input-file.js";
import type { CommandContext } from "./probe-command.js";
import { formatEventLine, formatLogLine, formatPodLine } from "./live-view.js";
import { surviveUncaughtErrors } from "./process-errors.js";
import { RestClient } from "../client/rest-client.js";
import { ApiConfigObjects } from "../cluster/api-config-objects.js";
import { ApiServices } from "../cluster/api-services.js";
import { requestTokensWith } from "../cluster/api-token-requests.js";
import { ClusterNode, defaultNodeIP, nodeUserAgent } from "../cluster/cluster-node.js";
import { withNodePodIP } from "../cluster/host-network-runtime.js";
import { defaultPodCidr, parsePodCidr, podBridgeName } from "../runtime/process/pod-cidr.js";
import { loadKubeconfig, type ClusterCredentials } from "../cluster/kubeconfig.js";
import { DEFAULT_KUBELET_PORT } from "../cluster/kubelet-server.js";
import { API_SERVER_SOURCE } from "../cluster/store-bridge.js";
import { PROCESS_RUNTIME_TAINT } from "../cluster/node-object.js";
import { KUBELET_VERSION } from "../probe/user-agent.js";
import { CertificateStore, type StoredCertificate } from "../cluster/certificate-store.js";
import { CLIENT_PAIR, loadClientCert, SERVING_PAIR } from "../cluster/tls-bootstrap.js";
import { ServiceAccountTokens } from "../volumes/service-account-tokens.js";
import { startLocalApiServer, type LocalApiServer } from "../apiserver/local-api-server.js";

/** DEFAULT_LISTEN is the status API address: loopback, on the kubelet's read-only port. */
export const DEFAULT_LISTEN = "127.0.0.1:10255";

/** RUN_HELP is the text of `probelet run --help`. */
export const RUN_HELP = `Usage:
  probelet run [-f FILE]... [--manifests DIR] [--runtime process [--pod-cidr CIDR]|cri [--cri-socket PATH]] [--listen HOST:PORT]
               [--state-dir DIR] [--token-file FILE] [--tls-cert-file FILE --tls-private-key-file FILE]
               [--leave-running] [--probe-history-window DURATION] [--container-log-max-size QUANTITY] [--container-log-max-files N]
               [--kubeconfig FILE [--bootstrap-kubeconfig FILE] [--node-name NAME] [--node-ip IP] [--kubelet-port PORT]
                [--client-ca-file FILE]]

Runs the agent in the foreground: starts the pods of every manifest, probes and restarts them as
the kubelet does, serves the status API, and prints pod changes and events as they happen.
Ctrl-C stops every pod gracefully; a second Ctrl-C kills them at once.

Flags:
  -f, --filename FILE    a manifest of Pods, ConfigMaps and Secrets (multi-document YAML or JSON; "-" reads
                         stdin; other kinds are skipped with a warning); repeatable
      --manifests DIR    a directory of manifests, watched like the kubelet's static pods
      --runtime NAME     process (default): each container is a local process group;
                         cri: real containers through containerd's CRI (images must be present)
      --cri-socket PATH  the CRI socket (default $PROBELET_CRI_SOCKET, else /run/containerd/containerd.sock)
      --pod-cidr CIDR    process runtime as root with the CNI plugins: the pods' subnet on the agent's
                         bridge (default 10.88.N.0/24, N from the state directory); docs/cluster.md
      --leave-running    on exit, leave containers running for the next agent to adopt
      --listen ADDR      status API address (default ${DEFAULT_LISTEN}; port 0 picks one); off loopback
                         the API is served over HTTPS only
      --secure-listen ADDR
                         beside a loopback --listen, the same API over HTTPS, for kubectl (default: the
                         same host, a free port; recorded for probelet kubeconfig)
      --state-dir DIR    container logs, agent state, the token and the socket agent.sock where client
                         commands find the agent (default $PROBELET_STATE_DIR or ~/.local/state/probelet);
                         yours alone (refused if another user owns it or could write to it); one agent
                         per state directory (a second one exits, naming the first one's PID)
      --token-file FILE  the token every request but /healthz needs (default: the state directory's
                         agent-token, made at first start, mode 0600; the CLI finds it there); at least
                         32 characters, in a file only you can read
      --tls-cert-file FILE, --tls-private-key-file FILE
                         the serving certificate off loopback (default: a self-signed one made at first
                         start in the state directory's pki/; its SHA-256 fingerprint is printed)
      --probe-history-window DURATION
                         how long each probe's history is kept, in memory (bounded) and in the state
                         directory, for the console and describe/explain (default 24h; 1m to 168h)
${CONTAINER_LOG_HELP}      --log-level LEVEL  agent log level: debug, info, warn, error (default warn); log lines are part of
                         the live view (\`log  warn  …\`), with -q JSON lines on stderr
  -q, --quiet            no live view

Cluster mode (docs/cluster.md):
      --kubeconfig FILE  join the cluster of this kubeconfig as a node: register the Node, renew its
                         Lease, run the pods the scheduler binds to it and report their status
      --bootstrap-kubeconfig FILE
                         when --kubeconfig is missing or its client certificate expired, get a node
                         certificate with this kubeconfig's bootstrap token (a CSR the cluster
                         approves), keep it beside --kubeconfig and write --kubeconfig to use it; the
                         certificate is rotated before it expires
      --rotate-server-certificates
                         request the daemon endpoint's certificate from the cluster
                         (kubernetes.io/kubelet-serving CSRs, which someone must approve) and rotate it;
                         the endpoint listens once the first one is issued
      --node-name NAME   the Node's name (default: the host name)
      --node-ip IP       the Node's InternalIP, where the API server reaches the daemon endpoint
                         (default: the first non-loopback IPv4 address)
      --kubelet-port N   the daemon endpoint's HTTPS port (default ${DEFAULT_KUBELET_PORT}): logs, /pods, /healthz
      --client-ca-file FILE
                         the CA of the client certificates the daemon endpoint lets in (the API
                         server's kubelet client certificate); without it the endpoint is not served
`;

/** runRunCommand runs `probelet run ARGS…`; resolves with the exit code after shutdown. */
export async function runRunCommand(argv: readonly string[], ctx: CommandContext): Promise<number> {
  const { values } = parseRunArgs(argv);
  if (values.help) {
    ctx.stdout(RUN_HELP);
    return 0;
  }
  // Every check that can fail comes first: flags, manifests, the listen address, the credentials.
  // Until they pass nothing touches the state directory or a runtime (a second agent on a busy
  // state directory, a bad manifest or a taken port disturb nothing that runs).
  const files = values.filename ?? [];
  if (files.length === 0 && values.manifests === undefined && values.kubeconfig === undefined) throw new UsageError("nothing to run: give -f FILE, --manifests DIR or --kubeconfig FILE");
  const runtimeName = values.runtime ?? "process";
  if (runtimeName !== "process" && runtimeName !== "cri") throw new UsageError(`unsupported runtime "${runtimeName}": supported values: "process", "cri"`);
  if (values["leave-running"] && runtimeName === "process" && !(await supervisorAvailable())) {
    throw new UsageError(`--leave-running needs the process supervisor helper (${defaultSupervisorPath()}, built by npm run build with a C compiler): without it process containers cannot outlive the agent`);
  }
  if (values.token !== undefined) throw new UsageError("--token would show the token to every user of this machine (ps): use --token-file FILE");
  if ((values["tls-cert-file"] === undefined) !== (values["tls-private-key-file"] === undefined)) throw new UsageError("--tls-cert-file and --tls-private-key-file go together");
  const listen = values.listen ?? DEFAULT_LISTEN;
  let listenHost: string;
  try {
    listenHost = parseListenAddress(listen).host;
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  const givenStateDir = values["state-dir"] !== undefined ? resolve(values["state-dir"]) : defaultStateDir();
  podCidrFlag(values["pod-cidr"], runtimeName, givenStateDir);
  const level = parseLevel(values["log-level"] ?? "warn");
  const probeHistoryWindowMs = parseHistoryWindow(values["probe-history-window"]);
  const containerLogs = containerLogPolicy(values);
  // With the live view on, the agent's log lines are lines of the view (stdout), not JSON on stderr
  // between its lines; with -q they are JSON lines on stderr, for a collector.
  const logger = values.quiet ? createLogger({ level }) : createLogger({ level, write: ctx.stdout, format: formatLogLine });
  const clock = ctx.clock ?? systemClock;

  const manifests: { name: string; text: string }[] = [];
  const failures: string[] = [];
  const podNames = new Set<string>();
  for (const file of files) {
    const name = file === "-" ? "STDIN" : file;
    const text = await readInputFile(file, () => ctx.readStdin());
    const checked = checkManifest(text, name);
    for (const warning of checked.warnings) ctx.stderr(`Warning: ${warning}\n`);
    failures.push(...checked.errors);
    for (const pod of checked.pods) {
      const key = `${pod.metadata?.namespace ?? "default"}/${pod.metadata?.name ?? ""}`;
      if (podNames.has(key)) failures.push(`${name}: pods "${pod.metadata?.name ?? ""}" already exists in another file`);
      podNames.add(key);
    }
    manifests.push({ name: file, text });
  }
  if (failures.length > 0) {
    ctx.stderr(`error: ${failures.join("\n")}\n`);
    return 2;
  }
  if (values.manifests !== undefined) await requireDirectory(values.manifests);
  const cluster = await clusterSettings(values, clock, logger, ctx.signal);

  // The state directory is its owner's (state-directory.ts): refused, untouched, when it is not.
  const stateDir = await prepareStateDirectory(givenStateDir);
  const podCidr = podCidrFlag(values["pod-cidr"], runtimeName, stateDir);
  const lock = await StateDirectoryLock.acquire(stateDir);
  // In cluster mode the pods' ConfigMaps and Secrets come from the API server, read with the
  // node's credentials as the kubelet's watch-based managers read them.
  const configClient = cluster === undefined ? undefined : new RestClient({ credentials: cluster.credentials, clock, logger: logger.child("cluster"), userAgent: nodeUserAgent(KUBELET_VERSION) });
  const configObjects = configClient === undefined ? undefined : new ApiConfigObjects({ client: configClient, clock, logger: logger.child("cluster").child("config") });
  // The cluster's services give the containers their service variables, as the kubelet's informer does.
  const services = configClient === undefined ? undefined : new ApiServices({ client: configClient, clock, logger: logger.child("cluster").child("services") });
  services?.start();
  // And their service-account tokens come from TokenRequests, as the kubelet's token manager gets them.
  const serviceAccountTokens = configClient === undefined ? undefined : new ServiceAccountTokens({ request: requestTokensWith(configClient), clock, logger: logger.child("cluster").child("tokens") });
  try {
    const credentials = await serverCredentials(values, stateDir, listenHost);
    // Container logs and termination-message files live here; nobody else may even look in.
    await privateSubdirectory(join(stateDir, "pods"));
    surviveUncaughtErrors();
    const opened = await openRuntime(runtimeName, values["cri-socket"], stateDir, podCidr, clock, logger);
    const runtime = cluster !== undefined ? withNodePodIP(opened, cluster.nodeIP) : opened;
    // The composer builds the API server's part (the store and its namespace controller) and hands it to the agent.
    const api = startLocalApiServer(clock);
    const agent = new Agent({
      api,
      runtime, stateDir, clock, logger: logger.child("agent"),
      ...(probeHistoryWindowMs !== undefined ? { probeHistoryWindowMs } : {}),
      containerLogs,
      ...(cluster !== undefined ? { nodeName: cluster.nodeName, hostIP: cluster.nodeIP } : {}),
      ...(configObjects !== undefined ? { configObjects } : {}),
      ...(serviceAccountTokens !== undefined ? { serviceAccountTokens } : {}),
      ...(services !== undefined ? { services } : {}),
    });
    // One agent, one set of console sessions, whichever of its listeners a browser or the CLI uses.
    const consoleSessions = new ConsoleSessions(clock);
    let markReady = (): void => undefined;
    const ready = new Promise<void>((r) => (markReady = r));
    let server;
    try {
      server = await startStatusServer(agent, { listen, ...credentials.server, ready, logger: logger.child("server"), consoleGate: consoleGateFactory(consoleSessions) });
    } catch (err) {
      await runtime.close();
      throw new UsageError(`cannot serve the status API on ${listen}: ${err instanceof Error ? err.message : String(err)}`);
    }
    let secure;
    let socket;
    try {
      const serve = { api: agent, token: credentials.server.token, ready, logger, consoleSessions };
      secure = credentials.server.tls === undefined ? await startSecureListener(values, stateDir, listenHost, serve) : undefined;
      socket = await startSocketListener(stateDir, { ...serve, consoleUrl: server.url });
    } catch (err) {
      await secure?.server.close();
      await server.close();
      await runtime.close();
      throw err;
    }
    // Where `probelet kubeconfig` finds this agent (kubectl sends tokens over HTTPS only); forgotten once it stops serving.
    await writeAgentUrl(stateDir, server.url, secure?.server.url);
    const fingerprint = credentials.fingerprint ?? secure?.fingerprint;
    return await runAgent({ values, ctx, runtime, api, agent, server, secure: secure?.server, socket, manifests, markReady, clock, logger, stateDir, fingerprint, cluster, configClient });
  } finally {
    await configObjects?.close();
    await services?.close();
    configClient?.close();
    await removeAgentUrl(stateDir);
    await lock.release();
  }
}

/** RunningAgent is what runAgent needs: the opened runtime, agent and server, and the checked manifests. */
interface RunningAgent {
  values: ReturnType<typeof parseRunArgs>["values"];
  ctx: CommandContext;
  runtime: Runtime;
  /** The store and its controllers, which the agent runs against. */
  api: LocalApiServer;
  agent: Agent;
  server: StatusServer;
  /** The same API over HTTPS beside a loopback HTTP server (for kubectl), when a certificate could be had. */
  secure: StatusServer | undefined;
  /** The same API on the state directory's Unix socket, for the owner's CLI. */
  socket: StatusServer;
  manifests: { name: string; text: string }[];
  markReady: () => void;
  clock: Clock;
  logger: Logger;
  stateDir: string;
  fingerprint: string | undefined;
  cluster: ClusterSettings | undefined;
  /** The client the pods' ConfigMaps, Secrets and tokens are read with (cluster mode). */
  configClient: RestClient | undefined;
}

/** ClusterSettings are the checked cluster-mode flags. */
interface ClusterSettings {
  credentials: ClusterCredentials;
  nodeName: string;
  nodeIP: string;
  kubeletPort: number;
  clientCa: Buffer | undefined;
  /** The client certificate of a TLS bootstrap, rotated from then on (--bootstrap-kubeconfig). */
  clientCertificates?: CertificateStore;
}

/**
 * clusterSettings checks the cluster-mode flags and reads the kubeconfig (undefined without
 * --kubeconfig); with --bootstrap-kubeconfig it first makes sure the kubeconfig has a valid node
 * client certificate, bootstrapping one as the kubelet does (tls-bootstrap.ts).
 */
async function clusterSettings(values: ReturnType<typeof parseRunArgs>["values"], clock: Clock, logger: Logger, signal: AbortSignal | undefined): Promise<ClusterSettings | undefined> {
  if (values.kubeconfig === undefined) {
    for (const flag of ["node-name", "node-ip", "kubelet-port", "client-ca-file", "bootstrap-kubeconfig", "rotate-server-certificates"] as const) {
      if (values[flag] !== undefined) throw new UsageError(`--${flag} needs --kubeconfig`);
    }
    return undefined;
  }
  const nodeName = values["node-name"] ?? hostname().toLowerCase();
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(nodeName) || nodeName.length > 253) {
    throw new UsageError(`--node-name: Invalid value: "${nodeName}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`);
  }
  const port = Number(values["kubelet-port"] ?? DEFAULT_KUBELET_PORT);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new UsageError(`--kubelet-port: Invalid value: "${values["kubelet-port"] ?? ""}": must be between 1 and 65535, inclusive`);
  const nodeIP = values["node-ip"] ?? defaultNodeIP();
  if (isIP(nodeIP) === 0) throw new UsageError(`--node-ip: Invalid value: "${nodeIP}": must be an IP address`);
  if (values["rotate-server-certificates"] && values["client-ca-file"] === undefined) throw new UsageError("--rotate-server-certificates needs --client-ca-file: without it the daemon endpoint is not served");
  if (values["rotate-server-certificates"] && values["tls-cert-file"] !== undefined) throw new UsageError("--rotate-server-certificates and --tls-cert-file exclude each other: the serving certificate comes from the cluster or from the file");
  const bootstrapKubeconfig = values["bootstrap-kubeconfig"];
  if (bootstrapKubeconfig !== undefined) {
    // A failed bootstrap is not a usage error: the kubelet exits with it, and so does the agent.
    await loadClientCert({ kubeconfig: values.kubeconfig, bootstrapKubeconfig, nodeName, clock, logger: logger.child("bootstrap"), userAgent: nodeUserAgent(KUBELET_VERSION), ...(signal ? { signal } : {}) });
  }
  try {
    const credentials = await loadKubeconfig(values.kubeconfig);
    const caFile = values["client-ca-file"];
    const clientCa = caFile === undefined ? undefined : Buffer.from(await readFile(caFile).catch((err: unknown) => {
      throw new Error(`--client-ca-file ${caFile}: ${err instanceof Error ? err.message : String(err)}`);
    }));
    const clientCertificates = bootstrapKubeconfig === undefined ? undefined : new CertificateStore(dirname(values.kubeconfig), CLIENT_PAIR);
    return { credentials, nodeName, nodeIP, kubeletPort: port, clientCa, ...(clientCertificates ? { clientCertificates } : {}) };
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

/** runAgent adopts or reaps what a previous agent left, admits the pods, and runs until a signal. */
async function runAgent(run: RunningAgent): Promise<number> {
  const { values, ctx, runtime, agent, server, clock, logger } = run;
  const unsubscribe = values.quiet ? [] : [agent.watchPods((e) => ctx.stdout(formatPodLine(e, clock.now()))), agent.watchEvents((e) => ctx.stdout(formatEventLine(e)))];
  if (runtime instanceof ProcessRuntime) await runtime.reapOrphans();
  await agent.restore();
  for (const { name, text } of run.manifests) {
    const report = applyManifest(agent, text, name === "-" ? "STDIN" : name, name === "-" ? "file:-" : `file:${resolve(name)}`, false);
    // Pods were validated above: what is left is a name a restored API pod already has, and the
    // ConfigMaps and Secrets refused (the rest of the file runs regardless).
    if (report.errors.length > 0) ctx.stderr(`error: ${report.errors.join("\n")}\n`);
  }
  const dir = values.manifests === undefined ? undefined : new ManifestDirectory(values.manifests, agent, clock, logger.child("manifests"), (r) => {
    for (const w of r.warnings) ctx.stderr(`Warning: ${w}\n`);
    for (const e of r.errors) ctx.stderr(`error: ${e}\n`);
  });
  await dir?.start();
  // The manifests and the directory were read above. The API server's pods may take a while (or
  // the server may be away): until its first list the agent cleans up nothing of pods it does not
  // know (kubelet SourcesReady), and running pods are never killed for that.
  if (run.cluster !== undefined) agent.sourcesReady.add(API_SERVER_SOURCE);
  const node = run.cluster === undefined ? undefined : await startClusterNode(run, run.cluster);
  void node?.podsSynced.then(() => agent.sourcesReady.seen(API_SERVER_SOURCE));
  agent.start();
  run.markReady();
  const tls = run.fingerprint === undefined ? "" : ` (TLS certificate SHA-256 ${run.fingerprint})`;
  const joined = run.cluster === undefined ? "" : `, node ${run.cluster.nodeName} of ${run.cluster.credentials.server}`;
  const api = run.secure === undefined ? `status API ${server.url}${tls}` : `status API ${server.url}, HTTPS ${run.secure.url}${tls}`;
  ctx.stdout(`probelet: agent running (runtime ${runtime.type}, ${api}, state ${run.stateDir}${joined}); Ctrl-C stops\n`);

  await waitForAbort(ctx.signal);
  ctx.stdout("probelet: stopping pods gracefully (signal again to kill them at once)\n");
  const secondSignal = new Promise<void>((resolveSecond) => {
    const again = (): void => resolveSecond();
    process.once("SIGINT", again);
    process.once("SIGTERM", again);
  });
  await dir?.close();
  await node?.close();
  // The namespace controller stops before the pods do, with the agent's own store watches.
  run.api.stop();
  if (values["leave-running"]) {
    await agent.detach();
    await server.close();
    await run.secure?.close();
    await run.socket.close();
    await runtime.close();
    ctx.stdout("probelet: stopped; containers left running for the next agent\n");
    return 0;
  }
  const graceful = agent.close();
  await Promise.race([graceful, secondSignal.then(() => agent.destroy())]);
  for (const off of unsubscribe) off();
  await server.close();
  await run.secure?.close();
  await run.socket.close();
  await runtime.close();
  ctx.stdout("probelet: stopped\n");
  return 0;
}

/** startClusterNode joins the cluster: the daemon endpoint, registration, lease, pods and statuses. */
async function startClusterNode(run: RunningAgent, cluster: ClusterSettings): Promise<ClusterNode> {
  const { runtime, agent, clock, logger } = run;
  let server;
  if (cluster.clientCa === undefined) {
    run.ctx.stderr("Warning: no --client-ca-file: the daemon endpoint is not served, so kubectl logs through the API server will not work\n");
  } else {
    const certFile = run.values["tls-cert-file"];
    const keyFile = run.values["tls-private-key-file"];
    const cert = certFile !== undefined && keyFile !== undefined ? await loadServingCert(certFile, keyFile) : await loadOrCreateServingCert(run.stateDir, [cluster.nodeIP, cluster.nodeName]);
    server = { host: cluster.nodeIP, cert: cert.cert, key: cert.key, clientCa: cluster.clientCa };
  }
  const version = runtime.type !== "process" ? await runtime.version().then((v) => `${v.runtimeName}://${v.runtimeVersion}`, () => "cri://unknown") : "process://probelet";
  const node = new ClusterNode({
    credentials: cluster.credentials,
    identity: {
      name: cluster.nodeName,
      internalIP: cluster.nodeIP,
      hostname: cluster.nodeName,
      kubeletPort: cluster.kubeletPort,
      containerRuntimeVersion: version,
      kubeletVersion: KUBELET_VERSION,
      stateDir: run.stateDir,
      taints: runtime.type === "process" ? [PROCESS_RUNTIME_TAINT] : [],
    },
    agent,
    ...(server !== undefined ? { server } : {}),
    ...(cluster.clientCertificates !== undefined ? { clientCertificates: { store: cluster.clientCertificates, rotated: (cert: StoredCertificate) => run.configClient?.useClientCertificate(cert.cert, cert.key) } } : {}),
    ...(run.values["rotate-server-certificates"] ? { servingCertificates: new CertificateStore(join(run.stateDir, "pki"), SERVING_PAIR) } : {}),
    clock,
    logger: logger.child("cluster"),
  });
  try {
    await node.start();
  } catch (err) {
    await node.close();
    throw new UsageError(`cannot serve the daemon endpoint on ${cluster.nodeIP}:${cluster.kubeletPort}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return node;
}

/** requireDirectory fails with kubectl's wording when the manifest directory is not there. */
async function requireDirectory(dir: string): Promise<void> {
  const info = await stat(dir).catch(() => undefined);
  if (info === undefined) throw new UsageError(`the path "${dir}" does not exist`);
  if (!info.isDirectory()) throw new UsageError(`--manifests ${dir}: not a directory`);
}

/**
 * serverCredentials are the status API's token (--token-file, else the state directory's own)
 * and, off loopback, its TLS certificate (--tls-cert-file, else the state directory's
 * self-signed one, made at first start). Errors name the file and the reason.
 */
async function serverCredentials(values: ReturnType<typeof parseRunArgs>["values"], stateDir: string, host: string): Promise<{ server: { token: string; tls?: { cert: Buffer; key: Buffer } }; fingerprint: string | undefined }> {
  try {
    const token = values["token-file"] !== undefined ? await readServingToken(values["token-file"]) : await loadOrCreateAgentToken(stateDir);
    if (isLoopbackHost(host)) return { server: { token }, fingerprint: undefined };
    const certFile = values["tls-cert-file"];
    const keyFile = values["tls-private-key-file"];
    const cert = certFile !== undefined && keyFile !== undefined ? await loadServingCert(certFile, keyFile) : await loadOrCreateServingCert(stateDir, [host]);
    return { server: { token, tls: { cert: cert.cert, key: cert.key } }, fingerprint: cert.fingerprint256 };
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

/** ListenerSettings are what the agent's second and third listeners share with the first. */
interface ListenerSettings {
  api: Agent;
  token: string;
  ready: Promise<void>;
  logger: Logger;
  consoleSessions: ConsoleSessions;
}

/**
 * startSecureListener serves the API a second time over HTTPS beside a loopback HTTP listener,
 * as the kubelet has its read-only port and its secure port: kubectl sends a bearer token over
 * HTTPS only, so this is the address `probelet kubeconfig` gives it. The certificate is the
 * state directory's self-signed one (or --tls-cert-file); without openssl there is none, which is
 * reported, and the agent runs with its HTTP listener alone.
 */
async function startSecureListener(
  values: ReturnType<typeof parseRunArgs>["values"],
  stateDir: string,
  host: string,
  serve: ListenerSettings,
): Promise<{ server: StatusServer; fingerprint: string } | undefined> {
  const listen = values["secure-listen"] ?? `${host.includes(":") ? `[${host}]` : host}:0`;
  let cert;
  try {
    const certFile = values["tls-cert-file"];
    const keyFile = values["tls-private-key-file"];
    cert = certFile !== undefined && keyFile !== undefined ? await loadServingCert(certFile, keyFile) : await loadOrCreateServingCert(stateDir, [host]);
  } catch (err) {
    serve.logger.warn("No HTTPS listener: kubectl will not send its token to the HTTP one", { err: err instanceof Error ? err.message : String(err) });
    return undefined;
  }
  try {
    const server = await startStatusServer(serve.api, { listen, token: serve.token, tls: { cert: cert.cert, key: cert.key }, ready: serve.ready, logger: serve.logger.child("server"), consoleGate: consoleGateFactory(serve.consoleSessions) });
    return { server, fingerprint: cert.fingerprint256 };
  } catch (err) {
    throw new UsageError(`cannot serve the status API over HTTPS on ${listen}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * startSocketListener serves the API on `<state-dir>/agent.sock` for the owner's CLI, which
 * reaches its agent there without trusting any TCP port (client-credentials.ts). What a killed
 * agent left at that name is removed first: this agent holds the state directory's lock.
 */
async function startSocketListener(stateDir: string, serve: ListenerSettings & { consoleUrl: string }): Promise<StatusServer> {
  const path = agentSocketPath(stateDir);
  try {
    removeStaleSocket(path);
    return await startStatusServer(serve.api, { listen: `${SOCKET_SCHEME}${path}`, token: serve.token, ready: serve.ready, logger: serve.logger.child("server"), consoleUrl: serve.consoleUrl, consoleGate: consoleGateFactory(serve.consoleSessions) });
  } catch (err) {
    throw new UsageError(`cannot serve the API on the socket ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function parseRunArgs(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      options: {
        filename: { type: "string", short: "f", multiple: true },
        manifests: { type: "string" },
        runtime: { type: "string" },
        "cri-socket": { type: "string" },
        "pod-cidr": { type: "string" },
        "leave-running": { type: "boolean" },
        listen: { type: "string" },
        "secure-listen": { type: "string" },
        token: { type: "string" },
        "token-file": { type: "string" },
        "tls-cert-file": { type: "string" },
        "tls-private-key-file": { type: "string" },
        "state-dir": { type: "string" },
        kubeconfig: { type: "string" },
        "bootstrap-kubeconfig": { type: "string" },
        "rotate-server-certificates": { type: "boolean" },
        "node-name": { type: "string" },
        "node-ip": { type: "string" },
        "kubelet-port": { type: "string" },
        "client-ca-file": { type: "string" },
        "log-level": { type: "string" },
        "probe-history-window": { type: "string" },
        ...CONTAINER_LOG_OPTIONS,
        quiet: { type: "boolean", short: "q" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: false,
      strict: true,
    });
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

/** podCidrFlag reads --pod-cidr (process runtime only), else the state directory's default subnet. */
function podCidrFlag(text: string | undefined, runtimeName: string, stateDir: string): string {
  if (text === undefined) return defaultPodCidr(stateDir);
  if (runtimeName !== "process") throw new UsageError("--pod-cidr is for the process runtime; containerd's CNI configuration gives CRI pods their IPs");
  const parsed = parsePodCidr(text);
  if (typeof parsed === "string") throw new UsageError(`--pod-cidr: Invalid value: "${text}": ${parsed}`);
  return parsed.text;
}

/** parseHistoryWindow reads --probe-history-window: a Go duration from 1m to 168h. */
function parseHistoryWindow(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseGoDuration(text);
  if (ms === undefined || ms < 60_000 || ms > 168 * 3600_000) throw new UsageError(`invalid --probe-history-window "${text}": want a duration from 1m to 168h, such as 24h`);
  return ms;
}

/**
 * openRuntime builds the chosen runtime without changing anything in it; for CRI it checks that
 * the socket answers before anything starts.
 */
async function openRuntime(name: string, socket: string | undefined, stateDir: string, podCidr: string, clock: Clock, logger: Logger): Promise<Runtime> {
  if (name === "process") return new ProcessRuntime({ clock, logger, stateDir, podNetwork: { podCidr, bridge: podBridgeName(stateDir) } });
  const path = socket ?? process.env["PROBELET_CRI_SOCKET"] ?? "/run/containerd/containerd.sock";
  const cgroupPrefix = process.env["PROBELET_CRI_CGROUP_PARENT"];
  const runtime = new CriRuntime({ socket: path, clock, logger, ...(cgroupPrefix ? { cgroupPrefix } : {}) });
  try {
    await runtime.version();
  } catch (err) {
    await runtime.close();
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  return runtime;
}

function parseLevel(text: string): LogLevel {
  if (text === "debug" || text === "info" || text === "warn" || text === "error" || text === "trace") return text;
  throw new UsageError(`invalid --log-level "${text}": supported values: "debug", "info", "warn", "error"`);
}

function waitForAbort(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((r) => signal.addEventListener("abort", () => r(), { once: true }));
}
