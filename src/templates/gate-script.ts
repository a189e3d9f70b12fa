import { fnv1a } from "./styles";

// The brief page's one script (CSP script-src 'self'; nothing inline), on a form marked up as:
//
//   <form data-gate data-pow="on|auto|off" data-challenge="/v1/p/briefs/CODE/challenge"
//         data-worker="/scripts/pow-<hash>.js" data-organization="<org id>" data-brief="CODE">
//     hidden inputs pow, reporter_key, reporter_signature; <p id="gate-status" aria-live="polite">;
//     a checkbox named sign (checked), inside an element marked data-sign (shown only where signing works)
//
// Proof of work: on load it fetches a challenge and solves it in min(4, cores) workers, each on a share of
// 0..maxnumber, and puts the ALTCHA v1 solution (base64 JSON) in `pow`. A submit before then waits for it,
// saying so; a challenge older than 9 minutes (of its 10) is fetched again; if solving fails the form goes
// without one, and the report is merely unverified.
//
// Signing: one Ed25519 key per organization in IndexedDB "vdp-reporter" (so organizations cannot link a
// reporter across them), its private half non-extractable. At submit, when `sign` is ticked, it signs the
// canonical JSON (RFC 8785) of what the form sends, the object readReportForm rebuilds on the server:
//   {title, description (as typed, CRLF -> LF), contact_email (trimmed; "" -> null),
//    domains (split on line breaks and commas, trimmed, empty dropped), evidence ({field: text} for each
//    evidence_<field> that is not blank, as typed), ai_use ({level, tools, verified_by_reporter} or null
//    when no ai_use_level is chosen), files (lowercase SHA-256 hex of each chosen file, in form order)}
// as a JWS with a detached payload, and puts its thumbprint (RFC 7638) in `reporter_key`. Any failure
// sends the report unsigned. Without this script the form posts as it always did.

export const GATE_JS = `(() => {
  "use strict";
  const form = document.querySelector("form[data-gate]");
  if (!form) return;
  const status = document.getElementById("gate-status");
  const say = (text) => status && (status.textContent = text);
  const set = (name, value) => {
    const input = form.elements.namedItem(name);
    if (input) input.value = value;
  };
  const REFETCH = 9 * 60000;
  const subtle = window.isSecureContext && crypto.subtle;
  const enc = new TextEncoder();
  const b64u = (buffer) => {
    let s = "";
    for (const b of new Uint8Array(buffer)) s += String.fromCharCode(b);
    return btoa(s).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
  };

  let job = null;
  let timer;
  async function solve() {
    const res = await fetch(form.dataset.challenge, { headers: { Accept: "application/json" }, cache: "no-store", credentials: "omit" });
    if (!res.ok) return "";
    const c = await res.json();
    const count = Math.max(1, Math.min(4, navigator.hardwareConcurrency || 1));
    const share = Math.ceil((c.maxnumber + 1) / count);
    const started = Date.now();
    const number = await new Promise((resolve) => {
      const workers = [];
      let left = count;
      const done = (n) => {
        if (n === null && --left > 0) return;
        for (const w of workers) w.terminate();
        resolve(n);
      };
      for (let i = 0; i < count; i++) {
        const w = new Worker(form.dataset.worker);
        workers.push(w);
        w.onmessage = (m) => done(typeof m.data.number === "number" ? m.data.number : null);
        w.onerror = () => done(null);
        w.postMessage({ salt: c.salt, challenge: c.challenge, start: i * share, end: Math.min(c.maxnumber, (i + 1) * share - 1) });
      }
    });
    if (number === null) return "";
    const took = Date.now() - started;
    return btoa(JSON.stringify({ algorithm: c.algorithm, challenge: c.challenge, number, salt: c.salt, signature: c.signature, took }));
  }
  function start() {
    clearTimeout(timer);
    set("pow", "");
    const mine = { at: Date.now(), done: false };
    mine.solution = solve()
      .catch(() => "")
      .then((solution) => {
        mine.done = true;
        if (job === mine) set("pow", solution);
        return solution;
      });
    job = mine;
    timer = setTimeout(start, REFETCH);
  }
  if (form.dataset.pow === "on" || form.dataset.pow === "auto") {
    start();
    // A page restored from the back-forward cache holds a solution already spent.
    addEventListener("pageshow", (e) => e.persisted && start());
  }

  const idb = (work) =>
    new Promise((resolve, reject) => {
      const open = indexedDB.open("vdp-reporter", 1);
      open.onupgradeneeded = () => open.result.createObjectStore("keys");
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const db = open.result;
        const tx = db.transaction("keys", "readwrite");
        const req = work(tx.objectStore("keys"));
        tx.oncomplete = () => (db.close(), resolve(req.result));
        tx.onerror = tx.onabort = () => (db.close(), reject(tx.error));
      };
    });
  async function keyOf(org) {
    const kept = await idb((s) => s.get(org));
    if (kept) return kept;
    const pair = await subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"]);
    const key = { privateKey: pair.privateKey, x: (await subtle.exportKey("jwk", pair.publicKey)).x };
    // Another tab may have made this organization's key meanwhile: the first one kept wins.
    return idb((s) => s.add(key, org)).then(() => key, () => idb((s) => s.get(org)));
  }
  const canon = (v) =>
    Array.isArray(v) ? "[" + v.map(canon).join(",") + "]"
    : v && typeof v === "object" ? "{" + Object.keys(v).sort().map((k) => JSON.stringify(k) + ":" + canon(v[k])).join(",") + "}"
    : JSON.stringify(v);
  async function payloadOf() {
    const fd = new FormData(form);
    const text = (name) => {
      const v = fd.get(name);
      return typeof v === "string" ? v.replace(/\\r\\n?/g, "\\n") : "";
    };
    const evidence = {};
    const files = [];
    for (const [name, v] of fd) {
      if (typeof v === "string") {
        if (name.startsWith("evidence_") && v.trim()) evidence[name.slice(9)] = v.replace(/\\r\\n?/g, "\\n");
      } else if (v.size > 0 || v.name !== "") {
        files.push([...new Uint8Array(await subtle.digest("SHA-256", await v.arrayBuffer()))].map((b) => b.toString(16).padStart(2, "0")).join(""));
      }
    }
    const level = text("ai_use_level");
    return {
      title: text("title"),
      description: text("description"),
      contact_email: text("contact_email").trim() || null,
      domains: text("domains").split(/[\\r\\n,]+/).map((d) => d.trim()).filter(Boolean),
      evidence,
      ai_use: level ? { level, tools: text("ai_use_tools"), verified_by_reporter: fd.get("ai_use_verified") !== null } : null,
      files,
    };
  }
  async function sign() {
    const { privateKey, x } = await keyOf(form.dataset.organization);
    const jwk = { crv: "Ed25519", kty: "OKP", x };
    const head = { alg: "EdDSA", typ: "vdp-report+jws", jwk, aud: "/b/" + form.dataset.brief, iat: Math.floor(Date.now() / 1000) };
    const signed = b64u(enc.encode(JSON.stringify(head))) + "." + b64u(enc.encode(canon(await payloadOf())));
    const signature = await subtle.sign("Ed25519", privateKey, enc.encode(signed));
    set("reporter_key", b64u(await subtle.digest("SHA-256", enc.encode(JSON.stringify(jwk)))));
    set("reporter_signature", signed.split(".")[0] + ".." + b64u(signature));
  }
  // Signing is offered only where it works: a secure context with IndexedDB and Ed25519.
  const signing =
    subtle && window.indexedDB
      ? subtle.generateKey({ name: "Ed25519" }, false, ["sign"]).then(() => true, () => false)
      : Promise.resolve(false);
  signing.then((ok) => {
    if (ok) for (const el of form.querySelectorAll("[data-sign]")) el.hidden = false;
  });

  async function prepare() {
    if (job) {
      if (Date.now() - job.at > REFETCH) start();
      if (!job.done) say("Finishing the anti-spam check before sending…");
      if (!(await job.solution)) say("The anti-spam check did not finish: sending without it.");
    }
    set("reporter_key", "");
    set("reporter_signature", "");
    const box = form.elements.namedItem("sign");
    if (box && box.checked && (await signing)) {
      try {
        await sign();
      } catch {
        set("reporter_key", "");
        set("reporter_signature", "");
      }
    }
  }
  let busy = false;
  let passing = false;
  form.addEventListener("submit", (event) => {
    if (passing) return;
    event.preventDefault();
    if (busy) return;
    busy = true;
    const submitter = event.submitter;
    prepare().finally(() => {
      busy = false;
      passing = true;
      try {
        if (form.requestSubmit) form.requestSubmit(submitter && submitter.form === form ? submitter : undefined);
        else form.submit();
      } finally {
        passing = false;
      }
    });
  });
})();
`;

export const GATE_JS_PATH = `/scripts/gate-${fnv1a(GATE_JS)}.js`;
