import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { api, get, post } from "../helpers/api";
import { AUTHENTICATED, ENDPOINTS, label, OPERATION_IDS, template } from "../helpers/endpoints";
import { brief, organization, organizationWithVuln, PUBLISHED } from "../helpers/factories";

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
      // Pages for people (/docs, the brief, report and directory pages, the console, their stylesheet,
      // script and icon), robots.txt and the organizations' files for machines (security.txt) are not
      // operations of the API.
      .routes.filter(
        (r) =>
          r.method !== "ALL" &&
          r.path !== "/v1/openapi.json" &&
          !/^\/(docs|a|b|h|r|d|c|i|u|p|o|console|styles|scripts|favicon\.\w+|robots\.txt|\.well-known\/security\.txt)(\/|$)/.test(r.path),
      )
      .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, "{$1}").replace(/(.)\/$/, "$1")}`),
  );
}

// The uploads whose body is the file itself: no media type to refuse, so no 415.
const RAW_UPLOADS = new Set(ENDPOINTS.filter((e) => e.raw).map(template));

describe("GET /v1/openapi.json", () => {
  it("needs no key and is an OpenAPI 3.0.x document with the bearer scheme", async () => {
    const res = await get("/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\.0\.\d+$/);
    expect(res.body.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
    expect(res.body.security).toEqual([{ bearer: [] }]);
  });

  it("carries a license chosen on purpose, the project's own (an integrator may use the document)", async () => {
    const res = await get("/v1/openapi.json");
    expect(res.body.info.license).toEqual({ name: "MIT", url: "https://spdx.org/licenses/MIT.html" });
  });

  it("documents every route the app serves, and serves every documented route", async () => {
    const docs = await documented();
    const routes = served();
    expect([...routes].filter((r) => !docs.has(r))).toEqual([]);
    expect([...docs].filter((r) => !routes.has(r))).toEqual([]);
    expect(routes.size).toBeGreaterThan(20);
  });

  it("runs the tenancy generator against every authenticated route", async () => {
    const docs = [...(await documented())].filter(
      (r) => !r.includes(" /v1/p/") && !/^GET \/(v1)?$/.test(r) && r !== "GET /.well-known/vdp-keys.json",
    );
    const covered = new Set(AUTHENTICATED.map((e) => label(e).replace(/\{org\}|[0-9a-f-]{36}/g, "{id}")));
    expect(docs.filter((r) => !covered.has(r))).toEqual([]);
  });

  it("says on each operation who may call it, from the endpoint's own rules", async () => {
    const res = await get("/v1/openapi.json");
    expect(res.text).not.toContain("x-access");
    const ops = Object.entries(res.body.paths as Record<string, Record<string, { description: string; security?: unknown[] }>>).flatMap(
      ([path, item]) => Object.entries(item).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as const),
    );
    for (const e of AUTHENTICATED) {
      const op = ops.find(([where]) => where === label(e).replace(/\{org\}|[0-9a-f-]{36}/g, "{id}"))?.[1];
      expect(op, label(e)).toBeDefined();
      const sentence = e.operatorOnly
        ? "Needs an operator key."
        : e.operator === "never"
          ? "Needs an API key; 403 for an operator key; only the organization's own key changes these."
          : e.operator === "unclaimed"
            ? "Needs an API key; 403 for an operator key on a claimed organization;"
            : "Needs an API key (organization or operator).";
      if (!op!.description.includes(sentence)) expect([label(e), op!.description]).toEqual([label(e), `... ${sentence}`]);
    }
    const open = ops.filter(([where]) => where.includes(" /v1/p/") && !where.includes("/v1/p/report"));
    expect(open.length).toBeGreaterThan(2);
    for (const [where, op] of open) expect([where, op.description.includes("No key needed.")]).toEqual([where, true]);
  });

  it("says of X-D1-Bookmark and X-Request-Id what the server does with them", async () => {
    const doc = (await get("/v1/openapi.json")).body;
    const org = await organization();
    const param = doc.components.parameters.D1Bookmark.schema;
    const returned = doc.components.headers.D1Bookmark.schema;
    expect(returned).toEqual(param);
    const bookmark = (await get("/v1/policies", org.key)).headers.get("x-d1-bookmark")!;
    for (const value of [bookmark, bookmark.toUpperCase(), "0", "garbage", `${bookmark}0`]) {
      const fits = new RegExp(param.pattern).test(value);
      const status = (await get("/v1/policies", org.key, { headers: { "X-D1-Bookmark": value } })).status;
      expect([value, status]).toEqual([value, fits ? 200 : 400]);
    }
    // Any X-Request-Id is taken (never a 400); only a well-formed one is echoed, as the document says.
    const echo = doc.components.headers.ClientRequestId.schema;
    expect(doc.components.parameters.ClientRequestId.schema).toEqual({ type: "string" });
    for (const value of ["abc-123", "x".repeat(255), "x".repeat(256), "no spaces"]) {
      const res = await get("/v1/policies", org.key, { headers: { "X-Request-Id": value } });
      expect(res.status).toBe(200);
      expect([value, res.headers.get("x-client-request-id")]).toEqual([value, new RegExp(echo.pattern).test(value) ? value : null]);
    }
  });

  it("declares on each operation exactly the errors it can answer", async () => {
    const doc = (await get("/v1/openapi.json")).body;
    // A 403 for who may not call it at all, or for a key (or member) without the scope it needs.
    const operatorOnly = new Set(
      AUTHENTICATED.filter(
        (e) => e.operatorOnly || e.operator === "unclaimed" || e.operator === "never" || (e.scope !== undefined && e.scope !== "none"),
      ).map((e) => label(e).replace(/\{org\}/g, "{id}")),
    );
    for (const [path, item] of Object.entries(
      doc.paths as Record<
        string,
        Record<string, { responses: Record<string, unknown>; security?: unknown[]; requestBody?: { content: Record<string, unknown> } }>
      >,
    )) {
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
        const where = `${method.toUpperCase()} ${path}`;
        const statuses = Object.keys(op.responses)
          .filter((s) => Number(s) >= 400)
          .sort();
        // The reporter's routes sit under /v1/p/ but take the reporter's token, not no key.
        const isReporter = path.startsWith("/v1/p/report");
        const isPublic = path.startsWith("/v1/p/") && !isReporter;
        const write = method === "post" || method === "patch";
        if (path === "/" || path === "/v1" || path === "/.well-known/vdp-keys.json") {
          // A query parameter it does not take is a 400, as on every read.
          expect([where, statuses]).toEqual([where, ["400", "429", "500"]]);
          expect((await get(`${path}?page[size]=5`)).status).toBe(400);
          expect(op.security).toEqual([]);
          continue;
        }
        const expected = [
          "400",
          ...(isPublic ? [] : ["401"]),
          ...(operatorOnly.has(where) ? ["403"] : []),
          "404",
          ...(write ? ["409", "413", ...(RAW_UPLOADS.has(where) ? [] : ["415"]), "422"] : []),
          // A brief that reports came through is not deleted: unpublish it instead.
          ...(where === "DELETE /v1/briefs/{id}" ? ["422"] : []),
          // A published advisory is not deleted: withdraw it instead.
          ...(where === "DELETE /v1/advisories/{id}" ? ["422"] : []),
          // A receipt waits for the report to be stored.
          ...(where === "GET /v1/p/report/receipt" ? ["409"] : []),
          ...(where === "GET /v1/p/briefs/{shortcode}/challenge" ? ["409"] : []),
          // The organization's last owner is not removed.
          ...(where === "DELETE /v1/members/{id}" ? ["409"] : []),
          // One database has no move; a move past its switch is not rolled back.
          ...(where === "GET /v1/organizations/{id}/move" || where === "DELETE /v1/organizations/{id}/move" ? ["409"] : []),
          "429",
          "500",
          "503",
        ].sort();
        expect([where, statuses]).toEqual([where, expected]);
        if (isPublic) expect(op.security).toEqual([]);
        if (isReporter) expect(op.security).toEqual([{ reporterToken: [] }]);
        if (write && op.requestBody && !path.startsWith("/v1/vulns") && !isPublic && !RAW_UPLOADS.has(where)) {
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

// The operationIds are a contract with every generated client: renaming one is a deliberate act that
// edits the endpoint table (test/helpers/endpoint-table.ts) too.
describe("operationIds", () => {
  it("every operation has one, unique, and the set is exactly the committed list", async () => {
    const doc = (await get("/v1/openapi.json")).body;
    const ids: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { operationId?: string }>>)) {
      for (const method of METHODS) {
        if (!item[method]) continue;
        expect([method, path, typeof item[method].operationId]).toEqual([method, path, "string"]);
        ids.push(item[method].operationId!);
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual([...OPERATION_IDS].sort());
  });

  it("are the endpoint table's: each operation of the document is in the table once, at its path, with its operationId", async () => {
    const doc = (await get("/v1/openapi.json")).body;
    const documented: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { operationId?: string }>>)) {
      for (const method of METHODS) if (item[method]) documented.push(`${item[method].operationId} ${method.toUpperCase()} ${path}`);
    }
    const tabled = ENDPOINTS.map((e) => `${e.operationId} ${template(e)}`);
    expect(new Set(tabled).size).toBe(tabled.length);
    expect(documented.filter((o) => !tabled.includes(o))).toEqual([]);
    expect(tabled.filter((o) => !documented.includes(o))).toEqual([]);
  });
});

const CACHED_READS = [
  "get /v1/p/briefs/{shortcode}",
  "get /v1/p/directories/{slug}",
  "get /v1/p/advisories/{id}",
  "get /v1/p/advisories/{id}/csaf",
  "get /v1/p/advisories/{id}/osv",
  "get /v1/p/advisories/{id}/cve",
];

describe("what the document adds to every operation", () => {
  it("documents the headers each answer carries, and the request headers the API reads", async () => {
    const doc = (await get("/v1/openapi.json")).body;
    for (const [path, item] of Object.entries(
      doc.paths as Record<
        string,
        Record<
          string,
          { security?: unknown[]; parameters?: { $ref?: string }[]; responses: Record<string, { headers?: Record<string, unknown> }> }
        >
      >,
    )) {
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
        const authenticated = !(Array.isArray(op.security) && op.security.length === 0);
        const refs = (op.parameters ?? []).map((p) => p.$ref);
        expect([method, path, refs.includes("#/components/parameters/D1Bookmark")]).toEqual([method, path, authenticated]);
        for (const [status, response] of Object.entries(op.responses)) {
          const names = Object.keys(response.headers ?? {});
          const where = `${method.toUpperCase()} ${path} ${status}`;
          const expected = ["X-Request-Id", "X-Client-Request-Id"];
          if (status === "201") expected.push("Location");
          if (status === "429" || status === "503") expected.push("Retry-After");
          if (status === "401") expected.push("WWW-Authenticate");
          if (method === "post" && status.startsWith("2")) expected.push("Idempotent-Replayed");
          if (authenticated && status !== "401") expected.push("X-D1-Bookmark");
          // The reads served from the edge cache, and only they: the reporter's reads, a policy's versions
          // and its hall of fame are answered fresh, with no ETag (the document once said otherwise).
          if (CACHED_READS.includes(`${method} ${path}`) && (status === "200" || status === "304")) expected.push("ETag", "X-Cache");
          if (!CACHED_READS.includes(`${method} ${path}`))
            expect([where, names.filter((h) => h === "ETag" || h === "X-Cache")]).toEqual([where, []]);
          expect([where, expected.filter((h) => !names.includes(h))]).toEqual([where, []]);
        }
      }
    }
  });

  it("declares every tag it uses, each with a description", async () => {
    const doc = (await get("/v1/openapi.json")).body;
    const declared = new Map((doc.tags as { name: string; description: string }[]).map((t) => [t.name, t.description]));
    for (const item of Object.values(doc.paths as Record<string, Record<string, { tags?: string[] }>>)) {
      for (const method of METHODS) for (const tag of item[method]?.tags ?? []) expect([tag, !!declared.get(tag)]).toEqual([tag, true]);
    }
  });

  it("types the nullable inputs nullable, and the limits the server enforces", async () => {
    const doc = (await get("/v1/openapi.json")).body;
    const attrs = doc.components.schemas.UpdatePolicyInput.properties.data.properties.attributes.properties;
    for (const name of ["published_at", "launch_date", "custom_domain"]) expect([name, attrs[name].nullable]).toEqual([name, true]);
    expect(doc.components.schemas.Branding.nullable).toBe(true);
    expect(doc.components.parameters.IdempotencyKey.schema).toMatchObject({ minLength: 1, maxLength: 255 });
    const pageNumber = doc.paths["/v1/policies"].get.parameters.find((p: { name?: string }) => p.name === "page[number]");
    expect(pageNumber.schema).toMatchObject({ minimum: 1, maximum: 999_999_999 });
    // The documented maximum is the server's: one past it is a 400.
    const org = await organization();
    expect((await get("/v1/policies?page[number]=999999999", org.key)).status).toBe(200);
    expect((await get("/v1/policies?page[number]=1000000000", org.key)).body.errors[0].source).toEqual({ parameter: "page[number]" });
  });
});

describe("limits the server enforces, declared", () => {
  it("says what it refuses: an asset value's length, a CVSS vector's length, related ids as UUIDs; each refused as declared", async () => {
    const doc = (await get("/v1/openapi.json")).body;
    const s = doc.components.schemas;
    expect(s.ScopeAssetInput.properties.value.maxLength).toBe(2048);
    expect(s.CreateAssetInput.properties.data.properties.attributes.properties.value.maxLength).toBe(2048);
    expect(s.CreateVulnInput.properties.data.properties.attributes.properties.cvss_vector.maxLength).toBe(300);
    expect(s.CreateVulnInput.properties.data.properties.relationships.properties.brief.properties.data.properties.id.format).toBe("uuid");

    const org = await organization();
    const long = await post("/v1/assets", org.key, { data: { type: "asset", attributes: { kind: "other", value: "x".repeat(2049) } } });
    expect([long.status, long.body.errors[0].source.pointer]).toEqual([422, "/data/attributes/value"]);
    const b = await brief(org, { published_at: PUBLISHED });
    const vector = await post("/v1/vulns", org.key, {
      data: {
        type: "vuln",
        attributes: { title: "t", description: "d", cvss_vector: `CVSS:3.1/${"A".repeat(300)}` },
        relationships: { brief: { data: { type: "brief", id: b.id } } },
      },
    });
    expect([vector.status, vector.body.errors[0].source.pointer]).toEqual([422, "/data/attributes/cvss_vector"]);
    const notUuid = await post("/v1/vulns", org.key, {
      data: {
        type: "vuln",
        attributes: { title: "t", description: "d" },
        relationships: { brief: { data: { type: "brief", id: "brief-1" } } },
      },
    });
    expect([notUuid.status, notUuid.body.errors[0].source.pointer]).toEqual([422, "/data/relationships/brief/data/id"]);
  });

  it("refuses one character past each bound it declares on a date-time, a hostname, a vuln reference, a fieldset and a file's name", async () => {
    const doc = (await get("/v1/openapi.json")).body;
    const policyInput = doc.components.schemas.CreatePolicyInput.properties.data.properties.attributes.properties;
    const declared = (name: string, path: string) =>
      doc.paths[path].get.parameters.find((p: { name: string }) => p.name === name).schema.maxLength as number;
    const bounds = {
      published_at: policyInput.published_at.maxLength,
      custom_domain: policyInput.custom_domain.maxLength,
      id: declared("id", "/v1/vulns/{id}"),
      fields: declared("fields[vuln]", "/v1/vulns"),
    };
    expect(bounds).toEqual({ published_at: 35, custom_domain: 253, id: 36, fields: 1024 });

    const org = await organization();
    // 36 characters: ten fractional digits and an offset.
    const time = await post("/v1/policies", org.key, {
      data: { type: "policy", attributes: { published_at: "2026-11-21T09:30:00.1234567890+05:30" } },
    });
    expect([time.status, time.body.errors[0].source.pointer]).toEqual([422, "/data/attributes/published_at"]);
    const host = await post("/v1/policies", org.key, {
      data: { type: "policy", attributes: { custom_domain: `${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(59)}.io` } },
    });
    expect([host.status, host.body.errors[0].source.pointer]).toEqual([422, "/data/attributes/custom_domain"]);
    const ref = await get(`/v1/vulns/${"7".repeat(37)}`, org.key);
    // A path that names no vuln is a 404, as for any unknown id.
    expect([ref.status, ref.body.errors[0].code]).toEqual([404, expect.stringMatching(/not_found$/)]);
    const fields = await get(`/v1/vulns?fields[vuln]=${"title,".repeat(170)}title`, org.key);
    expect([fields.status, fields.body.errors[0].source]).toEqual([400, { parameter: "fields[vuln]" }]);
    const { org: owner, vulnId } = await organizationWithVuln();
    const file = await api("POST", `/v1/vulns/${vulnId}/attachments?filename=${"a".repeat(4097)}`, {
      key: owner.key,
      rawBody: "x",
      contentType: "text/plain",
    });
    expect([file.status, file.body.errors[0].source]).toEqual([400, { parameter: "filename" }]);
  });
});
