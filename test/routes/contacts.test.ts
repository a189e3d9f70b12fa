import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api, browse } from "../helpers/api";
import { organization } from "../helpers/factories";
import { createContact, linkIn, mailbox, outbox, runMail } from "../helpers/mail";

// Contacts: the organization's people the platform e-mails. A new or changed address gets one
// confirmation e-mail whose link opens a page; only the page's button (a same-site POST) confirms.

describe("contacts", () => {
  it("are created unconfirmed with one confirmation e-mail, and only the page's button confirms them", async () => {
    const org = await organization({ name: "Acme Security" });
    const res = await createContact(org, { name: "Ana Lima", email: "Ana@Acme.example", role: "responder" });
    expect(res.status).toBe(201);
    expect(res.body.data.attributes).toMatchObject({ name: "Ana Lima", email: "ana@acme.example", role: "responder", confirmed_at: null });
    const id = res.body.data.id;

    const box = mailbox();
    await runMail(box, []);
    expect(box.sent.map((m) => [m.to, m.subject])).toEqual([
      ["ana@acme.example", "Confirm your address for Acme Security's vulnerability reports"],
    ]);
    const mail = box.sent[0]!;
    expect(mail.from).toBe(env.EMAIL_FROM);
    expect(mail.html).toContain("<a href=");
    const link = linkIn(mail.text, "c");

    // Fetching the link (a mail scanner does) shows a button and confirms nothing.
    const shown = await browse("GET", link);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain(`<form method="post" action="${link}">`);
    expect(shown.headers.get("Cache-Control")).toContain("no-store");
    expect((await api("GET", `/v1/contacts/${id}`, { key: org.key })).body.data.attributes.confirmed_at).toBeNull();
    // Another site's form cannot press it.
    expect((await browse("POST", link, { headers: { "Sec-Fetch-Site": "cross-site" } })).status).toBe(403);
    expect((await api("GET", `/v1/contacts/${id}`, { key: org.key })).body.data.attributes.confirmed_at).toBeNull();

    const pressed = await browse("POST", link, { headers: { "Sec-Fetch-Site": "same-origin" } });
    expect(pressed.status).toBe(200);
    expect(pressed.text).toContain("Address confirmed");
    const confirmedAt = (await api("GET", `/v1/contacts/${id}`, { key: org.key })).body.data.attributes.confirmed_at;
    expect(confirmedAt).toEqual(expect.any(String));
    // Pressing again changes nothing; the log says the e-mail went.
    await browse("POST", link, { headers: { "Sec-Fetch-Site": "same-origin" } });
    expect((await api("GET", `/v1/contacts/${id}`, { key: org.key })).body.data.attributes.confirmed_at).toBe(confirmedAt);
    const log = await api("GET", "/v1/notifications", { key: org.key });
    expect(
      log.body.data.map((n: any) => [n.attributes.kind, n.attributes.to, n.attributes.status, n.relationships.contact.data.id]),
    ).toEqual([["contact_confirmation", "ana@acme.example", "sent", id]]);
    expect(JSON.stringify(log.body)).not.toContain("/c/");
  });

  it("refuse a forged or altered link, and a link for an address since changed", async () => {
    const org = await organization();
    const res = await createContact(org, { name: "Bo", email: "bo@acme.example", role: "escalation" });
    const box = mailbox();
    await runMail(box, []);
    const link = linkIn(box.sent[0]!.text, "c");
    const altered = link.slice(0, -1) + (link.endsWith("a") ? "b" : "a");
    expect((await browse("GET", altered)).status).toBe(404);
    expect((await browse("POST", altered, { headers: { "Sec-Fetch-Site": "same-origin" } })).status).toBe(404);
    // Another contact's id with this MAC.
    const other = await createContact(org, { name: "Cy", email: "cy@acme.example", role: "responder" });
    expect((await browse("GET", link.replace(res.body.data.id, other.body.data.id))).status).toBe(404);

    // A new address is unconfirmed again, with its own e-mail; the old link no longer confirms.
    const changed = await api("PATCH", `/v1/contacts/${res.body.data.id}`, {
      key: org.key,
      body: { data: { type: "contact", id: res.body.data.id, attributes: { email: "bo.new@acme.example" } } },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data.attributes).toMatchObject({ email: "bo.new@acme.example", confirmed_at: null });
    expect((await browse("POST", link, { headers: { "Sec-Fetch-Site": "same-origin" } })).status).toBe(404);
    const again = mailbox();
    await runMail(again, []);
    // (Cy's own confirmation went out in the same run.)
    expect(again.sent.map((m) => m.to).sort()).toEqual(["bo.new@acme.example", "cy@acme.example"]);
    expect(
      (await browse("POST", linkIn(again.to("bo.new@acme.example")[0]!.text, "c"), { headers: { "Sec-Fetch-Site": "same-origin" } }))
        .status,
    ).toBe(200);
    expect((await api("GET", `/v1/contacts/${res.body.data.id}`, { key: org.key })).body.data.attributes.confirmed_at).not.toBeNull();
    // A rename keeps the confirmation and sends nothing.
    await api("PATCH", `/v1/contacts/${res.body.data.id}`, {
      key: org.key,
      body: { data: { type: "contact", id: res.body.data.id, attributes: { name: "Bo N." } } },
    });
    expect((await api("GET", `/v1/contacts/${res.body.data.id}`, { key: org.key })).body.data.attributes.confirmed_at).not.toBeNull();
    const none = mailbox();
    await runMail(none, []);
    expect(none.sent).toEqual([]);
  });

  it("are at most 20, one per address, written by the organization's key only and refused whole", async () => {
    const org = await organization();
    for (let i = 0; i < 20; i++) {
      expect((await createContact(org, { name: `P${i}`, email: `p${i}@acme.example`, role: "responder" })).status).toBe(201);
      if (i === 3) {
        const twice = await createContact(org, { name: "Again", email: "P3@acme.example", role: "escalation" });
        expect([twice.status, twice.body.errors[0].detail]).toEqual([422, "The organization already has a contact with this address."]);
      }
    }
    const over = await createContact(org, { name: "P20", email: "p20@acme.example", role: "responder" });
    expect(over.status).toBe(422);
    expect(over.body.errors[0].source.pointer).toBe("/data/attributes/email");
    expect(over.body.errors[0].detail).toContain("20 contacts");
    const bad = await createContact(org, { name: "X", email: "not an address", role: "boss" });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: any) => e.source.pointer).sort()).toEqual(["/data/attributes/email", "/data/attributes/role"]);
    // Nothing refused wrote a contact or an e-mail.
    const all = await api("GET", "/v1/contacts?page[size]=100", { key: org.key });
    expect(all.body.data.map((c: any) => c.attributes.email)).toHaveLength(20);
    expect((await outbox()).filter((n) => String(n.to).includes("p20") || String(n.to) === "x")).toEqual([]);

    const operator = await createContact(org, { name: "Op", email: "op@acme.example", role: "responder" }, org.operatorKey);
    expect(operator.status).toBe(403);
    // Operators read every organization's.
    const read = await api("GET", "/v1/contacts?q[role_eq]=responder&q[confirmed_eq]=false&page[size]=100", { key: org.operatorKey });
    expect(read.status).toBe(200);
    read.body.data = read.body.data.filter((c: any) => c.relationships.organization.data.id === org.id);
    expect(read.body.data).toHaveLength(20);
    const other = await organization();
    expect((await api("GET", `/v1/contacts/${read.body.data[0].id}`, { key: other.key })).status).toBe(404);

    // Deleting one makes room; its unsent e-mail is not sent.
    expect((await api("DELETE", `/v1/contacts/${read.body.data[0].id}`, { key: org.key })).status).toBe(204);
    expect((await createContact(org, { name: "P20", email: "p20@acme.example", role: "responder" })).status).toBe(201);
    const box = mailbox();
    await runMail(box, []);
    expect(box.sent.map((m) => m.to)).not.toContain(read.body.data[0].attributes.email);
    expect((await outbox()).filter((n) => n.status !== "sent" && n.status !== "cancelled")).toEqual([]);
    expect(box.sent.map((m) => m.to)).toHaveLength(20);
  });
});
