import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { get } from "../helpers/api";
import { AUTHENTICATED, label } from "../helpers/endpoints";
import { duplicateCycle } from "./bodies";
import { caseArbitrary, type FuzzCase } from "./cases";
import { Findings } from "./findings";
import { judge, send, type Answer, type KeyKind } from "./harness";
import { operationsOf, type OpenApiDocument, type Operation } from "./operations";
import { namedIn, Pool } from "./pool";
import { expectedStatuses, keyMustFail, leaks } from "./rules";
import { arbitraryOf, conforms, patternOf } from "./schema";
import { WriteCounter } from "./writes";

// The workers pool passes only VITE_-prefixed variables into the test: VITE_FUZZ_SEED=123 npm test.
const vars: Record<string, string | undefined> = { ...(globalThis as { process?: { env?: Record<string, string> } }).process?.env };
const SEED = Number(vars.VITE_FUZZ_SEED ?? 20261123);
const RUNS = Number(vars.VITE_FUZZ_RUNS ?? 2_700);
const MIN_REQUESTS = 5_000;
// Deleting a fixture's records leaves later requests nothing to find; remake them now and then.
const REFRESH_EVERY = 400;

let doc: OpenApiDocument;
let ops: Operation[];

beforeAll(async () => {
  doc = (await get("/v1/openapi.json")).body;
  ops = operationsOf(doc);
});

describe("the fuzzer's own generator", () => {
  it("knows a duplicate cycle in a bulk change from a chain", () => {
    const dup = (id: string, of: string) => ({
      id,
      attributes: { triage_state: "duplicate" },
      relationships: { duplicate_of: { data: { id: of } } },
    });
    expect(duplicateCycle([dup("x", "y"), dup("y", "x")])).toBe(true);
    expect(duplicateCycle([dup("x", "x")])).toBe(true);
    expect(duplicateCycle([dup("x", "y"), dup("y", "z"), dup("w", "x")])).toBe(false);
    expect(duplicateCycle([dup("x", "y"), { id: "y", attributes: { triage_state: "triaged" } }])).toBe(false);
  });

  it("can match every pattern the document gives (a pattern no string matches refuses every value)", () => {
    const patterns = [...new Set(JSON.stringify(doc).match(/"pattern":"(?:[^"\\]|\\.)*"/g) ?? [])].map(
      (p) => JSON.parse(`{${p}}`).pattern as string,
    );
    expect(patterns.length).toBeGreaterThan(0);
    const unmatchable = patterns.filter(
      (p) => !fc.sample(fc.stringMatching(new RegExp(patternOf(p).source)), { seed: SEED, numRuns: 20 }).some((v) => new RegExp(p).test(v)),
    );
    expect(unmatchable).toEqual([]);
  });

  it("makes instances that conform to each request schema of the document", () => {
    const withBody = ops.filter((op) => op.body);
    expect(withBody.length).toBeGreaterThan(15);
    for (const op of withBody) {
      const ids = { resourceType: op.resourceType, pathId: "{{A.x}}", of: (t: string) => [`{{A.${t}}}`, `{{B.${t}}}`] };
      fc.assert(
        fc.property(arbitraryOf(op.body!.schema, doc.components.schemas, ids), (v) => conforms(op.body!.schema, doc.components.schemas, v)),
        { seed: SEED, numRuns: 50 },
      );
    }
  });
});

const WRITE = new Set(["POST", "PATCH", "DELETE"]);
// Reading a vuln marks it read (one write by design); no other read writes anything, and HEAD never does.
const mayWrite = (c: FuzzCase) => WRITE.has(c.method) || (c.method === "GET" && c.op.template === "/v1/vulns/{id}");

/** What a success changed that later requests depend on: deleted records, and who is claimed. */
function noteEffects(c: FuzzCase, answer: Answer, pool: Pool): void {
  if (answer.status >= 300 || c.method !== c.op.method) return;
  const owner = namedIn(c.pathValues.join(" "))[0]?.owner;
  if (!owner) return;
  if (c.method === "DELETE") pool.spent.add(owner);
  if (c.method === "PATCH" && c.op.template === "/v1/organizations/{id}")
    pool.claimed[owner] = JSON.parse(answer.text).data.attributes.claimed;
}

describe("every operation of the OpenAPI document, fuzzed", () => {
  it("answers generated bad requests with documented statuses and error documents, and writes nothing when it refuses", async () => {
    const pool = await Pool.create();
    const writes = new WriteCounter();
    await writes.install();
    const components = doc.components.schemas;
    const byMethodAndPath = new Map(ops.map((o) => [`${o.method} ${o.template}`, o]));
    const errorCodes = new Set((components.Error!.properties!.code!.enum ?? []) as string[]);
    const operatorOnly = new Set(AUTHENTICATED.filter((e) => e.operatorOnly).map((e) => label(e).replace(/\{org\}/g, "{id}")));
    const methodsOf = (template: string) => ops.filter((o) => o.template === template).map((o) => o.method);
    const perOp = ops.map((op) => caseArbitrary(op, methodsOf(op.template), components, pool));
    // The operations in turn, so each gets its share of the runs whatever their number (a random pick
    // leaves some under the floor below by chance); what each case sends is fast-check's.
    let turn = 0;
    const requests = fc.constant(null).chain(() => perOp[turn++ % perOp.length]!);

    const findings = new Findings();
    const perOperation = new Map<string, number>();
    let sent = 0;
    let cases = 0;
    let before = await writes.read();
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(requests, async (c) => {
        if (++cases % REFRESH_EVERY === 0 && pool.spent.size > 0) {
          await pool.refreshSpent();
          before = await writes.read();
        }
        perOperation.set(c.op.label, (perOperation.get(c.op.label) ?? 0) + 1);
        // The operator first: a write it must not make would otherwise find the record already gone.
        const keys: KeyKind[] = c.authorization !== undefined ? ["literal"] : ["operator", "org"];
        for (const key of keys) {
          const mustFail = [...c.mustFail, ...keyMustFail(c, key, pool, operatorOnly)];
          const answer = await send(c, key, pool);
          sent++;
          const after = answer.mayHaveWritten ? await writes.read() : before;
          const problems = judge(c, answer, { ops: byMethodAndPath, errorCodes, components }, mustFail);
          const expected = expectedStatuses(c, key, operatorOnly);
          if (expected && !expected.includes(answer.status) && answer.status < 500)
            problems.push({
              label: `answered ${answer.status} where only ${expected.join(" or ")} is right`,
              detail: c.mustFail.join("; ") || "another organization's record",
            });
          for (const type of leaks(c, key, answer, pool))
            problems.push({ label: `an organization key was shown another organization's ${type}` });
          const wrote = WriteCounter.changed(before, after);
          if (answer.status >= 400 && wrote.length) problems.push({ label: `a failed request wrote ${wrote.join(", ")}` });
          else if (!mayWrite(c) && WriteCounter.changed(before, after, true).length)
            problems.push({ label: `a ${c.method} wrote ${WriteCounter.changed(before, after, true).join(", ")}` });
          before = after;
          findings.record(c, key, answer, problems);
          noteEffects(c, answer, pool);
        }
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    const ms = Date.now() - started;

    const summary = `fuzz: ${sent} requests (${cases} cases over ${ops.length} operations), ${findings.fiveXX} 5xx, ${findings.failedWrites} failed requests that wrote, ${findings.size} distinct problems, ${(ms / 1000).toFixed(1)} s, seed ${SEED} (${pool.refreshes} fixtures made)`;
    console.log(summary);
    if (vars.VITE_FUZZ_RUNS === undefined) {
      expect(ops.filter((op) => (perOperation.get(op.label) ?? 0) < 20).map((op) => op.label)).toEqual([]);
      expect(sent).toBeGreaterThanOrEqual(MIN_REQUESTS);
    }
    expect(
      findings.size,
      `${summary}\nReproduce with VITE_FUZZ_SEED=${SEED}. Placeholders: {{A.*}} the key's organization (claimed), {{B.*}} another (unclaimed), {{key:*}} the keys.\n\n${findings.report()}`,
    ).toBe(0);
  }, 600_000);
});
