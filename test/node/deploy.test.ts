import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

// The Deploy section of the operator's guide (docs/operators.md) must work from a fresh clone: every
// binding of wrangler.toml has its creation step (or its explanation) there, and the Worker builds.
const root = path.resolve(import.meta.dirname, "../..");
const toml = readFileSync(path.join(root, "wrangler.toml"), "utf8");
const guide = readFileSync(path.join(root, "docs", "operators.md"), "utf8");
const deploy = guide.slice(guide.indexOf("## Deploy"), guide.indexOf("\n## ", guide.indexOf("## Deploy") + 5) >>> 0 || undefined);

/** [what must appear in the Deploy section, why] for every resource wrangler.toml names. */
function requiredSteps(): [string, string][] {
  const steps: [string, string][] = [];
  const tables = toml.split(/\n(?=\[\[?[\w.]+\]\]?)/);
  for (const table of tables) {
    const header = /^\[\[?([\w.]+)\]\]?/.exec(table)?.[1];
    const value = (key: string) => new RegExp(`^${key}\\s*=\\s*"([^"]+)"`, "m").exec(table)?.[1];
    if (header === "d1_databases") steps.push([`npx wrangler d1 create ${value("database_name")}`, `D1 ${value("binding")}`]);
    if (header === "queues.producers") steps.push([`npx wrangler queues create ${value("queue")}`, `queue ${value("binding")}`]);
    if (header === "queues.consumers") {
      steps.push([`npx wrangler queues create ${value("queue")}`, "consumed queue"]);
      if (value("dead_letter_queue")) steps.push([`npx wrangler queues create ${value("dead_letter_queue")}`, "dead-letter queue"]);
    }
    if (header === "r2_buckets") steps.push([`npx wrangler r2 bucket create ${value("bucket_name")}`, `R2 ${value("binding")}`]);
    if (header === "ratelimits") steps.push([`\`${value("name")}\``, "rate limit namespace"]);
    if (header === "assets") steps.push(["[assets]", "static assets"]);
    if (header === "send_email")
      steps.push(["Onboard Domain", `Email Service sender domain for ${value("name")}`], ["`EMAIL_FROM`", "the sender address"]);
    // The variables a deployment must set to its own domains.
    if (header === "vars")
      for (const name of ["PUBLIC_ORIGIN", "INBOUND_EMAIL_DOMAIN"])
        if (value(name) !== undefined) steps.push([`\`${name}\``, "a deployment's own value"]);
    if (
      header &&
      ![
        "d1_databases",
        "queues.producers",
        "queues.consumers",
        "r2_buckets",
        "ratelimits",
        "assets",
        "send_email",
        "observability",
        "vars",
        "triggers",
        "alias",
      ].includes(header)
    ) {
      steps.push([`a step for [${header}]`, "a table this test does not know yet: teach it, and docs/operators.md"]);
    }
  }
  for (const secret of readFileSync(path.join(root, ".dev.vars.example"), "utf8").matchAll(/^(\w*SECRET\w*|\w*_KEY)=/gm)) {
    steps.push([`npx wrangler secret put ${secret[1]}`, "secret"]);
  }
  return steps;
}

describe("the Deploy section of docs/operators.md", () => {
  it("has the creation step of every binding in wrangler.toml, login first and the first operator key last", () => {
    const steps = requiredSteps();
    expect(steps.length).toBeGreaterThanOrEqual(10);
    expect(steps.filter(([text]) => !deploy.includes(text))).toEqual([]);
    expect(deploy).toContain("npx wrangler login");
    expect(deploy).toContain("namespace_id");
    expect(deploy.indexOf("npx wrangler login")).toBeLessThan(deploy.indexOf("npx wrangler d1 create"));
    expect(deploy).toContain("npm run --silent operator-key -- --remote");
    // The email handler takes replies only if Email Routing sends them to the Worker.
    expect(readFileSync(path.join(root, "src/index.ts"), "utf8")).toContain("email: async");
    expect(deploy).toContain("Send to a Worker");
  });

  it("builds: npx wrangler deploy --dry-run", async () => {
    const out = mkdtempSync(path.join(tmpdir(), "vdp-deploy-"));
    try {
      const { stdout } = await promisify(execFile)(
        path.join(root, "node_modules", ".bin", "wrangler"),
        ["deploy", "--dry-run", "--outdir", out],
        {
          cwd: root,
          env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
        },
      );
      expect(stdout).toMatch(/Total Upload: .* gzip: /);
      expect(stdout).toContain("--dry-run: exiting now.");
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
