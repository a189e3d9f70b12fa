import { describe, expect, it } from "vitest";
import { api, browse } from "../helpers/api";
import { organization } from "../helpers/factories";
import { createContact, linkIn, mailbox, runMail } from "../helpers/mail";
import { submitReport } from "../helpers/reporter";

// The links e-mails carry (/c confirms a contact, /u stops a reporter's e-mails) change something only
// by a POST: a GET or a HEAD (a mail scanner's, a link preview's, another site's) shows or changes nothing.

const CROSS_SITE = { "Sec-Fetch-Site": "cross-site", Origin: "https://attacker.example" };
const SAME_SITE = { "Sec-Fetch-Site": "same-origin" };

describe("what e-mails link to", () => {
  it("a HEAD to a contact's confirmation link confirms nothing, from any site", async () => {
    const org = await organization();
    const created = await createContact(org, { name: "Ana Lima", email: "ana@acme.example", role: "responder" });
    const box = mailbox();
    await runMail(box, []);
    const link = linkIn(box.to("ana@acme.example")[0]?.text, "c");
    const confirmedAt = async () =>
      (await api("GET", `/v1/contacts/${created.body.data.id}`, { key: org.key })).body.data.attributes.confirmed_at;

    for (const headers of [CROSS_SITE, SAME_SITE, {}]) {
      const head = await browse("HEAD", link, { headers });
      expect(head.status).toBe(200);
      expect(head.text).toBe("");
      expect(await confirmedAt()).toBeNull();
    }
    expect((await browse("POST", link, { headers: SAME_SITE })).status).toBe(200);
    expect(await confirmedAt()).toEqual(expect.any(String));
  });

  it("a HEAD to a reporter's unsubscribe link unsubscribes nothing, from any site", async () => {
    const report = await submitReport(undefined, { contact_email: "finder@researcher.example" });
    const box = mailbox();
    await runMail(box);
    const receipt = box.to("finder@researcher.example")[0]!;
    const link = new URL(receipt.headers!["List-Unsubscribe"]!.slice(1, -1)).pathname;
    expect(link).toMatch(new RegExp(`^/u/${report.id}\\.`));
    const subscribed = async () => (await browse("GET", link)).text.includes(`<form method="post" action="${link}">`);

    for (const headers of [CROSS_SITE, SAME_SITE, {}]) {
      const head = await browse("HEAD", link, { headers });
      expect(head.status).toBe(200);
      expect(head.text).toBe("");
      expect(await subscribed()).toBe(true);
    }
    // RFC 8058's one-click POST, from the mail provider's own site, does.
    const clicked = await browse("POST", link, {
      body: "List-Unsubscribe=One-Click",
      headers: { "Content-Type": "application/x-www-form-urlencoded", ...CROSS_SITE },
    });
    expect(clicked.status).toBe(200);
    expect(await subscribed()).toBe(false);
  });
});
