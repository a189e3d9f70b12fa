import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import openapiTS, { astToString } from "openapi-typescript";
import { describe, expect, inject, it } from "vitest";
import { redoclyFindings, spectralFindings } from "./openapi-lint";

// The served document, as a client generator or a linter sees it (the app cannot be imported in Node).
const root = path.resolve(import.meta.dirname, "../..");
const { base } = inject("dev");
const served = async () => (await fetch(`${base}/v1/openapi.json`)).text();

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
