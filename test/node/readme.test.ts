import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, inject, it } from "vitest";
import { EVENT_TYPES } from "../../src/events/types";

// The walkthroughs of the README and of the guides in docs/, each run from the page it is on, as written,
// against the shared `npm run dev`: every ```sh block of a page, in order, in one bash with
// `set -euo pipefail`, so any command that fails (an HTTP error through --fail-with-body, a missing id
// through jq -e) fails this test. Blocks fenced ```shell are for people only (a long-running receiver,
// a deployment). Three things are adapted: the base URL, the scratch local D1 of the shared server
// for the commands that read or write D1 directly, and the client address each page's curl sends from.

const root = path.resolve(import.meta.dirname, "../..");
const { base, persistTo } = inject("dev");

/** README.md and every page of docs/, as paths from the root. */
const PAGES = [
  "README.md",
  ...readdirSync(path.join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`),
];
const read = (page: string) => readFileSync(path.join(root, page), "utf8");

function walkthroughBlocks(text: string): string[] {
  return [...text.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
}

/**
 * Each page as its own reader runs it, from an address of its own (documentation's 192.0.2.0/24): the
 * public submit limit (a few a minute per address) counts one reader's reports, not every page's and
 * every browser test's together on this one machine.
 */
function walkthroughScript(text: string, reader = 1): string {
  const from = `curl() { command curl -H "CF-Connecting-IP: 192.0.2.${100 + reader}" "$@"; }\n`;
  return (from + walkthroughBlocks(text).join("\n"))
    .replaceAll("http://localhost:8787", base)
    .replaceAll("npm run --silent seed", `npm run --silent seed -- --persist-to ${persistTo}`)
    .replaceAll("npm run --silent key", `npm run --silent key -- --persist-to ${persistTo}`)
    .replaceAll("operator-key -- --local", `operator-key -- --local --persist-to ${persistTo}`);
}

/** The headings' anchors as GitHub makes them: lower case, punctuation dropped, each space a hyphen. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const m of withoutCode(text).matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const slug = m[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    found.add(n ? `${slug}-${n}` : slug);
  }
  return found;
}

/** The text outside fenced blocks and code spans, where a link or a heading can be. */
function withoutCode(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
}

/**
 * Every relative link of a page (from the root) that leads nowhere: to no file, out of the repository,
 * or to a heading its page does not have. `fileText` answers a path's text ("" for a file that is not
 * Markdown), or undefined when nothing is there.
 */
function deadLinks(page: string, text: string, fileText: (fromRoot: string) => string | undefined): string[] {
  const dead: string[] = [];
  for (const m of withoutCode(text).matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1]!;
    if (/^[a-z][a-z\d+.-]*:/i.test(target)) continue; // https:, mailto: are not files of the repository
    const [file, anchor] = target.split("#") as [string, string | undefined];
    const resolved = file ? path.posix.normalize(path.posix.join(path.posix.dirname(page), file)) : page;
    const found = resolved.startsWith("../") ? undefined : fileText(resolved);
    if (found === undefined || (anchor && resolved.endsWith(".md") && !anchors(found).has(anchor))) dead.push(`${page}: ${target}`);
  }
  return dead;
}

const repositoryFile = (fromRoot: string) => {
  const full = path.join(root, fromRoot);
  if (!existsSync(full)) return undefined;
  return fromRoot.endsWith(".md") ? readFileSync(full, "utf8") : "";
};

const README_MOST_LINES = 300;
const lineCount = (text: string) => text.trimEnd().split("\n").length;

describe("the README and the guides in docs/", () => {
  const all = PAGES.map(read).join("\n");
  const section = (page: string, heading: string) => {
    const text = read(page);
    const at = text.indexOf(heading);
    expect(at, `${page} has "${heading}"`).toBeGreaterThan(-1);
    const next = text.indexOf("\n## ", at + heading.length);
    return text.slice(at, next < 0 ? undefined : next);
  };
  const COUNTS: Record<string, number> = { seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12, thirteen: 13 };

  it(`keep the README a five-minute read: at most ${README_MOST_LINES} lines`, () => {
    expect(lineCount(read("README.md"))).toBeLessThanOrEqual(README_MOST_LINES);
    // The same count refuses a README one line too long.
    expect(lineCount("line\n".repeat(README_MOST_LINES + 1))).toBeGreaterThan(README_MOST_LINES);
  });

  it("link only to files and headings that exist in the repository", () => {
    expect(PAGES.flatMap((page) => deadLinks(page, read(page), repositoryFile))).toEqual([]);
    // The README links to every guide.
    const readme = read("README.md");
    expect(PAGES.filter((page) => page !== "README.md" && !readme.includes(`](${page})`))).toEqual([]);
  });

  it("would catch a link to a missing file, a missing heading or a place outside the repository", () => {
    const page = "docs/owners.md";
    const text = [
      "[gone](gone.md), [no heading](../README.md#no-such-heading), [outside](../../elsewhere/notes.md),",
      "[fine](operators.md#deploy), [fine too](../LICENSE), [here](#keys), [web](https://example.com/x.md)",
      "`[in code](nowhere.md)`",
    ].join("\n");
    expect(deadLinks(page, text, repositoryFile)).toEqual([
      "docs/owners.md: gone.md",
      "docs/owners.md: ../README.md#no-such-heading",
      "docs/owners.md: ../../elsewhere/notes.md",
    ]);
  });

  it("count the event types there are", () => {
    const said = [...all.matchAll(/the (\w+) event types/g)].map((m) => COUNTS[m[1]!]);
    expect(said.length).toBeGreaterThan(0);
    expect(said).toEqual(said.map(() => EVENT_TYPES.length));
  });

  it("say webhook deliveries arrive in no guaranteed order", () => {
    expect(section("docs/owners.md", "## Watching webhooks arrive")).toMatch(/no guaranteed order/);
  });

  it("say what deploying needs before the first command that needs it", () => {
    const deploy = section("docs/operators.md", "## Deploy");
    const at = (text: string) => deploy.indexOf(text);
    expect(at("Workers Paid plan")).toBeGreaterThan(-1);
    expect(at("Workers Paid plan")).toBeLessThan(at("wrangler queues create"));
    expect(at("CLOUDFLARE_API_TOKEN")).toBeGreaterThan(-1);
    expect(at("CLOUDFLARE_API_TOKEN")).toBeLessThan(at("npx wrangler d1 create"));
    expect(at("database_id")).toBeLessThan(at("npm run deploy"));
  });

  it("do not say unpublishing a policy closes its brief, which stays open", () => {
    expect(all).not.toMatch(/closes it to the public/);
  });
});

/** What each page's walkthrough prints that a reader is told to expect, by the page it is on. */
const WALKTHROUGHS: Record<string, (stdout: string) => void> = {
  "README.md": (stdout) => {
    expect(stdout).toContain('"stored"');
    expect(stdout).toContain('"medium"');
    // The file downloaded is the file attached, byte for byte.
    expect(stdout).toMatch(/^([0-9a-f]{64}) {2}poc\.txt\n\1 {2}downloads\/poc\.txt$/m);
    expect(stdout).toMatch(/^"closed"\n"open"$/m);
  },
  "docs/researchers.md": (stdout) => {
    // The reporter's file, as the reporter's answer and the organization's list show it.
    expect(stdout).toContain("reporter: redirect-trace.txt");
    expect(stdout).toMatch(/reporter: redirect-trace\.txt \(\d+ bytes\)/);
    // The receipt, verified by jose against the served keys.
    expect(stdout).toMatch(/^verified: [0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4} received \d{4}-.*, record sha256 [0-9a-f]{64}$/m);
  },
  "docs/triagers.md": (stdout) => {
    // The question pauses the deadlines, the reporter sees it, the answer returns the report to triaged.
    expect(stdout).toMatch(/^paused\nneeds_more_info\ntriaged$/m);
    expect(stdout).toMatch(/^closed\n1$/m);
    // The law's clock: pending once flagged, what the draft leaves to the organization, met once filed.
    expect(stdout).toMatch(/^pending\naffected_products, suspected_malicious, member_states\nmet$/m);
    expect(stdout).toMatch(/^scope,period_start,period_end,reports_received,/m);
    // The advisory: credited by consent, the disclosure met, and its three renderings.
    expect(stdout).toContain('{"credit_name":"Jane Finder","credit_consent":true}');
    // The lines after the credit, so a failure shows what the walkthrough printed there.
    const credited = stdout.indexOf('{"credit_name":"Jane Finder","credit_consent":true}');
    expect(stdout.slice(credited, credited + 600)).toMatch(/^met\n\{"id":"vdp-[0-9a-f-]{36}","version":"1","status":"final"\}$/m);
    expect(stdout).toMatch(
      /^\{"id":"x_VDP-[0-9a-f-]{36}","aliases":\["CVE-2026-40123"\],"credits":\[\{"name":"Jane Finder","type":"FINDER"\}\]/m,
    );
    expect(stdout).toContain('{"credits":[{"lang":"en","value":"Jane Finder","type":"finder"}],"score":6.1,"cwe":"CWE-601"}');
    expect(stdout).toMatch(/^2\n1 Initial publication\n2 Reference added$/m);
  },
  "docs/owners.md": (stdout) => {
    expect(stdout).toMatch(/"published_at": null/);
    // Policy versions: the terms as created, then the timeline's change, each with its hash.
    expect(stdout).toMatch(/^1 cvd_timeline=null [0-9a-f]{64}\n2 cvd_timeline=90 [0-9a-f]{64}$/m);
    // The demo organization's security.txt, its contact first.
    expect(stdout).toMatch(/^Contact: mailto:security@demo\.example$/m);
    expect(stdout).toMatch(/^Policy: http:\/\/localhost:\d+\/p\/DEMX-0002$/m);
    expect(stdout).toContain("202");
    // E-mail: the contact confirmed from its e-mail's link, the receipt's link, the reply by e-mail as the
    // reporter's comment (its quote cut), the responder told of it, and the log.
    expect(stdout).toMatch(/"confirmed": true/);
    expect(stdout).toMatch(/^\/r\/vdpr_\.\.\.$/m);
    expect(stdout).toMatch(
      /^ok\norganization: Confirmed\. Does it need the SSO cookie\?\nreporter: Yes, only with the SSO cookie\.\nThe reporter commented on /m,
    );
    expect(stdout).toMatch(/^receipt -> finder@researcher\.example$/m);
  },
  "docs/operators.md": (stdout) => {
    expect(stdout).toMatch(/"key": "vdp_[0-9A-Za-z]{40,}"/);
    expect(stdout).toMatch(/"name": "Demo Security Co"/);
  },
};

async function runWalkthrough(script: string): Promise<string> {
  // In the project, as a reader runs it (it calls npm run); what it writes there is removed after.
  const { stdout } = await promisify(execFile)("bash", ["-c", `set -euo pipefail\ntrap 'rm -rf poc.txt downloads' EXIT\n${script}`], {
    cwd: root,
    env: { ...process.env, CI: "true" },
    maxBuffer: 10 * 1024 * 1024,
    timeout: 240_000, // a bound for a loaded machine; its `until` loops wait on the report's state
  });
  return stdout;
}

describe("the walkthroughs, each from the page it is on", () => {
  it("are tested here, every page that has one", () => {
    expect(PAGES.filter((page) => walkthroughBlocks(read(page)).length > 0)).toEqual(Object.keys(WALKTHROUGHS).sort());
  });

  for (const [page, expectPrinted] of Object.entries(WALKTHROUGHS)) {
    it(`${page}: runs as written, stopping at nothing`, async () => {
      const script = walkthroughScript(read(page), Object.keys(WALKTHROUGHS).indexOf(page) + 1);
      expect(script).toContain("jq -er .data.id");
      expectPrinted(await runWalkthrough(script));
    });
  }

  it("would stop at the first error: a failing request fails the script", async () => {
    const failing = `set -euo pipefail\nBASE=${base}\nKEY=vdp_nope\napi() { curl -sS --fail-with-body -H "Authorization: Bearer $KEY" "$@"; }\nID=$(api $BASE/v1/policies | jq -er .data.id) && echo "should not print"`;
    const result = await promisify(execFile)("bash", ["-c", failing]).then(
      () => "ran on",
      (err: { stdout: string }) => err.stdout,
    );
    expect(result).not.toContain("should not print");
  });
});
