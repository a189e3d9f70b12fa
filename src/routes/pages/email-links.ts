import { Hono } from "hono";
import type { AppEnv } from "../../http/app-env";
import { database } from "../../http/middleware";
import { routeBy, routeByScatter } from "../../http/shard-lookup";
import { recordOfToken } from "../../notifications/links";
import { confirmContact, findConfirmation } from "../../services/contacts";
import { findInvitation, joinMember } from "../../services/member-invitations";
import { serviceContext } from "../v1/handler-helpers";
import { findUnsubscribe, unsubscribeReporter } from "../../services/notifications";
import { confirmPage, invitationPage, unsubscribePage } from "../../templates/email-pages";
import { notFoundPage } from "../../templates/layout";
import { limitAddress, page, pageHeaders, privatePage, sameSiteForms } from "./shared";

/**
 * What e-mails link to: /c/{token} confirms a contact's address, /i/{token} accepts a member's
 * invitation, /u/{token} stops a reporter's e-mails.
 * A GET shows a page whose button does it, so a mail scanner that fetches links changes nothing; Hono
 * answers a HEAD with the GET's handler (the method still "HEAD"), so only a POST acts, never "not a
 * GET". The confirmation's button is a same-site form; the unsubscribe also takes the one-click POST of
 * RFC 8058, which the reader's mail provider sends from its own site.
 */
export const emailLinksRouter = new Hono<AppEnv>();
emailLinksRouter.use("/c/*", pageHeaders, privatePage, sameSiteForms);
emailLinksRouter.use("/i/*", pageHeaders, privatePage, sameSiteForms);
emailLinksRouter.use("/u/*", pageHeaders, privatePage);

// In a sharded deployment a link's page reads its organization's shard, found by the record its token names.
const byRecord = (kind: "contact" | "member") =>
  routeBy((c) => {
    const named = recordOfToken(c.req.param("token") ?? "");
    return named && { kind, name: named.id };
  });

emailLinksRouter.on(["GET", "POST"], "/c/:token", database(), byRecord("contact"), async (c) => {
  await limitAddress(c, "PUBLIC_READ_RATE_LIMITER");
  const target = await findConfirmation(c.var.database.db, c.req.param("token"));
  if (!target) return page(c, notFoundPage("confirmation link"), 404);
  const view = { ...target.contact, organization: target.organization };
  if (c.req.method !== "POST") return page(c, confirmPage(view, c.req.path));
  await confirmContact(serviceContext(c), target);
  return page(c, confirmPage(view, c.req.path, true));
});

emailLinksRouter.on(["GET", "POST"], "/i/:token", database(), byRecord("member"), async (c) => {
  await limitAddress(c, "PUBLIC_READ_RATE_LIMITER");
  const target = await findInvitation(c.var.database.db, c.req.param("token"));
  if (!target) return page(c, notFoundPage("invitation"), 404);
  const view = { ...target.member, organization: target.organization };
  if (c.req.method !== "POST") return page(c, invitationPage(view, c.req.path));
  await joinMember(serviceContext(c), target);
  return page(c, invitationPage(view, c.req.path, true));
});

emailLinksRouter.on(["GET", "POST"], "/u/:token", database(), async (c) => {
  await limitAddress(c, "PUBLIC_READ_RATE_LIMITER");
  // A report's id is no name in the catalog: its MAC is checked first, then every shard is asked for it.
  const found = await routeByScatter(c, (db) => findUnsubscribe(db, c.req.param("token")));
  if (!found) return page(c, notFoundPage("unsubscribe link"), 404);
  if (c.req.method !== "POST") return page(c, unsubscribePage(found, c.req.path));
  await unsubscribeReporter(serviceContext(c), found.id);
  return page(c, unsubscribePage({ ...found, notifyReporter: false }, c.req.path));
});
