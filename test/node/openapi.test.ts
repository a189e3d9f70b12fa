import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import openapiTS, { astToString } from "openapi-typescript";
import { describe, expect, inject, it } from "vitest";
import { OWASP_WAIVERS, owaspFindings, redoclyFindings, spectralFindings } from "./openapi-lint";

// The served document, as a client generator or a linter sees it (the app cannot be imported in Node).
const root = path.resolve(import.meta.dirname, "../..");
const { base } = inject("dev");
// Fetched once for the file: each test parses its own copy. (Six fetches on kept-alive sockets met a
// socket the busy dev server had closed, "other side closed", in a CI run.)
let document: Promise<string> | undefined;
const served = () =>
  (document ??= fetch(`${base}/v1/openapi.json`).then((res) => {
    if (!res.ok) throw new Error(`GET /v1/openapi.json answered ${res.status}`);
    return res.text();
  }));

describe("the served OpenAPI document under both linters", () => {
  it("has no error and no warning under Redocly's recommended ruleset", async () => {
    // The linter must be able to fail: a document without operationIds is flagged.
    const broken = JSON.parse(await served());
    delete broken.paths["/v1/policies"].get.operationId;
    expect((await redoclyFindings(JSON.stringify(broken))).map((f) => f.rule)).toContain("operation-operationId");
    expect(await redoclyFindings(await served())).toEqual([]);
  });

  it("has no diagnostic at all under Spectral's spectral:oas", async () => {
    const broken = JSON.parse(await served());
    broken.paths["/v1/policies"].get.tags = ["Undeclared"];
    expect((await spectralFindings(JSON.stringify(broken))).map((f) => f.rule)).toContain("operation-tag-defined");
    expect(await spectralFindings(await served())).toEqual([]);
  });
});

describe("the served document under the OWASP API Security ruleset", () => {
  it("finds nothing, and waives only what is so by design, each with its reason", async () => {
    // The ruleset can fail: an answer that does not say its rate limit, a public one without CORS.
    const broken = JSON.parse(await served());
    delete broken.paths["/v1/policies"].get.responses["200"].headers["X-RateLimit-Limit"];
    delete broken.paths["/v1/p/briefs/{shortcode}"].get.responses["200"].headers["Access-Control-Allow-Origin"];
    // … a string with no form beside the free text the waivers name, a list with no bound.
    delete broken.components.schemas.ApiKey.properties.attributes.properties.key_prefix.pattern;
    const directory = broken.paths["/v1/p/directories/{slug}"].get.responses["200"].content["application/vnd.api+json"].schema;
    delete directory.properties.included.maxItems;
    const found = (await owaspFindings(JSON.stringify(broken))).map((f) => `${f.rule} ${f.where}`);
    expect(found).toContain("owasp:api4:2023-string-restricted components.schemas.ApiKey.properties.attributes.properties.key_prefix");
    expect(found).toContain(
      "owasp:api4:2023-array-limit paths./v1/p/directories/{slug}.get.responses.200.content.application/vnd.api+json.schema.properties.included",
    );
    expect(found).toContain("owasp:api4:2023-rate-limit paths./v1/policies.get.responses.200.headers");
    expect(found).toContain("owasp:api8:2023-define-cors-origin paths./v1/p/briefs/{shortcode}.get.responses.200.headers");

    const counts: Record<string, number> = {};
    for (const f of await owaspFindings(await served())) counts[f.rule] = (counts[f.rule] ?? 0) + 1;
    expect(counts).toEqual({});
    for (const waiver of OWASP_WAIVERS) expect(waiver.reason.length).toBeGreaterThan(40);
  });
});

describe("a typed client generated from the served document", () => {
  it("type-checks a program using openapi-fetch, unpublishing a policy with published_at: null", async () => {
    const types = astToString(await openapiTS(JSON.parse(await served())));
    const dir = mkdtempSync(path.join(tmpdir(), "vdp-client-"));
    try {
      symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"));
      writeFileSync(path.join(dir, "api.d.ts"), types);
      writeFileSync(
        path.join(dir, "program.ts"),
        `import createClient from "openapi-fetch";
import type { paths } from "./api";

const client = createClient<paths>({ baseUrl: "http://localhost:8787", headers: { Authorization: "Bearer vdp_..." } });

export async function unpublish(id: string) {
  const { data, error } = await client.PATCH("/v1/policies/{id}", {
    params: { path: { id } },
    body: { data: { type: "policy", id, attributes: { published_at: null, launch_date: null, custom_domain: null, branding: null } } },
  });
  if (error) return error.errors.map((e) => [e.code, e.links.about, e.meta.request_id]);
  const publishedAt: string | null | undefined = data.data.attributes.published_at;
  return publishedAt;
}

export async function directory() {
  const { data } = await client.GET("/v1/p/directories/{slug}", { params: { path: { slug: "demo-directory" } } });
  // included is typed: each member is one of the public resources, never a bag of unknowns.
  return data?.included.map((r) => (r.type === "organization" ? r.attributes.name : r.id));
}

export async function firstPage() {
  const { data } = await client.GET("/v1/vulns", { params: { query: { "page[size]": 10 } } });
  return data?.meta.page.total;
}
`,
      );
      writeFileSync(
        path.join(dir, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            noEmit: true,
            module: "ESNext",
            moduleResolution: "bundler",
            target: "ES2022",
            lib: ["ES2022", "DOM"],
            skipLibCheck: true,
          },
          files: ["program.ts"],
        }),
      );
      const tsc = path.join(root, "node_modules", ".bin", "tsc");
      const result = await promisify(execFile)(tsc, ["-p", dir]).then(
        () => "",
        (err: { stdout: string }) => err.stdout,
      );
      expect(result).toBe("");
      // The check can fail: a program that sends an unknown enum value does not compile.
      writeFileSync(
        path.join(dir, "program.ts"),
        `import createClient from "openapi-fetch";\nimport type { paths } from "./api";\nconst c = createClient<paths>();\nc.GET("/v1/policies", { params: { query: { sort: "name" } } });\n`,
      );
      const wrong = await promisify(execFile)(tsc, ["-p", dir]).then(
        () => "",
        (err: { stdout: string }) => err.stdout,
      );
      expect(wrong).toMatch(/error TS/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the served document's schemas, compiled by Ajv", () => {
  // OpenAPI 3.0 schemas are JSON Schema with a few keywords of their own (nullable, example), which
  // Ajv reads or ignores; the whole document is added once so every $ref resolves inside it.
  async function compiled() {
    const doc = JSON.parse(await served());
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(doc, "doc");
    const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");
    return { doc, ajv, schemaAt: (...parts: string[]) => ajv.compile({ $ref: `doc#/${pointer(...parts)}` }) };
  }

  it("compiles every component, and each can judge a value without recursing into itself", async () => {
    const { doc, schemaAt } = await compiled();
    const names = Object.keys(doc.components.schemas);
    expect(names.length).toBeGreaterThan(20);
    for (const name of names) {
      const validate = schemaAt("components", "schemas", name);
      // A schema defined as itself (allOf: [{$ref: itself}]) overflows the stack here.
      expect(() => validate({}), name).not.toThrow();
    }
    // The check can fail: a component made of itself.
    const broken = { components: { schemas: { Loop: { allOf: [{ $ref: "#/components/schemas/Loop" }, { type: "object" }] } } } };
    const ajv = new Ajv({ strict: false });
    ajv.addSchema(broken, "broken");
    expect(() => ajv.compile({ $ref: "broken#/components/schemas/Loop" })({})).toThrow(RangeError);
  });

  it("validates a real attachment, through both doors, against the schema its operation documents", async () => {
    const { schemaAt } = await compiled();
    const key = /API key:\s+(vdp_\S+)/.exec(inject("dev").banner)![1]!;
    const auth = { Authorization: `Bearer ${key}` };
    // The seeded demo brief, which asks nothing (other tests add briefs with a gate to the demo
    // organization), from an address of this test's own (the submit limit counts per address).
    const submitted = await fetch(`${base}/v1/p/briefs/DEMX-0001/vulns`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "CF-Connecting-IP": "192.0.2.91" },
      body: JSON.stringify({ data: { type: "vuln", attributes: { title: "Schema check", description: "A file follows." } } }),
    });
    const { data: receipt } = (await submitted.json()) as { data: { id: string; attributes: { follow_up_token: string } } };
    const token = receipt.attributes.follow_up_token as string;
    const upload = async (url: string, authorization: string) =>
      (await (
        await fetch(url, { method: "POST", headers: { Authorization: authorization, "Content-Type": "text/plain" }, body: "proof" })
      ).json()) as { data: { attributes: Record<string, unknown> } };
    const organizationSide = await upload(`${base}/v1/vulns/${receipt.id}/attachments?filename=org.txt`, auth.Authorization);
    const reporterSide = await upload(`${base}/v1/p/report/attachments?filename=reporter.txt`, `Bearer ${token}`);
    for (const [path, body, mediaType] of [
      ["/v1/vulns/{id}/attachments", organizationSide, "application/json"],
      ["/v1/p/report/attachments", reporterSide, "application/vnd.api+json"],
    ] as const) {
      const validate = schemaAt("paths", path, "post", "responses", "201", "content", mediaType, "schema");
      expect([path, validate(body) ? [] : validate.errors]).toEqual([path, []]);
      // The schema says what a file is: a body without its members does not pass.
      const { filename: _, ...rest } = body.data.attributes;
      expect(validate({ ...body, data: { ...body.data, attributes: rest } })).toBe(false);
    }
  });
});
