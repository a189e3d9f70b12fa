import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { publicCors } from "../../src/http/middleware";
import { declare, type RouteFacts, routeFacts, routesOf } from "../../src/http/route-facts";

// The app-wide middleware reads what the answering route declares, before any route has run.
function app() {
  const seen: RouteFacts[] = [];
  const root = new Hono();
  root.use("*", async (c, next) => {
    seen.push(routeFacts(c));
    await next();
  });
  const uploads = new Hono();
  uploads.use("*", declare({ mediaType: "application/json" }));
  uploads.get("/", (c) => c.text("list"));
  uploads.post("/:id/files", declare({ rawUpload: { maxBytes: 10 } }), (c) => c.text("stored"));
  uploads.get("/:id", declare({ public: true }), (c) => c.text("one"));
  // Registered after /:id for the same path: never reached, so its declaration must not count.
  uploads.get("/:id", declare({ mediaType: "application/vnd.api+json", rawUpload: { maxBytes: 1 } }), (c) => c.text("never"));
  root.route("/uploads", uploads);
  root.get("/other", (c) => c.text("other"));
  return { root, seen };
}

describe("routeFacts", () => {
  it.each([
    ["GET", "/uploads", { mediaType: "application/json" }],
    ["POST", "/uploads/1/files", { mediaType: "application/json", rawUpload: { maxBytes: 10 } }],
    ["GET", "/uploads/1", { mediaType: "application/json", public: true }],
    // No route of the sub-app matches: its own declaration still holds (its 404 answers in its media type).
    ["GET", "/uploads/1/nothing/here", { mediaType: "application/json" }],
    ["GET", "/other", {}],
    ["GET", "/nowhere", {}],
  ] as const)("%s %s reads %j", async (method, path, expected) => {
    const { root, seen } = app();
    await root.request(path, { method });
    expect(seen).toEqual([expected]);
  });

  it("is passed through by the declaration itself", async () => {
    const { root } = app();
    const res = await root.request("/uploads/1");
    expect(await res.text()).toBe("one");
  });
});

// CORS follows what the answering route declares, with no list of paths: a router mounted at the root
// declares per route, one mounted at a prefix for all of it, and a preflight (which matches no route of
// its own) is answered as the request it announces would be.
describe("publicCors, from the routes' facts", () => {
  function corsApp() {
    const root = new Hono();
    root.use("*", publicCors({ lookUp: routesOf(root) }));
    const atRoot = new Hono();
    atRoot.get("/index", declare({ public: true }), (c) => c.text("index"));
    atRoot.get("/page", (c) => c.text("page"));
    const open = new Hono();
    open.use("*", declare({ public: true }));
    open.get("/things/:id", (c) => c.text("thing"));
    const token = new Hono();
    token.get("/mine", declare({ cors: true }), (c) => c.text("mine"));
    const keyed = new Hono();
    keyed.get("/", (c) => c.text("secret"));
    keyed.patch("/:id", (c) => c.text("changed"));
    root.route("/", atRoot);
    root.route("/open", open);
    root.route("/token", token);
    root.route("/keyed", keyed);
    return root;
  }
  const origin = "https://example.org";

  it.each([
    ["/index", "*"],
    ["/open/things/1", "*"],
    ["/open/unknown", "*"],
    ["/token/mine", "*"],
    ["/page", null],
    ["/keyed", null],
  ] as const)("GET %s: Access-Control-Allow-Origin %s", async (path, allowed) => {
    const res = await corsApp().request(path, { headers: { Origin: origin } });
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe(allowed);
  });

  it.each([
    ["/index", "GET", "*"],
    ["/index", "HEAD", "*"],
    ["/open/things/1", "POST", "*"],
    ["/token/mine", "GET", "*"],
    ["/page", "GET", null],
    ["/keyed", "GET", null],
    ["/keyed/1", "PATCH", null],
    // Another method than the public route's at its path is not what it declared.
    ["/index", "DELETE", null],
  ] as const)("a preflight of %s %s: Access-Control-Allow-Origin %s", async (path, method, allowed) => {
    const res = await corsApp().request(path, {
      method: "OPTIONS",
      headers: { Origin: origin, "Access-Control-Request-Method": method },
    });
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe(allowed);
    if (allowed) expect(res.status).toBe(204);
  });
});
