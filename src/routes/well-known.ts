import { createRoute, z } from "@hono/zod-openapi";
import { errorResponse } from "../http/openapi/responses";
import { NoQuery } from "../http/openapi/queries";
import { publicRateLimit } from "../http/rate-limit";
import { declare } from "../http/route-facts";
import { createRouter } from "../http/router";
import { KID_PATTERN, parseSigningKeys, publicJwks } from "../lib/jws";

/** Where the keys that sign receipts are published, and their media type (RFC 7517). */
export const KEYS_PATH = "/.well-known/vdp-keys.json";
export const JWK_SET_MEDIA_TYPE = "application/jwk-set+json";
// Keys change only with a deployment: an hour in caches is short next to a rotation, which keeps the old key listed.
const KEYS_CACHE_CONTROL = "public, max-age=3600";

const PublicJwk = z.object({
  kid: z.string().max(100).regex(KID_PATTERN),
  kty: z.literal("OKP"),
  crv: z.literal("Ed25519"),
  x: z
    .string()
    .max(43)
    .regex(/^[A-Za-z0-9_-]{43}$/)
    .openapi({ description: "The public key: 32 bytes in base64url." }),
  alg: z.literal("EdDSA"),
  use: z.literal("sig"),
});

const Jwks = z.object({ keys: z.array(PublicJwk).min(1).max(10) }).openapi("SigningKeys", {
  description:
    "The public keys that sign what a reporter can prove (their receipt), newest first; keys retired by a rotation stay listed, so " +
    "what they signed still verifies.",
});

/** GET /.well-known/vdp-keys.json: the JWKS a third party verifies receipts with, using any JOSE library. */
export const wellKnownRouter = createRouter().openapi(
  createRoute({
    method: "get",
    path: KEYS_PATH,
    operationId: "showSigningKeys",
    tags: ["Public"],
    summary: "The public keys that sign reporters' receipts, as a JWK Set (no key; cached for an hour)",
    security: [],
    middleware: [declare({ public: true }), publicRateLimit("PUBLIC_READ_RATE_LIMITER")],
    request: { query: NoQuery },
    responses: {
      200: {
        description: "The JWK Set",
        content: { [JWK_SET_MEDIA_TYPE]: { schema: Jwks } },
        headers: { "Cache-Control": { schema: { type: "string", enum: [KEYS_CACHE_CONTROL] } } },
      },
      400: errorResponse("A query parameter it does not take"),
      429: errorResponse("Too many requests from this address (see Retry-After)"),
      500: errorResponse("Internal error"),
    },
  }),
  (c) =>
    c.body(JSON.stringify(publicJwks(parseSigningKeys(c.env.RECEIPT_SIGNING_KEY, "RECEIPT_SIGNING_KEY"))), 200, {
      "Content-Type": JWK_SET_MEDIA_TYPE,
      "Cache-Control": KEYS_CACHE_CONTROL,
    }),
);
