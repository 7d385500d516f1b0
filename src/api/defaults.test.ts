import { test } from "node:test";
import assert from "node:assert/strict";
import { defaultContainer, defaultPod, defaultProbe, defaultPullPolicy, imageTag } from "./defaults.js";
import type { Pod, Probe } from "./types.js";

test('[case 205] Defaults: probe with all-zero numeric fields → timeout 1, period 10, success 1, failure 3, delay 0; httpGet path "" → "/", scheme "" → "HTTP"; grpc service nil → ""', () => {
  const zeros = { initialDelaySeconds: 0, timeoutSeconds: 0, periodSeconds: 0, successThreshold: 0, failureThreshold: 0 };
  const cases: { name: string; probe: Probe; expected: Probe }[] = [
    {
      name: "all-zero numbers with httpGet path and scheme empty",
      probe: { ...zeros, httpGet: { port: 8080, path: "", scheme: "" } },
      expected: { initialDelaySeconds: 0, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3, httpGet: { port: 8080, path: "/", scheme: "HTTP" } },
    },
    {
      name: "absent numbers with grpc service absent",
      probe: { grpc: { port: 9000 } },
      expected: { initialDelaySeconds: 0, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3, grpc: { port: 9000, service: "" } },
    },
    {
      name: "set values, negatives and terminationGracePeriodSeconds are kept",
      probe: { exec: { command: ["true"] }, initialDelaySeconds: 5, timeoutSeconds: -2, periodSeconds: 3, successThreshold: 2, failureThreshold: 7, terminationGracePeriodSeconds: 9 },
      expected: { exec: { command: ["true"] }, initialDelaySeconds: 5, timeoutSeconds: -2, periodSeconds: 3, successThreshold: 2, failureThreshold: 7, terminationGracePeriodSeconds: 9 },
    },
  ];
  for (const c of cases) assert.deepEqual(defaultProbe(c.probe), c.expected, c.name);
  assert.equal("terminationGracePeriodSeconds" in defaultProbe({ tcpSocket: { port: 1 } }), false);
});

test("defaultProbe keeps an explicit httpGet path, scheme and grpc service", () => {
  const probe = defaultProbe({ httpGet: { port: "http", path: "/healthz", scheme: "HTTPS" }, grpc: { port: 1, service: "svc" } });
  assert.deepEqual(probe.httpGet, { port: "http", path: "/healthz", scheme: "HTTPS" });
  assert.deepEqual(probe.grpc, { port: 1, service: "svc" });
});

test("imagePullPolicy follows the image tag like the API server", () => {
  const cases: [string | undefined, string, string][] = [
    ["nginx", "latest", "Always"],
    ["nginx:latest", "latest", "Always"],
    ["nginx:1.27", "1.27", "IfNotPresent"],
    ["localhost:5000/team/app", "latest", "Always"],
    ["localhost:5000/team/app:v2", "v2", "IfNotPresent"],
    ["nginx@sha256:0123", "", "IfNotPresent"],
    ["nginx:latest@sha256:0123", "latest", "Always"],
    ["", "", "IfNotPresent"],
    [undefined, "", "IfNotPresent"],
  ];
  for (const [image, tag, policy] of cases) {
    assert.equal(imageTag(image), tag, String(image));
    assert.equal(defaultPullPolicy(image), policy, String(image));
  }
});

test("defaultContainer fills termination message, pull policy, port protocol and lifecycle httpGet", () => {
  const c = defaultContainer({
    name: "app",
    image: "busybox:1.36",
    ports: [{ containerPort: 80 }, { containerPort: 53, protocol: "UDP" }],
    lifecycle: { preStop: { httpGet: { port: 80 } } },
    readinessProbe: { tcpSocket: { port: 80 } },
  });
  assert.equal(c.terminationMessagePath, "/dev/termination-log");
  assert.equal(c.terminationMessagePolicy, "File");
  assert.equal(c.imagePullPolicy, "IfNotPresent");
  assert.deepEqual(c.ports, [{ containerPort: 80, protocol: "TCP" }, { containerPort: 53, protocol: "UDP" }]);
  assert.deepEqual(c.lifecycle, { preStop: { httpGet: { port: 80, path: "/", scheme: "HTTP" } } });
  assert.equal(c.readinessProbe?.periodSeconds, 10);
  assert.equal(defaultContainer({ name: "x", imagePullPolicy: "Never" }).imagePullPolicy, "Never");
});

function samplePod(): Pod {
  return {
    metadata: { name: "web" },
    spec: {
      hostNetwork: true,
      containers: [{ name: "app", image: "nginx", ports: [{ containerPort: 8080 }], livenessProbe: { httpGet: { port: 8080 } } }],
      initContainers: [{ name: "side", restartPolicy: "Always", startupProbe: { exec: { command: ["true"] } } }],
    },
  };
}

test("defaultPod fills pod-level defaults and defaults every container and init container", () => {
  const pod = defaultPod(samplePod());
  assert.equal(pod.metadata.namespace, "default");
  assert.equal(pod.spec.restartPolicy, "Always");
  assert.equal(pod.spec.terminationGracePeriodSeconds, 30);
  assert.equal(pod.spec.dnsPolicy, "ClusterFirst");
  assert.equal(pod.spec.schedulerName, "default-scheduler");
  assert.deepEqual(pod.spec.containers[0]?.ports, [{ containerPort: 8080, protocol: "TCP", hostPort: 8080 }]);
  assert.deepEqual(pod.spec.containers[0]?.livenessProbe?.httpGet, { port: 8080, path: "/", scheme: "HTTP" });
  assert.equal(pod.spec.initContainers?.[0]?.startupProbe?.failureThreshold, 3);
  assert.equal(pod.spec.initContainers?.[0]?.imagePullPolicy, "IfNotPresent");
});

test("defaultPod keeps explicit values, including a zero pod grace period", () => {
  const input = samplePod();
  input.metadata.namespace = "team-a";
  input.spec.restartPolicy = "Never";
  input.spec.terminationGracePeriodSeconds = 0;
  const pod = defaultPod(input);
  assert.equal(pod.metadata.namespace, "team-a");
  assert.equal(pod.spec.restartPolicy, "Never");
  assert.equal(pod.spec.terminationGracePeriodSeconds, 0);
});

test("defaulting is pure: the input is never mutated and nothing is shared", () => {
  const input = samplePod();
  const snapshot = structuredClone(input);
  const pod = defaultPod(input);
  assert.deepEqual(input, snapshot);
  assert.notEqual(pod.spec.containers[0], input.spec.containers[0]);
  pod.spec.containers[0]!.livenessProbe!.httpGet!.port = 1;
  assert.equal(input.spec.containers[0]?.livenessProbe?.httpGet?.port, 8080);

  const probe: Probe = { httpGet: { port: 1 } };
  const defaulted = defaultProbe(probe);
  assert.deepEqual(probe, { httpGet: { port: 1 } });
  assert.notEqual(defaulted.httpGet, probe.httpGet);
});
