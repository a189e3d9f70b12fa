import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { browse, patch, post } from "../helpers/api";
import { brief, directory, listing, organization, policy, PUBLISHED } from "../helpers/factories";
import { asReporter, submitReport } from "../helpers/reporter";

// Text kept from before single-line members had to be one line (the API refuses such text now) is shown
// as one line on every page: its line breaks and control characters one space, its bidirectional
// overrides gone, so it can neither start a paragraph nor reverse the text beside it.

const HOSTILE = (word: string) => `${word}\r\nEvil\u2028\u0007\u202e\u2066 here`;
const FLAT = (word: string) => `${word} Evil here`;
// What no page shows outside a multi-line member (the page's own markup has line feeds only).
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is looked for
const FORBIDDEN = /[\r\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const set = (table: string, assignments: Record<string, string>, id: string) =>
  env.DB.prepare(
    `UPDATE ${table} SET ${Object.keys(assignments)
      .map((c) => `"${c}" = ?`)
      .join(", ")} WHERE id = ?`,
  )
    .bind(...Object.values(assignments), id)
    .run();

describe("a page showing text kept before the one-line rule", () => {
  it("shows each single-line member as one line, with no control character or bidi override", async () => {
    const org = await organization({ name: "Acme" });
    const p = await policy(org, {
      name: "Acme VDP",
      hall_of_fame: true,
      published_at: PUBLISHED,
      point_of_contact: "security@acme.example",
    });
    const b = await brief(org, { published_at: PUBLISHED, name: "Acme web" }, p.id);
    const r = await submitReport(org, {}, { briefId: b.id, shortcode: b.attributes.shortcode });
    expect(
      (
        await asReporter("PATCH", "/v1/p/report", r.token, {
          body: { data: { type: "report", attributes: { credit_name: "Ana", credit_consent: true } } },
        })
      ).status,
    ).toBe(200);
    const advisory = await post("/v1/advisories", org.key, {
      data: {
        type: "advisory",
        attributes: {
          title: "Redirect",
          summary: "S",
          state: "published",
          affected: [{ vendor: "Acme", product: "Web", versions: [{ version: "1.0", status: "affected" }] }],
          credits: [{ reporter_of: r.id, type: "finder" }],
        },
        relationships: { vulns: { data: [{ type: "vuln", id: r.id }] } },
      },
    });
    expect(advisory.status).toBe(201);
    const resolved = await patch(`/v1/vulns/${r.id}`, org.key, {
      data: { type: "vuln", id: r.id, attributes: { triage_state: "resolved" } },
    });
    expect(resolved.status).toBe(200);
    const dir = await directory(org.operatorKey, { min_maturity_rating: 0 });
    await listing(org.operatorKey, dir.id, org.id);

    // The rows as the API kept them before the rule.
    await set("organizations", { name: HOSTILE("Acme") }, org.id);
    await set("policies", { name: HOSTILE("Policy"), short_description: HOSTILE("Terms"), point_of_contact: HOSTILE("Contact") }, p.id);
    await set("briefs", { name: HOSTILE("Program"), short_description: HOSTILE("About") }, b.id);
    await set("vulns", { title: HOSTILE("Title"), credit_name: HOSTILE("Ana") }, r.id);
    await set("directories", { name: HOSTILE("Directory"), description: HOSTILE("Listing") }, dir.id);
    const [revision] = (
      await env.DB.prepare("SELECT * FROM advisory_revisions WHERE advisory_id = ?").bind(advisory.body.data.id).all<Record<string, any>>()
    ).results;
    const doc = JSON.parse(revision!.document);
    doc.title = HOSTILE("Advisory");
    doc.affected[0].vendor = HOSTILE("Vendor");
    doc.affected[0].versions[0].version = HOSTILE("1.0");
    doc.credits[0].name = HOSTILE("Credit");
    doc.history[0].note = HOSTILE("Note");
    doc.publisher.name = HOSTILE("Acme");
    await env.DB.prepare(
      "INSERT INTO advisory_revisions (id, advisory_id, number, note, document, created_at) VALUES (?, ?, 99, 'n', ?, ?)",
    )
      .bind(crypto.randomUUID(), advisory.body.data.id, JSON.stringify(doc), revision!.created_at)
      .run();

    const pages: [string, string[]][] = [
      [`/b/${b.attributes.shortcode}`, ["Acme", "Program", "About", "Policy", "Terms", "Contact"]],
      [`/p/${p.attributes.shortcode}`, ["Acme", "Policy", "Terms", "Contact", "Program", "About"]],
      [`/r/${r.token}`, ["Acme", "Program", "Title"]],
      [`/h/${p.attributes.shortcode}`, ["Acme", "Policy", "Ana"]],
      [`/d/${dir.attributes.slug}`, ["Directory", "Listing", "Acme"]],
      [`/a/${advisory.body.data.id}`, ["Acme", "Advisory", "Vendor", "1.0", "Credit", "Note"]],
    ];
    for (const [path, words] of pages) {
      const page = await browse("GET", path);
      expect([path, page.status]).toEqual([path, 200]);
      // The form's own fields (the report's title, typed back) are not the page's text.
      const text = page.text.replace(/<textarea[\s\S]*?<\/textarea>|value="[^"]*"/g, "");
      expect([path, FORBIDDEN.exec(text)?.[0]]).toEqual([path, undefined]);
      expect([path, text.match(/\nEvil/)?.[0]]).toEqual([path, undefined]);
      for (const word of words) expect([path, word, text.includes(FLAT(word))]).toEqual([path, word, true]);
    }
    // The reporter's credit name, offered back in its field as one line (sent back as is, it is taken).
    expect((await browse("GET", `/r/${r.token}`)).text).toContain(`value="${FLAT("Ana")}"`);
  });
});
