// Reading and decoding request bodies: a hard size limit (the API server answers 413 past its
// limit) and JSON or YAML by Content-Type, parsed within the input bounds of
// src/api/bounded-parse.ts (depth, YAML tokens, aliases), so a hostile body is a quick 4xx.
// Decoding only turns bytes into a plain object; the agent's createPod does the strict, typed
// decoding and validation.
import type { IncomingMessage } from "node:http";
import { MAX_INPUT_BYTES, MAX_YAML_INPUT_BYTES, parseBounded } from "../../api/bounded-parse.js";
import { badRequestStatus, requestEntityTooLargeStatus, StatusError, unsupportedMediaTypeStatus } from "./status-object.js";

/**
 * MAX_BODY_BYTES is the largest request body accepted: 3 MiB, the kube-apiserver's default
 * (apiserver options MaxRequestBodyBytes, 3 * 1024 * 1024).
 */
export const MAX_BODY_BYTES = MAX_INPUT_BYTES;

/** ACCEPTED_MEDIA_TYPES are the body formats the server decodes. */
export const ACCEPTED_MEDIA_TYPES = ["application/json", "application/yaml"] as const;

// Past the limit the rest of the body is still read and dropped, so the client finishes sending
// and reads the 413; a body larger than this is cut off with the connection instead.
const DRAIN_FACTOR = 8;

/**
 * readBody collects the request body, rejecting with a 413 StatusError once it exceeds
 * limitBytes. It rejects with a plain Error if the client goes away mid-body.
 */
export function readBody(req: IncomingMessage, limitBytes = MAX_BODY_BYTES): Promise<Buffer> {
  const tooLarge = (): StatusError => new StatusError(requestEntityTooLargeStatus(limitBytes), { Connection: "close" });
  const declared = Number(req.headers["content-length"] ?? Number.NaN);
  if (declared > limitBytes * DRAIN_FACTOR) {
    req.pause();
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = (): void => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limitBytes) chunks.push(chunk);
      else if (size > limitBytes * DRAIN_FACTOR) {
        cleanup();
        req.pause();
        reject(tooLarge());
      }
    };
    const onEnd = (): void => {
      cleanup();
      if (size > limitBytes) reject(tooLarge());
      else resolve(Buffer.concat(chunks, size));
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(err);
    };
    const onClose = (): void => {
      cleanup();
      reject(new Error("the client closed the connection before sending the whole body"));
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
}

/** mediaType returns the lower-cased type/subtype of a Content-Type header ("" when absent). */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/**
 * decodeObjectBody parses a JSON or YAML body into a plain object. A body without a
 * Content-Type is JSON, the server's first media type (apiserver negotiation,
 * NegotiateInputSerializerForMediaType; kubectl 1.20's `create namespace|configmap|secret` sends
 * none); another Content-Type is a 415; a body over the size limit (1 MiB for YAML) a 413; syntax errors,
 * nesting past the depth limit, an over-complex YAML stream, more than one YAML document and
 * non-object documents are a 400 BadRequest.
 */
export function decodeObjectBody(body: Buffer, contentType: string | undefined): Record<string, unknown> {
  const type = mediaType(contentType) || ACCEPTED_MEDIA_TYPES[0];
  if (type !== "application/json" && type !== "application/yaml") throw new StatusError(unsupportedMediaTypeStatus(ACCEPTED_MEDIA_TYPES));
  if (body.length > MAX_BODY_BYTES) throw new StatusError(requestEntityTooLargeStatus(MAX_BODY_BYTES));
  const format = type === "application/json" ? "json" : "yaml";
  const parsed = parseBounded(body.toString("utf8"), format, "body");
  if (!parsed.ok && parsed.reason === "TooLarge") throw new StatusError(requestEntityTooLargeStatus(MAX_YAML_INPUT_BYTES));
  if (!parsed.ok) throw new StatusError(badRequestStatus(`invalid ${format === "json" ? "JSON" : "YAML"}: ${parsed.errors.join("; ")}`));
  if (parsed.documents.length > 1) {
    throw new StatusError(badRequestStatus(`the request body must be a single object, got ${parsed.documents.length} YAML documents`));
  }
  const value = parsed.documents[0]?.value ?? null;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    const got = value === null ? "null" : Array.isArray(value) ? "a list" : typeof value;
    throw new StatusError(badRequestStatus(`the request body must be a single object, got ${got}`));
  }
  return value as Record<string, unknown>;
}
