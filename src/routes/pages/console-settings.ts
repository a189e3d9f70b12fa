import { Hono } from "hono";
import type { AppEnv } from "../../http/app-env";
import { settingsIndexPage } from "../../templates/console-settings";
import { signedIn } from "./console-door";
import { whoOf } from "./console-shell";
import { page } from "./shared";
import { consoleContactsRouter } from "./console-settings-contacts";
import { consoleMembersRouter } from "./console-settings-members";
import { consoleWebhooksRouter } from "./console-settings-webhooks";
import { consoleKeysRouter } from "./console-settings-keys";
import { consoleAuditRouter } from "./console-settings-audit";

// The console's settings for owners (others read them; the services refuse their changes): the index,
// and the pages' routers. What their forms share is in console-settings-form.ts.

export const consoleSettingsRouter = new Hono<AppEnv>();

consoleSettingsRouter.get("/console/settings", signedIn("page"), async (c) => page(c, settingsIndexPage(await whoOf(c))));
consoleSettingsRouter.route("/", consoleContactsRouter);
consoleSettingsRouter.route("/", consoleMembersRouter);
consoleSettingsRouter.route("/", consoleWebhooksRouter);
consoleSettingsRouter.route("/", consoleKeysRouter);
consoleSettingsRouter.route("/", consoleAuditRouter);
