import { fnv1a } from "./styles";

// The console's one script, served by the Worker from this string (CSP script-src 'self'; nothing
// inline): it shows the passkey forms where the browser has WebAuthn, and runs them. The forms post
// nothing themselves; without the script they stay hidden and every other form works as before.
// JSON in and out, with the binary members as base64url, as @simplewebauthn/server reads and writes them.

export const CONSOLE_JS = `(() => {
  "use strict";
  const decode = (text) => {
    const b = atob(text.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(text.length / 4) * 4, "="));
    return Uint8Array.from(b, (c) => c.charCodeAt(0)).buffer;
  };
  const encode = (buffer) =>
    btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
  const ids = (list) => (list || []).map((c) => ({ ...c, id: decode(c.id) }));

  async function call(path, body, token) {
    const headers = { "Content-Type": "application/json" };
    if (token) headers["X-CSRF-Token"] = token;
    const res = await fetch(path, { method: "POST", credentials: "same-origin", headers, body: JSON.stringify(body || {}) });
    const answer = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(answer.message || "The server refused (" + res.status + "). Reload the page and try again.");
    return answer;
  }

  function failed(status, err) {
    status.textContent =
      err && err.name === "NotAllowedError"
        ? "Cancelled, or no passkey was chosen. Nothing changed."
        : (err && err.message) || "That did not work. Nothing changed.";
  }

  const supported = typeof window.PublicKeyCredential === "function" && navigator.credentials;
  if (!supported) return;
  for (const el of document.querySelectorAll("[data-passkeys]")) el.hidden = false;

  const add = document.getElementById("add-passkey");
  if (add) {
    const status = document.getElementById("add-passkey-status");
    add.addEventListener("submit", async (event) => {
      event.preventDefault();
      status.textContent = "Follow your browser's prompt to create the passkey…";
      try {
        const token = add.dataset.csrf;
        const o = await call("/console/passkeys/options", {}, token);
        const created = await navigator.credentials.create({
          publicKey: {
            ...o,
            challenge: decode(o.challenge),
            user: { ...o.user, id: decode(o.user.id) },
            excludeCredentials: ids(o.excludeCredentials),
          },
        });
        const r = created.response;
        const response = {
          id: created.id,
          rawId: encode(created.rawId),
          type: created.type,
          clientExtensionResults: created.getClientExtensionResults(),
          response: {
            clientDataJSON: encode(r.clientDataJSON),
            attestationObject: encode(r.attestationObject),
            transports: typeof r.getTransports === "function" ? r.getTransports() : [],
          },
        };
        await call("/console/passkeys", { name: add.elements.name.value, response }, token);
        status.textContent = "Passkey added.";
        location.reload();
      } catch (err) {
        failed(status, err);
      }
    });
  }

  const signIn = document.getElementById("passkey-sign-in");
  if (signIn) {
    const status = document.getElementById("passkey-sign-in-status");
    signIn.addEventListener("submit", async (event) => {
      event.preventDefault();
      status.textContent = "Follow your browser's prompt to choose a passkey…";
      try {
        const o = await call("/console/sign-in/passkey/options");
        const got = await navigator.credentials.get({
          publicKey: { ...o, challenge: decode(o.challenge), allowCredentials: ids(o.allowCredentials) },
        });
        const r = got.response;
        const response = {
          id: got.id,
          rawId: encode(got.rawId),
          type: got.type,
          clientExtensionResults: got.getClientExtensionResults(),
          response: {
            clientDataJSON: encode(r.clientDataJSON),
            authenticatorData: encode(r.authenticatorData),
            signature: encode(r.signature),
            userHandle: r.userHandle ? encode(r.userHandle) : undefined,
          },
        };
        const done = await call("/console/sign-in/passkey", { response });
        location.assign(done.redirect);
      } catch (err) {
        failed(status, err);
      }
    });
  }
})();
`;

/** Named by its hash, like the stylesheet: cached for a year, and a change is a new URL. */
export const CONSOLE_JS_PATH = `/scripts/console-${fnv1a(CONSOLE_JS)}.js`;
