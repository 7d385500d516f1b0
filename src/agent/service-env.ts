// Service environment variables, as the kubelet gives every container of an API pod
// (pkg/kubelet/kubelet_pods.go getServiceEnvVarMap, pkg/kubelet/envvars/envvars.go FromServices,
// makeLinkVariables): for the `kubernetes` service of the default namespace always, and for the
// services of the pod's namespace when enableServiceLinks is on (the API server defaults it to
// true), `<NAME>_SERVICE_HOST`, `<NAME>_SERVICE_PORT[_<PORT NAME>]` and the Docker link
// variables `<NAME>_PORT`, `<NAME>_PORT_<port>_<PROTO>[_PROTO|_PORT|_ADDR]`. Services without a
// cluster IP (headless, or "None") give none.

/** ServicePort is the part of a core/v1 ServicePort the variables use. */
export interface ServicePort {
  name?: string;
  port: number;
  protocol?: string;
}

/** ServiceObject is the part of a core/v1 Service the variables use. */
export interface ServiceObject {
  metadata: { name?: string; namespace?: string };
  spec?: { clusterIP?: string; ports?: ServicePort[] };
}

/** ServiceSource lists the cluster's services; undefined until it has read them once. */
export interface ServiceSource {
  services(): readonly ServiceObject[] | undefined;
}

/** The error when a pod starts before the services were read (kubelet makeEnvironmentVariables). */
export const SERVICES_NOT_READ = "services have not yet been read at least once, cannot construct envvars";

const MASTER_SERVICES = new Set(["kubernetes"]);

function isServiceIPSet(service: ServiceObject): boolean {
  const ip = service.spec?.clusterIP ?? "";
  return ip !== "" && ip !== "None";
}

function envName(name: string): string {
  return name.replaceAll("-", "_").toUpperCase();
}

function joinHostPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/** fromServices renders the variables of the given services (envvars.FromServices). */
export function fromServices(services: readonly ServiceObject[]): [string, string][] {
  const out: [string, string][] = [];
  for (const service of services) {
    if (!isServiceIPSet(service)) continue;
    const ip = service.spec!.clusterIP!;
    const ports = service.spec?.ports ?? [];
    const prefix = envName(service.metadata.name ?? "");
    out.push([`${prefix}_SERVICE_HOST`, ip]);
    if (ports.length === 0) continue;
    out.push([`${prefix}_SERVICE_PORT`, String(ports[0]!.port)]);
    for (const p of ports) if (p.name) out.push([`${prefix}_SERVICE_PORT_${envName(p.name)}`, String(p.port)]);
    ports.forEach((p, i) => {
      const protocol = p.protocol || "TCP";
      const url = `${protocol.toLowerCase()}://${joinHostPort(ip, p.port)}`;
      if (i === 0) out.push([`${prefix}_PORT`, url]);
      const portPrefix = `${prefix}_PORT_${p.port}_${protocol.toUpperCase()}`;
      out.push([portPrefix, url], [`${portPrefix}_PROTO`, protocol.toLowerCase()], [`${portPrefix}_PORT`, String(p.port)], [`${portPrefix}_ADDR`, ip]);
    });
  }
  return out;
}

/** serviceEnvVars picks the services a pod sees (getServiceEnvVarMap) and renders them. */
export function serviceEnvVars(services: readonly ServiceObject[], namespace: string, enableServiceLinks: boolean): Map<string, string> {
  const picked = new Map<string, ServiceObject>();
  for (const service of services) {
    if (!isServiceIPSet(service)) continue;
    const name = service.metadata.name ?? "";
    if (service.metadata.namespace === "default" && MASTER_SERVICES.has(name)) {
      if (!picked.has(name)) picked.set(name, service);
    } else if (service.metadata.namespace === namespace && enableServiceLinks) {
      picked.set(name, service);
    }
  }
  return new Map(fromServices([...picked.values()]));
}
