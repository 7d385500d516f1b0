// The /api/v1 routes, built from the resource registry: for each resource its collection
// (GET list/watch, POST, DELETE collection), its objects (GET, PUT, PATCH, DELETE) and its
// status subresource; all-namespaces lists for namespaced resources; pods/log and the exec
// seam; and discovery (/version, /api, /apis, /api/v1, /openapi/v2, /openapi/v3).
import { sendJson } from "../endpoints/respond.js";
import type { Handler, Route } from "../endpoints/request-context.js";
import { badRequestStatus, StatusError } from "../endpoints/status-object.js";
import { apiGroupList, apiResourceList, apiVersions } from "../discovery/api-discovery.js";
import { openApiCoreV1, openApiIndex } from "../discovery/openapi.js";
import { openApiV2Handler } from "../discovery/openapi-v2.js";
import { versionInfo } from "../discovery/version-info.js";
import { RESOURCES } from "../resources/registry.js";
import type { ResourceDefinition, Verb } from "../resources/resource-definition.js";
import { deleteCollectionHandler, deleteHandler } from "./delete-handlers.js";
import { podLogHandler } from "./pod-log.js";
import { getHandler, listHandler } from "./read-handlers.js";
import { onResource } from "./request-scope.js";
import { PODS } from "../resources/pods.js";
import { createHandler, patchHandler, updateHandler } from "./write-handlers.js";

const answer = (body: () => unknown): Handler => (ctx) => sendJson(ctx.res, 200, body());

// kubectl exec and attach need a connection upgrade (SPDY or WebSocket); a plain request gets
// the API server's 400.
const upgradeRequired: Handler = () => {
  throw new StatusError(badRequestStatus("Upgrade request required"));
};

function methods(resource: ResourceDefinition, entries: [Verb, string, Handler][]): Partial<Record<string, Handler>> {
  return Object.fromEntries(entries.filter(([verb]) => resource.verbs.includes(verb)).map(([, method, handler]) => [method, onResource(resource, handler)]));
}

function resourceRoutes(resource: ResourceDefinition): Route[] {
  const scope = resource.namespaced ? "/api/v1/namespaces/:ns" : "/api/v1";
  const routes: Route[] = [
    {
      pattern: `${scope}/${resource.name}`,
      methods: methods(resource, [["list", "GET", listHandler(resource)], ["create", "POST", createHandler(resource)], ["deletecollection", "DELETE", deleteCollectionHandler(resource)]]),
    },
    {
      pattern: `${scope}/${resource.name}/:name`,
      methods: methods(resource, [
        ["get", "GET", getHandler(resource)],
        ["update", "PUT", updateHandler(resource, "main")],
        ["patch", "PATCH", patchHandler(resource, "main")],
        ["delete", "DELETE", deleteHandler(resource)],
      ]),
    },
  ];
  if (resource.namespaced) routes.push({ pattern: `/api/v1/${resource.name}`, methods: { GET: onResource(resource, listHandler(resource)) } });
  if (resource.status !== undefined) {
    const status = { GET: getHandler(resource), PUT: updateHandler(resource, "status"), PATCH: patchHandler(resource, "status") };
    routes.push({ pattern: `${scope}/${resource.name}/:name/status`, methods: Object.fromEntries(Object.entries(status).map(([method, handler]) => [method, onResource(resource, handler)])) });
  }
  return routes;
}

/** apiRoutes are every route of the Kubernetes API the agent serves. */
export function apiRoutes(): Route[] {
  return [
    { pattern: "/version", methods: { GET: answer(versionInfo) } },
    { pattern: "/api", methods: { GET: (ctx) => sendJson(ctx.res, 200, apiVersions(ctx.req.headers.host ?? "")) } },
    { pattern: "/apis", methods: { GET: answer(apiGroupList) } },
    { pattern: "/api/v1", methods: { GET: answer(() => apiResourceList(RESOURCES)) } },
    { pattern: "/openapi/v2", methods: { GET: openApiV2Handler } },
    { pattern: "/openapi/v3", methods: { GET: answer(() => openApiIndex(RESOURCES)) } },
    { pattern: "/openapi/v3/api/v1", methods: { GET: answer(() => openApiCoreV1(RESOURCES)) } },
    ...RESOURCES.flatMap(resourceRoutes),
    { pattern: "/api/v1/namespaces/:ns/pods/:name/log", methods: { GET: onResource(PODS, podLogHandler) } },
    { pattern: "/api/v1/namespaces/:ns/pods/:name/exec", methods: { GET: onResource(PODS, upgradeRequired), POST: onResource(PODS, upgradeRequired) } },
  ];
}
