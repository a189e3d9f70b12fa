import { Hono } from "hono";
import type { AppEnv } from "../../http/app-env";
import { database } from "../../http/middleware";
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

emailLinksRouter.on(["GET", "POST"], "/c/:token", database(), async (c) => {
  await limitAddress(c, "PUBLIC_READ_RATE_LIMITER");
  const target = await findConfirmation(c.var.database.db, c.req.param("token"));
  if (!target) return page(c, notFoundPage("confirmation link"), 404);
  const view = { ...target.contact, organization: target.organization };
  if (c.req.method !== "POST") return page(c, confirmPage(view, c.req.path));
  await confirmContact(serviceContext(c), target);
  return page(c, confirmPage(view, c.req.path, true));
});

emailLinksRouter.on(["GET", "POST"], "/i/:token", database(), async (c) => {
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
  const found = await findUnsubscribe(c.var.database.db, c.req.param("token"));
  if (!found) return page(c, notFoundPage("unsubscribe link"), 404);
  if (c.req.method !== "POST") return page(c, unsubscribePage(found, c.req.path));
  await unsubscribeReporter(serviceContext(c), found.id);
  return page(c, unsubscribePage({ ...found, notifyReporter: false }, c.req.path));
});
