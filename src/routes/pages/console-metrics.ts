import { Hono } from "hono";
import type { AppEnv } from "../../http/app-env";
import { readMetrics } from "../../services/metrics";
import { readWeeklyReports } from "../../services/metrics-weekly";
import { metricsPage } from "../../templates/console-metrics";
import { csvAnswer } from "../v1/metrics";
import { serviceContext } from "../v1/handler-helpers";
import { signedIn } from "./console-door";
import { whoOf } from "./console-shell";
import { page } from "./shared";

/** The console's metrics (/console/metrics): GET /v1/metrics's figures with charts, and its CSV to download. */
export const consoleMetricsRouter = new Hono<AppEnv>();

consoleMetricsRouter.get("/console/metrics", signedIn("page"), async (c) => {
  const ctx = serviceContext(c);
  const now = new Date();
  const [metrics, weekly] = await Promise.all([readMetrics(ctx, { now }), readWeeklyReports(ctx, { now })]);
  return page(c, metricsPage({ who: await whoOf(c), metrics, weekly }));
});

/** The same CSV as GET /v1/metrics with Accept: text/csv, as a download a link can ask for. */
consoleMetricsRouter.get("/console/metrics.csv", signedIn("page"), async (c) => {
  return csvAnswer(c, await readMetrics(serviceContext(c), {}));
});
