// The hook every route validates through: zod's issues as JSON:API errors, at their pointer or parameter.
import type { Hook } from "@hono/zod-openapi";
import type { Context, Env } from "hono";
import { ApiError, type ProblemInput } from "../errors";
import { escapePointerSegment } from "../json-scan";
import { showsMember } from "./documents";

type Issue = { code: string; path: PropertyKey[]; message: string; keys?: string[] };

async function documentType(c: Context): Promise<unknown> {
  const body = (await c.req.json().catch(() => null)) as { data?: { type?: unknown } } | null;
  return body?.data?.type;
}

/** Whether the server owns a member of `type`'s attributes: one its resource shows, or `id` and `type` themselves. */
function isReadOnly(type: unknown, key: string): boolean {
  return key === "id" || key === "type" || (typeof type === "string" && showsMember(type, key));
}

export function pointerOf(path: PropertyKey[]): string {
  return path.map((p) => `/${escapePointerSegment(String(p))}`).join("");
}

/** JSON:API's own parameters are named for what is not supported; anything else is unknown. */
function unknownParameter(name: string): string {
  if (name === "include")
    return "include is not supported here: what this answer relates to is linked by id (and, on public reads, already in included).";
  if (/^fields\[/.test(name))
    return `${name}: this answer holds no resource of that type (fields[TYPE] names a type of its resources), or this read takes no parameters.`;
  return `${name} is not a known query parameter.`;
}

function problemsOf(issues: Issue[], target: string, type: unknown): ProblemInput[] {
  const problems: ProblemInput[] = [];
  for (const issue of issues) {
    if (target === "query") {
      const names = issue.code === "unrecognized_keys" ? (issue.keys ?? []) : [String(issue.path[0] ?? "")];
      for (const name of names) {
        problems.push({
          detail: issue.code === "unrecognized_keys" ? unknownParameter(name) : `${name}: ${issue.message}`,
          source: { parameter: name },
        });
      }
      continue;
    }
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys ?? []) {
        const pointer = pointerOf([...issue.path, key]);
        const inAttributes = issue.path.at(-1) === "attributes";
        problems.push({
          detail: inAttributes && isReadOnly(type, key) ? `${key} is read-only.` : `${key} is not a known member here.`,
          source: { pointer },
        });
      }
      continue;
    }
    const pointer = pointerOf(issue.path);
    const label = issue.path.length ? issue.path.map(String).join(".") : "the document";
    problems.push({ detail: `${label}: ${issue.message}`, source: { pointer } });
  }
  return problems;
}

/**
 * The defaultHook of every OpenAPIHono app: query problems are 400s, body problems 422s. A body's
 * `data.type` (already parsed, so read from Hono's cache) says whose read-only members it names.
 */
export async function validationHook(result: Parameters<Hook<unknown, Env, string, void>>[0], c: Context): Promise<void> {
  if (result.success) return;
  const type = result.target === "json" ? await documentType(c) : undefined;
  const problems = problemsOf(result.error.issues, result.target, type);
  if (result.target === "query") throw new ApiError("bad_request", problems);
  if (result.target === "param")
    throw new ApiError(
      "not_found",
      problems.map(() => ({})),
    );
  throw new ApiError("validation_error", problems);
}
