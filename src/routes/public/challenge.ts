import { createRoute, z } from "@hono/zod-openapi";
import { ShortcodePathParam } from "../../http/openapi/documents";
import { JSON_MEDIA_TYPE, respond } from "../../http/media-type";
import { errorResponses, jsonContent } from "../../http/openapi/responses";
import { NoQuery } from "../../http/openapi/queries";
import { clientIp, publicRateLimit } from "../../http/rate-limit";
import { declare } from "../../http/route-facts";
import { createRouter } from "../../http/router";
import { normalizeShortcode } from "../../lib/ids";
import { LIMITS } from "../../lib/limits";
import { addressTag, parsePowKeys } from "../../lib/pow";
import { briefChallenge } from "../../services/gate/challenge";
import { briefNotFound } from "./briefs";

const Hex64 = z
  .string()
  .length(64)
  .regex(/^[0-9a-f]{64}$/);

const Challenge = z
  .object({
    algorithm: z.literal("SHA-256"),
    challenge: Hex64.openapi({ description: "SHA-256 (hex) of `salt` followed by the secret number, in decimal." }),
    maxnumber: z.int().min(LIMITS.powBaseMaxnumber).max(LIMITS.powMaxMaxnumber).openapi({
      description: "The secret number is at most this: the work asked, higher while the brief or this client sent many reports this hour.",
    }),
    salt: z
      .string()
      .max(200)
      .regex(/^[0-9a-f]+\?brief=[0-9A-Z-]+&expires=\d+&$/)
      .openapi({
        description: "Random hex, then `?brief=<shortcode>&expires=<unix seconds>&`: what the signature binds the challenge to.",
      }),
    signature: Hex64.openapi({ description: "HMAC-SHA-256 (hex) of `challenge` under the server's key." }),
  })
  .openapi("PowChallenge", {
    description:
      "An ALTCHA v1 challenge (SHA-256). Find the number n (0..maxnumber) with SHA-256(salt + n) = challenge, then send " +
      "base64(JSON {algorithm, challenge, number, salt, signature}) as the submission's `X-Pow-Solution` header (the page's " +
      `form field \`pow\`) within ${LIMITS.powChallengeMinutes} minutes. A solution counts once; without a valid one the report is ` +
      "still taken, marked unverified, within a budget per client address.",
  });

// Plain JSON, as an ALTCHA client reads it; never cached, as each answer is a new challenge.
export const publicChallengeRouter = createRouter();
publicChallengeRouter.use("/briefs/:shortcode/challenge", declare({ mediaType: JSON_MEDIA_TYPE }));
publicChallengeRouter.openapi(
  createRoute({
    method: "get",
    path: "/briefs/{shortcode}/challenge",
    operationId: "showPublicBriefChallenge",
    tags: ["Public"],
    summary: "A proof-of-work challenge for a submission to a brief that asks for one (no key); a new one each call, never cached",
    security: [],
    middleware: [publicRateLimit("PUBLIC_READ_RATE_LIMITER")],
    request: {
      params: z.object({ shortcode: ShortcodePathParam("DEMX-0001") }),
      query: NoQuery,
    },
    responses: {
      200: {
        description: "A challenge, good for 10 minutes",
        content: jsonContent(Challenge),
        headers: { "Cache-Control": { schema: { type: "string", enum: ["no-store"] } } },
      },
      ...errorResponses("read", {
        public: true,
        notFound: "Brief not found: unknown shortcode, or a draft",
        conflict: "the brief does not ask for proof of work (proof_of_work off)",
        mediaType: JSON_MEDIA_TYPE,
      }),
    },
  }),
  async (c) => {
    const shortcode = normalizeShortcode(c.req.valid("param").shortcode);
    if (!shortcode) throw briefNotFound();
    const keys = parsePowKeys(c.env.POW_HMAC_KEY);
    const challenge = await briefChallenge(c.var.database.db, {
      shortcode,
      addressTag: await addressTag(keys, clientIp(c.req)),
      keys,
      nowMs: Date.now(),
    });
    c.header("Cache-Control", "no-store");
    return respond(c, challenge, 200);
  },
);
