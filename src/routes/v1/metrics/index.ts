import type { Context } from "hono";
import { createRoute, z } from "@hono/zod-openapi";
import { single, resource } from "../../../http/jsonapi";
import { JSONAPI_MEDIA_TYPE, preferredMediaType, respond } from "../../../http/media-type";
import { errorResponses, jsonApiContent } from "../../../http/openapi/responses";
import { singleDocument, Timestamp, resourceSchema } from "../../../http/openapi/documents";
import { uuidQuery } from "../../../http/openapi/queries";
import { createRouter } from "../../../http/router";
import { DEADLINE_KINDS } from "../../../lib/deadlines";
import { type Metrics, METRICS_DEFAULT_DAYS, readMetrics } from "../../../services/metrics";
import { DateTimeInput } from "../fields";
import { serviceContext } from "../handler-helpers";
import { csvDocument, CSV_MEDIA_TYPE } from "../../../lib/csv";

const share = z.number().min(0).max(1).nullable();
const seconds = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().openapi({ format: "int64" });
const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).openapi({ format: "int64" });

const MetricsResource = resourceSchema(
  "Metrics",
  "metrics",
  z.object({
    period_start: Timestamp,
    period_end: Timestamp,
    reports_received: count.openapi({ description: "Reports created in the period." }),
    valid_reports: count.openapi({ description: "Of those, the ones now triaged, resolved or accepted_risk." }),
    valid_open: count.openapi({ description: "Valid and still open (triaged)." }),
    valid_open_over_90_days: count.openapi({ description: "Valid, open, and created more than 90 days ago." }),
    median_seconds_to_first_response: seconds.openapi({ description: "created_at to acknowledged_at; null without any." }),
    median_seconds_to_triage: seconds.openapi({ description: "created_at to triaged_at; null without any." }),
    median_seconds_to_resolve: seconds.openapi({ description: "created_at to closed_at, of the resolved; null without any." }),
    deadlines_met_on_time: z
      .object(Object.fromEntries(DEADLINE_KINDS.map((k) => [k, share])) as Record<(typeof DEADLINE_KINDS)[number], typeof share>)
      .openapi({
        description:
          "Per deadline, the share (0 to 1) met by its due time, of the deadlines decided: met, or past due and not met (paused ones " +
          "wait). null when none is decided.",
      }),
  }),
  z.object({}),
);

const MetricsQuery = z.strictObject({
  "q[created_at_gteq]": DateTimeInput.optional().openapi({
    param: {
      name: "q[created_at_gteq]",
      in: "query",
      description: `The period's start (default: ${METRICS_DEFAULT_DAYS} days before its end).`,
    },
  }),
  "q[created_at_lteq]": DateTimeInput.optional().openapi({
    param: { name: "q[created_at_lteq]", in: "query", description: "The period's end (default: now)." },
  }),
  "q[organization_id_eq]": uuidQuery("q[organization_id_eq]").openapi({
    param: {
      name: "q[organization_id_eq]",
      in: "query",
      description:
        "Operator keys: one organization's metrics (without it, the whole platform's). An organization key may name only its own.",
    },
  }),
});

const COLUMNS = [
  "scope",
  "period_start",
  "period_end",
  "reports_received",
  "valid_reports",
  "valid_open",
  "valid_open_over_90_days",
  "median_seconds_to_first_response",
  "median_seconds_to_triage",
  "median_seconds_to_resolve",
  ...DEADLINE_KINDS.map((k) => `${k}_met_on_time`),
] as const;

function attributesOf(m: Metrics) {
  return {
    period_start: m.periodStart,
    period_end: m.periodEnd,
    reports_received: m.reportsReceived,
    valid_reports: m.validReports,
    valid_open: m.validOpen,
    valid_open_over_90_days: m.validOpenOver90Days,
    median_seconds_to_first_response: m.medianSecondsToFirstResponse,
    median_seconds_to_triage: m.medianSecondsToTriage,
    median_seconds_to_resolve: m.medianSecondsToResolve,
    deadlines_met_on_time: m.deadlinesMetOnTime,
  };
}

/** The same figures as CSV: a header row, then one row; empty cells for null. */
function csvOf(m: Metrics): string {
  const a = attributesOf(m);
  const values: (string | number | null)[] = [
    m.scope,
    a.period_start,
    a.period_end,
    a.reports_received,
    a.valid_reports,
    a.valid_open,
    a.valid_open_over_90_days,
    a.median_seconds_to_first_response,
    a.median_seconds_to_triage,
    a.median_seconds_to_resolve,
    ...DEADLINE_KINDS.map((k) => a.deadlines_met_on_time[k]),
  ];
  return csvDocument(COLUMNS, [values]);
}

/** Whose figures and which days: metrics-<organization id or "platform">-<first day>-<last day>.csv (ASCII, no colon). */
function csvFilename(m: Metrics): string {
  return `metrics-${m.scope}-${m.periodStart.slice(0, 10)}-${m.periodEnd.slice(0, 10)}.csv`;
}

/** The figures as a CSV download: GET /v1/metrics with Accept: text/csv, and the console's link to it. */
export function csvAnswer(c: Context, m: Metrics): Response {
  return c.body(csvOf(m), 200, {
    "Content-Type": `${CSV_MEDIA_TYPE}; charset=utf-8; header=present`,
    "Content-Disposition": `attachment; filename="${csvFilename(m)}"`,
  });
}

export const metricsRouter = createRouter().openapi(
  createRoute({
    method: "get",
    path: "/",
    operationId: "showMetrics",
    tags: ["Metrics"],
    summary: "The figures a programme is judged on, for the reports created in a period (JSON:API, or CSV with Accept: text/csv)",
    description:
      `For the reports created in the period (default: the last ${METRICS_DEFAULT_DAYS} days): the seven figures CISA's BOD 20-01 asks ` +
      `of a vulnerability disclosure programme (reports received, valid reports, valid still open, valid open for more than 90 days, ` +
      `median time to first response, to triage, to resolve) and, per deadline, the share met on time. Its cost grows with the ` +
      `period's reports, not with the history kept. With \`Accept: text/csv\`, the same figures as CSV with a header row.`,
    request: { query: MetricsQuery },
    responses: {
      200: {
        description: "The metrics",
        headers: {
          "Content-Disposition": {
            description: 'The CSV answer only: attachment; filename="metrics-<organization id or platform>-<first day>-<last day>.csv"',
            schema: {
              type: "string",
              maxLength: 128,
              pattern: '^attachment; filename="metrics-[0-9a-z-]+-[0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9]{4}-[0-9]{2}-[0-9]{2}\\.csv"$',
            },
          },
        },
        content: {
          ...jsonApiContent(singleDocument(MetricsResource)),
          [CSV_MEDIA_TYPE]: {
            schema: z
              .string()
              .max(4096)
              // The header row, then one row of ids, times, numbers and empty cells.
              .regex(new RegExp(`^${COLUMNS.join(",")}\\r\\n[0-9A-Za-z.:,-]*\\r\\n$`))
              .openapi({ description: `A header row (${COLUMNS.join(", ")}) and one row of values; empty for null.` }),
          },
        },
      },
      ...errorResponses("read", { scope: "read" }),
    },
  }),
  async (c) => {
    const query = c.req.valid("query");
    const metrics = await readMetrics(serviceContext(c), {
      organizationId: query["q[organization_id_eq]"],
      from: query["q[created_at_gteq]"],
      to: query["q[created_at_lteq]"],
    });
    c.header("Vary", "Accept");
    if (preferredMediaType(c.req.header("accept"), [JSONAPI_MEDIA_TYPE, CSV_MEDIA_TYPE]) === CSV_MEDIA_TYPE) {
      return csvAnswer(c, metrics);
    }
    return respond(c, single(resource("metrics", metrics.scope, attributesOf(metrics), "/v1/metrics")));
  },
);
