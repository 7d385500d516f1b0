// TokenRequests through the node's credentials (client-go CoreV1().ServiceAccounts(ns).CreateToken,
// as the kubelet's token manager sends them): POST
// /api/v1/namespaces/<ns>/serviceaccounts/<name>/token. The Node authorizer lets a node ask only
// for tokens bound to a pod bound to it, of that pod's service account and audiences.
import type { RequestToken, TokenRequest } from "../volumes/service-account-tokens.js";
import type { RestClient } from "../client/rest-client.js";

/** requestTokensWith sends a node's TokenRequests through `client`. */
export function requestTokensWith(client: RestClient): RequestToken {
  return (namespace, serviceAccount, request) =>
    client.request<TokenRequest>("POST", `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts/${encodeURIComponent(serviceAccount)}/token`, { body: request });
}
