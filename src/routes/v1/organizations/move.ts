import { createRoute } from "@hono/zod-openapi";
import { requireOperator } from "../../../http/auth";
import { assertDocumentMatches, single } from "../../../http/jsonapi";
import { respond } from "../../../http/media-type";
import { moveContext } from "./move-context";
import { singleDocument } from "../../../http/openapi/documents";
import { errorResponses, jsonApiBody, jsonApiContent } from "../../../http/openapi/responses";
import { declare } from "../../../http/route-facts";
import { createRouter } from "../../../http/router";
import { cancelMove, findMove, startOrAdvanceMove } from "../../../services/shard-moves";
import { MoveOrganizationInput, MoveParam, OrganizationMove, serializeMove } from "./move-schema";

const tags = ["Organizations"];
const MoveDocument = singleDocument(OrganizationMove);
// The move opens both tenant databases itself: its requests are not routed to one, nor refused while the organization moves.
const middleware = [requireOperator(), declare({ spansShards: true })];

/** Mounted under /v1/organizations: moving an organization to another tenant database (operators; `npm run shard`). */
export const organizationMoveRouter = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/move",
      operationId: "moveOrganization",
      tags,
      summary: "Move an organization to another tenant database, or advance its move by one step (operator)",
      description:
        "Starts moving the organization (201), or advances the move under way to the same database by one bounded step (200), and " +
        "answers where the move is. From the start until the switch the organization's writes answer 503 with Retry-After; its reads " +
        "go on. The cron advances an unfinished move every minute, so a move whose caller stopped still ends. `npm run shard -- move` " +
        "calls this until the move is done.",
      middleware,
      request: { params: MoveParam, body: jsonApiBody(MoveOrganizationInput) },
      responses: {
        200: { description: "The move, advanced", content: jsonApiContent(MoveDocument) },
        201: { description: "The move, started", content: jsonApiContent(MoveDocument) },
        ...errorResponses("write", { access: "operator", notFound: "No organization has this id or slug" }),
      },
    }),
    async (c) => {
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "organization_move");
      const { move, started } = await startOrAdvanceMove(moveContext(c.env, Date.now()), {
        organization: c.req.valid("param").id,
        to: data.attributes.to,
        moveId: data.id,
        startedBy: c.var.caller.keyId,
      });
      if (started) c.header("Location", `/v1/organizations/${move.organizationId}/move`);
      return respond(c, single(serializeMove(move)), started ? 201 : 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}/move",
      operationId: "showOrganizationMove",
      tags,
      summary: "Show an organization's latest move between tenant databases (operator)",
      middleware,
      request: { params: MoveParam },
      responses: {
        200: { description: "The move", content: jsonApiContent(MoveDocument) },
        ...errorResponses("read", {
          access: "operator",
          notFound: "No such organization, or it never moved",
          conflict: "a deployment of one database",
        }),
      },
    }),
    async (c) => {
      const move = await findMove(moveContext(c.env, Date.now()), c.req.valid("param").id);
      return respond(c, single(serializeMove(move)));
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}/move",
      operationId: "cancelOrganizationMove",
      tags,
      summary: "Roll back an organization's move that has not switched yet (operator)",
      description:
        "Deletes what the move copied to the new database and lets the organization write again where it was; answers the move, " +
        "rolling back (the cron, or `npm run shard -- cancel`, takes it to rolled_back). After its switch a move can only finish: 409.",
      middleware,
      request: { params: MoveParam },
      responses: {
        200: { description: "The move, rolling back", content: jsonApiContent(MoveDocument) },
        ...errorResponses("read", {
          access: "operator",
          notFound: "No such organization, or no move under way",
          conflict: "the move switched already",
        }),
      },
    }),
    async (c) => {
      const move = await cancelMove(moveContext(c.env, Date.now()), c.req.valid("param").id);
      return respond(c, single(serializeMove(move)));
    },
  );
