import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { get } from "../helpers/api";
import { ENDPOINTS, label } from "../helpers/endpoints";

const METHODS = ["get", "post", "patch", "put", "delete"] as const;

async function documented(): Promise<Set<string>> {
  const doc = (await get("/v1/openapi.json")).body;
  const out = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
    for (const method of METHODS) if (item[method]) out.add(`${method.toUpperCase()} ${path}`);
  }
  return out;
}

/** The app's own route table, in OpenAPI's path syntax; middleware (ALL) and the doc route aside. */
function served(): Set<string> {
  return new Set(
    createApp()
      .routes.filter((r) => r.method !== "ALL" && r.path !== "/v1/openapi.json")
      .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, "{$1}").replace(/(.)\/$/, "$1")}`),
  );
}

describe("GET /v1/openapi.json", () => {
  it("needs no key and is an OpenAPI 3.0.x document with the bearer scheme", async () => {
    const res = await get("/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\.0\.\d+$/);
    expect(res.body.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
    expect(res.body.security).toEqual([{ bearer: [] }]);
  });

  it("documents every route the app serves, and serves every documented route", async () => {
    const docs = await documented();
    const routes = served();
    expect([...routes].filter((r) => !docs.has(r))).toEqual([]);
    expect([...docs].filter((r) => !routes.has(r))).toEqual([]);
    expect(routes.size).toBeGreaterThan(20);
  });

  it("runs the tenancy generator against every authenticated route", async () => {
    const docs = [...(await documented())].filter((r) => !r.includes(" /v1/p/"));
    const covered = new Set(ENDPOINTS.map((e) => label(e).replace(/\{org\}|[0-9a-f-]{36}/g, "{id}")));
    expect(docs.filter((r) => !covered.has(r))).toEqual([]);
  });

  it("declares on each operation exactly the errors it can answer", async () => {
    const doc = (await get("/v1/openapi.json")).body;
    const operatorOnly = new Set(ENDPOINTS.filter((e) => e.operatorOnly || e.operator === "unclaimed" || e.operator === "never").map((e) => label(e).replace(/\{org\}/g, "{id}")));
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown[]; requestBody?: { content: Record<string, unknown> } }>>)) {
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
        const where = `${method.toUpperCase()} ${path}`;
        const statuses = Object.keys(op.responses).filter((s) => Number(s) >= 400).sort();
        const isPublic = path.startsWith("/v1/p/");
        const write = method === "post" || method === "patch";
        const expected = [
          "400",
          ...(isPublic ? [] : ["401"]),
          ...(operatorOnly.has(where) ? ["403"] : []),
          "404",
          ...(write ? ["409", "413", "415", "422"] : []),
          "429",
          "500",
          "503",
        ].sort();
        expect([where, statuses]).toEqual([where, expected]);
        if (isPublic) expect(op.security).toEqual([]);
        if (write && op.requestBody && !path.startsWith("/v1/vulns") && !isPublic) {
          expect([where, Object.keys(op.requestBody!.content).sort()]).toEqual([where, ["application/json", "application/vnd.api+json"]]);
        }
      }
    }
    expect(doc.components.schemas.ErrorDocument).toBeDefined();
  });
});

describe("Idempotency-Key in the document", () => {
  it("is a parameter of every POST and of nothing else", async () => {
    const doc = (await get("/v1/openapi.json")).body;
    expect(doc.components.parameters.IdempotencyKey).toMatchObject({ name: "Idempotency-Key", in: "header" });
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { parameters?: { $ref?: string }[] }>>)) {
      for (const method of METHODS) {
        if (!item[method]) continue;
        const has = (item[method].parameters ?? []).some((p) => p.$ref === "#/components/parameters/IdempotencyKey");
        expect([method, path, has]).toEqual([method, path, method === "post"]);
      }
    }
  });
});
