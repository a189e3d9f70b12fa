import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "./app-env";
import { sha256Hex } from "../lib/crypto";
import { clientIp } from "./rate-limit";
import { IdempotencyUnit } from "../lib/idempotency-key";
import { ApiError } from "./errors";
import { rawUpload } from "./route-facts";
import { mib } from "../lib/limits";
import { IDEMPOTENCY_KEY_PATTERN } from "./request-headers";
import { LIMITS } from "../lib/limits";

const IDEMPOTENCY_KEY = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/**
 * `Idempotency-Key` on every POST. This middleware only prepares the request's
 * unit (scope, key, hash of method, path and body); the services reserve the key in their first
 * batch and seal it with the response in the change's batch. Failed requests free the key again.
 * Keys are scoped to the API key, or to the client IP on routes without one.
 *
 * @example app.use("/v1/*", idempotency())
 */
export function idempotency<E extends AppEnv = AppEnv>(): MiddlewareHandler<E> {
  return async function idempotencyMiddleware(c, next) {
    if (c.req.method !== "POST") return next();
    const key = c.req.header("idempotency-key");
    if (key === undefined) return next();
    if (!IDEMPOTENCY_KEY.test(key)) {
      throw new ApiError("bad_request", {
        detail: `Idempotency-Key must be 1 to ${LIMITS.idempotencyKeyLength} printable ASCII characters (a UUID will do).`,
        source: { header: "Idempotency-Key" },
      });
    }
    const scope = c.var.caller ? c.var.caller.keyId : `ip:${clientIp(c.req)}`;
    const upload = rawUpload(c);
    const requestHash = upload
      ? await uploadRequestHash(c, upload.maxBytes)
      : await idempotencyRequestHash(c.req.method, c.req.path, await c.req.text());
    const unit = new IdempotencyUnit(() => c.var.database.db, scope, key, requestHash);
    c.set("idempotency", unit);
    await next();
    if (unit.sealed) return;
    if (c.res.status >= 400) {
      // Also when the reservation's own batch failed on the way back: it may have committed, and the
      // token is this request's, so only this request's in-flight reservation can go.
      await unit
        .release()
        .catch((err) => console.error(JSON.stringify({ level: "warn", message: "idempotency key not released", error: String(err) })));
    } else if (unit.reserved) {
      const res = c.res.clone();
      await unit.storeAfter({ status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() });
    }
  };
}

/** What "the same request" means for a key: the same method, path and body, byte for byte. */
export function idempotencyRequestHash(method: string, path: string, body: string): Promise<string> {
  return sha256Hex(`${method} ${path}\n${body}`);
}

/**
 * For an attachment upload, the key covers the file's bytes and its name (the query). The body is read
 * once, here, up to the file limit (a bigger one is refused before any D1 work), and handed on as the
 * request's body with its length, so the upload streams from this copy instead of buffering again.
 */
async function uploadRequestHash(c: Context, maxBytes: number): Promise<string> {
  const url = new URL(c.req.url);
  const declared = Number(c.req.header("content-length") ?? NaN);
  const tooLarge = () => new ApiError("payload_too_large", { detail: `A file may be at most ${maxBytes} bytes (${mib(maxBytes)}).` });
  if (declared > maxBytes) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of c.req.raw.body ?? []) {
    size += chunk.byteLength;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  const headers = new Headers(c.req.raw.headers);
  headers.set("Content-Length", String(size));
  c.req.raw = new Request(c.req.raw, { body: bytes, headers });
  return idempotencyRequestHash(c.req.method, `${url.pathname}${url.search}`, `sha256:${await sha256Hex(bytes)}`);
}
