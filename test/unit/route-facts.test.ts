import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { declare, type RouteFacts, routeFacts } from "../../src/http/route-facts";

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
