import { env } from "cloudflare:workers";
import { api, type RequestOptions } from "./api";
import { brief, organization, PUBLISHED, type TestOrganization } from "./factories";
import { waitFor } from "./wait";

let ipCounter = 0;
/** A fresh client address per submission: public submissions are limited to 5 a minute per address. */
export const nextIp = () => `203.0.113.${(++ipCounter % 250) + 1}`;

export interface SubmittedReport {
  org: TestOrganization;
  /** The vuln's id, which is also the report's. */
  id: string;
  shortcode: string;
  token: string;
  briefId: string;
}

/** A report as a researcher makes one: through a published brief's shortcode, keeping the token. */
export async function submitReport(
  org?: TestOrganization,
  attributes: Record<string, unknown> = {},
  opts: { briefId?: string; shortcode?: string; realQueue?: boolean } = {},
): Promise<SubmittedReport> {
  const owner = org ?? (await organization());
  let briefId = opts.briefId;
  let code = opts.shortcode;
  if (!briefId || !code) {
    const b = await brief(owner, { published_at: PUBLISHED });
    briefId = b.id;
    code = b.attributes.shortcode;
  }
  const res = await api("POST", `/v1/p/briefs/${code}/vulns`, {
    body: {
      data: {
        type: "vuln",
        attributes: {
          title: "Stored XSS in the profile name",
          description: "Set the name to <img src=x onerror=alert(1)>.",
          ...attributes,
        },
      },
    },
    contentType: "application/json",
    headers: { "CF-Connecting-IP": nextIp() },
    realQueue: opts.realQueue,
  });
  if (res.status !== 201) throw new Error(`report factory: ${res.status} ${res.text}`);
  return {
    org: owner,
    id: res.body.data.id,
    shortcode: res.body.data.attributes.shortcode,
    token: res.body.data.attributes.follow_up_token,
    briefId: briefId!,
  };
}

/** A request with the follow-up token as the Bearer (as a reporter's client sends it). */
export const asReporter = (method: string, path: string, token: string | null, opts: RequestOptions = {}) =>
  api(method, path, { ...opts, key: token });

/** A reporter upload: the file as the body, its name in ?filename=. */
export function reporterUpload(token: string | null, bytes: Uint8Array | string, filename = "poc.txt", opts: RequestOptions = {}) {
  const length = typeof bytes === "string" ? new TextEncoder().encode(bytes).byteLength : bytes.byteLength;
  return api("POST", `/v1/p/report/attachments?filename=${encodeURIComponent(filename)}`, {
    ...opts,
    key: token,
    rawBody: bytes,
    contentType: opts.contentType ?? "text/plain",
    headers: { "Content-Length": String(length), ...opts.headers },
  });
}

/** What a reporter's endpoint needs: its report, and the ids of a comment and a file on it. */
export interface ReporterFixture {
  report: SubmittedReport;
  commentId: string;
  attachmentId: string;
}

/** Waits (bounded) until the intake has stored the report (submitted with realQueue): its receipt needs the record's hash. */
export function untilStored(report: SubmittedReport) {
  return waitFor(
    `report ${report.shortcode} to be stored`,
    // From D1 itself: polling the reporter's API would spend the token's rate limit.
    () => env.DB.prepare("SELECT 1 AS stored FROM vuln_records WHERE vuln_id = ?").bind(report.id).first<{ stored: number }>(),
  );
}

/** A report with a reporter-visible reply and an internal note of the organization, and a file. */
export async function reporterFixture(org?: TestOrganization): Promise<ReporterFixture & { internalId: string }> {
  const report = await submitReport(org, {}, { realQueue: true });
  const reply = await api("POST", `/v1/vulns/${report.id}/comments`, {
    key: report.org.key,
    body: { data: { type: "comment", attributes: { body: "Thanks, we are looking.", visibility: "reporter" } } },
  });
  const note = await api("POST", `/v1/vulns/${report.id}/comments`, {
    key: report.org.key,
    body: { data: { type: "comment", attributes: { body: "INTERNAL: looks like a dupe of #12" } } },
  });
  const file = await api("POST", `/v1/vulns/${report.id}/attachments?filename=fix-plan.json`, {
    key: report.org.key,
    rawBody: '{"plan":1}',
    contentType: "application/json",
  });
  if (reply.status !== 201 || note.status !== 201 || file.status !== 201)
    throw new Error(`reporter fixture: ${reply.status} ${note.status} ${file.status}`);
  await untilStored(report);
  return { report, commentId: reply.body.data.id, internalId: note.body.data.id, attachmentId: file.body.data.id };
}
