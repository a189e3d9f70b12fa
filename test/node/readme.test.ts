import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, inject, it } from "vitest";
import { EVENT_TYPES } from "../../src/events/types";

// The README's walkthroughs, run as written against the shared `npm run dev`: every ```sh block of the
// Walkthroughs section, in order, in one bash with `set -euo pipefail`, so any command that fails (an
// HTTP error through --fail-with-body, a missing id through jq -e) fails this test. Blocks fenced
// ```shell are for people only (a long-running receiver). Three things are adapted: the base URL, and
// the scratch local D1 of the shared server for the two commands that write to D1 directly.

const root = path.resolve(import.meta.dirname, "../..");
const { base, persistTo } = inject("dev");

function walkthroughScript(readme: string): string {
  const section = readme.slice(readme.indexOf("## Walkthroughs"), readme.indexOf("\n## ", readme.indexOf("## Walkthroughs") + 5));
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks
    .join("\n")
    .replaceAll("http://localhost:8787", base)
    .replaceAll("npm run --silent seed", `npm run --silent seed -- --persist-to ${persistTo}`)
    .replaceAll("npm run --silent key", `npm run --silent key -- --persist-to ${persistTo}`)
    .replaceAll("operator-key -- --local", `operator-key -- --local --persist-to ${persistTo}`);
}

describe("what the README says of the code and of deploying", () => {
  const readme = readFileSync(path.join(root, "README.md"), "utf8");
  const section = (heading: string) =>
    readme.slice(readme.indexOf(heading), readme.indexOf("\n#", readme.indexOf(heading) + heading.length));
  const COUNTS: Record<string, number> = { seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12, thirteen: 13 };

  it("counts the event types there are", () => {
    const said = [...readme.matchAll(/the (\w+) event types/g)].map((m) => COUNTS[m[1]!]);
    expect(said.length).toBeGreaterThan(0);
    expect(said).toEqual(said.map(() => EVENT_TYPES.length));
  });

  it("says webhook deliveries arrive in no guaranteed order", () => {
    expect(section("### Watching webhooks arrive")).toMatch(/no guaranteed order/);
  });

  it("says what deploying needs before the first command that needs it", () => {
    const deploy = section("## Deploy");
    const at = (text: string) => deploy.indexOf(text);
    expect(at("Workers Paid plan")).toBeGreaterThan(-1);
    expect(at("Workers Paid plan")).toBeLessThan(at("wrangler queues create"));
    expect(at("CLOUDFLARE_API_TOKEN")).toBeGreaterThan(-1);
    expect(at("CLOUDFLARE_API_TOKEN")).toBeLessThan(at("npx wrangler d1 create"));
    expect(at("database_id")).toBeLessThan(at("npm run deploy"));
  });

  it("does not say unpublishing a policy closes its brief, which stays open", () => {
    expect(readme).not.toMatch(/closes it to the public/);
  });
});

describe("the README's walkthroughs", () => {
  it("run as written, stopping at nothing", async () => {
    const script = walkthroughScript(readFileSync(path.join(root, "README.md"), "utf8"));
    expect(script).toContain("jq -er .data.id");
    expect(script.split("\n").length).toBeGreaterThan(40);
    // In the project, as a reader runs it (it calls npm run); what it writes there is removed after.
    const { stdout } = await promisify(execFile)("bash", ["-c", `set -euo pipefail\ntrap 'rm -rf poc.txt downloads' EXIT\n${script}`], {
      cwd: root,
      env: { ...process.env, CI: "true" },
      maxBuffer: 10 * 1024 * 1024,
      timeout: 240_000, // a bound for a loaded machine; its `until` loop waits on the report's state
    });
    // A few results a reader is told to expect.
    expect(stdout).toContain('"stored"');
    expect(stdout).toMatch(/"published_at": null/);
    expect(stdout).toContain("202");
    expect(stdout).toMatch(/"key": "vdp_[0-9A-Za-z]{40,}"/);
    // The reporter's file, as the reporter's answer and the organization's list show it.
    expect(stdout).toContain("reporter: redirect-trace.txt");
    expect(stdout).toMatch(/reporter: redirect-trace\.txt \(\d+ bytes\)/);
    // The receipt, verified by jose against the served keys.
    expect(stdout).toMatch(/^verified: [0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4} received \d{4}-.*, record sha256 [0-9a-f]{64}$/m);
    // The triager's morning: the question pauses the deadlines, the reporter sees it, the answer returns
    // the report to triaged; the metrics come as CSV too.
    expect(stdout).toMatch(/^paused\nneeds_more_info\ntriaged$/m);
    expect(stdout).toMatch(/^closed\n1$/m);
    // The law's clock: pending once flagged, what the draft leaves to the organization, met once filed.
    expect(stdout).toMatch(/^pending\naffected_products, suspected_malicious, member_states\nmet$/m);
    expect(stdout).toMatch(/^scope,period_start,period_end,reports_received,/m);
    // Policy versions: the terms as created, then the timeline's change, each with its hash.
    expect(stdout).toMatch(/^1 cvd_timeline=null [0-9a-f]{64}\n2 cvd_timeline=90 [0-9a-f]{64}$/m);
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
    // The demo organization's security.txt, its contact first.
    expect(stdout).toMatch(/^Contact: mailto:security@demo\.example$/m);
    expect(stdout).toMatch(/^Policy: http:\/\/localhost:\d+\/p\/DEMX-0002$/m);
    // E-mail: the contact confirmed from its e-mail's link, the receipt's link, the reply by e-mail as the
    // reporter's comment (its quote cut), the responder told of it, and the log.
    expect(stdout).toMatch(/"confirmed": true/);
    expect(stdout).toMatch(/^\/r\/vdpr_\.\.\.$/m);
    expect(stdout).toMatch(
      /^ok\norganization: Confirmed\. Does it need the SSO cookie\?\nreporter: Yes, only with the SSO cookie\.\nThe reporter commented on /m,
    );
    expect(stdout).toMatch(/^receipt -> finder@researcher\.example$/m);
  });

  it("would stop at the first error: a failing request fails the script", async () => {
    const failing = `set -euo pipefail\nBASE=${base}\nKEY=vdp_nope\napi() { curl -sS --fail-with-body -H "Authorization: Bearer $KEY" "$@"; }\nID=$(api $BASE/v1/policies | jq -er .data.id) && echo "should not print"`;
    const result = await promisify(execFile)("bash", ["-c", failing]).then(
      () => "ran on",
      (err: { stdout: string }) => err.stdout,
    );
    expect(result).not.toContain("should not print");
  });
});
