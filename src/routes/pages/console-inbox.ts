import { Hono } from "hono";
import type { AppEnv } from "../../http/app-env";
import { listVulns } from "../../services/vuln-list";
import { inboxPage } from "../../templates/console-inbox";
import { serviceContext } from "../v1/handler-helpers";
import { signedIn } from "./console-door";
import { whoOf } from "./console-shell";
import { page } from "./shared";

/** The inbox, /console: the organization's reports, as GET /v1/vulns lists them for the member. */
export const consoleInboxRouter = new Hono<AppEnv>();

consoleInboxRouter.get("/console", signedIn("page"), async (c) => {
  const who = await whoOf(c);
  const { rows, total } = await listVulns(serviceContext(c), { page: { number: 1, size: 25 }, sort: "-created_at" });
  return page(c, inboxPage({ who, rows, total }));
});
