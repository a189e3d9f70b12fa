import { createRoute, z } from "@hono/zod-openapi";
import { single } from "../../../http/jsonapi";
import { respond } from "../../../http/media-type";
import { singleDocument } from "../../../http/openapi/documents";
import { errorResponses, jsonApiContent } from "../../../http/openapi/responses";
import { IdParam } from "../../../http/openapi/queries";
import { createRouter } from "../../../http/router";
import { LIMITS } from "../../../lib/limits";
import { releaseQueuedVulns } from "../../../services/gate/queue";
import { serviceContext } from "../handler-helpers";
import { Brief, serializeBrief } from "./schema";

const count = z.int().min(0).max(Number.MAX_SAFE_INTEGER);
const ReleaseDocument = singleDocument(Brief).extend({
  meta: z.object({
    released: count.openapi({ description: `The queued reports this call released (at most ${LIMITS.queueReleaseBatch}).` }),
    still_queued: count.openapi({ description: "The brief's reports still queued after it: call again to release more." }),
  }),
});

/** The owner's release of a brief's queue, mounted under /v1/briefs. */
export const briefReleaseRouter = createRouter().openapi(
  createRoute({
    method: "post",
    path: "/{id}/release-queued",
    operationId: "releaseQueuedVulns",
    tags: ["Briefs"],
    summary: `Release the brief's oldest queued reports now, up to ${LIMITS.queueReleaseBatch} a call, whatever its daily cap`,
    description:
      "Reports a brief's `daily_cap` queued (`inbox_state: queued`) wait for the cron, which releases them oldest first as each UTC " +
      "day's cap has room. This releases them at once, oldest first, past the cap (they count on today's): each goes to the intake " +
      "as a new report would, its deadlines running from now, and fires Vuln::Created. Answers the brief with `meta.released` and " +
      "`meta.still_queued`; audited as `brief.release_queued`.",
    request: { params: IdParam },
    responses: {
      200: { description: "The brief, with what was released", content: jsonApiContent(ReleaseDocument) },
      ...errorResponses("write", { notFound: "Brief not found", access: "unclaimed", scope: "settings" }),
    },
  }),
  async (c) => {
    const { brief, released, stillQueued } = await releaseQueuedVulns(serviceContext(c), c.req.valid("param").id);
    return respond(c, { ...single(serializeBrief(brief)), meta: { released, still_queued: stillQueued } });
  },
);
