import { describe, expect, it } from "vitest";
import { isAcceptedMediaType, JSON_MEDIA_TYPE, JSONAPI_MEDIA_TYPE } from "../../src/http/media-type";
import { api } from "../helpers/api";

describe("isAcceptedMediaType", () => {
  it.each([
    "application/json",
    "application/json; charset=utf-8",
    "application/json;charset=UTF-8",
    "application/json; charset=utf-8; foo=bar",
    "APPLICATION/JSON",
    "Application/Json; Charset=utf-8",
    "application/vnd.api+json",
    "application/vnd.api+json;",
    "APPLICATION/VND.API+JSON",
    'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"',
    "application/vnd.api+json;ext=https://jsonapi.org/ext/atomic",
    'application/vnd.api+json; profile="https://example.com/profile"',
    "application/vnd.api+json; EXT=x",
    "application/vnd.api+json; ext=x; profile=y",
    "  application/json  ",
  ])("accepts %j", (header) => {
    expect(isAcceptedMediaType(header)).toBe(true);
  });

  it.each([
    "",
    " ",
    ";",
    "text/plain",
    "text/json",
    "application/xml",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/jsonx",
    "application/json+xml",
    "application/vnd.api+json; charset=utf-8",
    "application/vnd.api+json; ext=x; charset=utf-8",
    "application/vnd.api+json; foo=bar",
    "application/vnd.api+json; ext",
    "application/vnd.api+json; extension=x",
    "application/vnd.api+json; profiles=x",
    "application/vnd.api",
    "application/*",
    "*/*",
  ])("rejects %j", (header) => {
    expect(isAcceptedMediaType(header)).toBe(false);
  });
});

// Each route declares the media type of its answers; its errors (a 401, a 404, a 422) follow it.
describe("the media type of a route's answers and errors", () => {
  it("uses the expected constants", () => {
    expect(JSON_MEDIA_TYPE).toBe("application/json");
    expect(JSONAPI_MEDIA_TYPE).toBe("application/vnd.api+json");
  });

  it.each([
    ["GET", "/v1/vulns"],
    ["GET", "/v1/vulns/"],
    ["GET", "/v1/vulns/abc"],
    ["GET", "/v1/vulns/abc/relationships/assets"],
    ["POST", "/v1/p/briefs/ABCD-EFGH/vulns"],
  ])("%s %s answers application/json", async (method, path) => {
    const res = await api(method, path, { key: null, body: method === "POST" ? {} : undefined });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.headers.get("content-type")).toBe("application/json");
  });

  it.each([
    ["GET", "/v1/policies"],
    ["GET", "/v1/policies/abc"],
    ["GET", "/v1/p/briefs/ABCD-EFGH"],
    ["GET", "/v1/p/briefs/ABCD-EFGH/vulns/abc"],
    ["GET", "/v1/p/briefs/ABCD-EFGH/vulnsX"],
    ["GET", "/v1/p/briefs//vulns"],
    // No route has this path (the submission's has no trailing slash): a 404 like any unknown path.
    ["POST", "/v1/p/briefs/ABCD-EFGH/vulns/"],
    ["GET", "/v1/vulnsX"],
    ["GET", "/v1/vuln"],
    ["GET", "/v2/vulns"],
    ["GET", "/vulns"],
    ["GET", "/v1/briefs/abc/vulns"],
  ])("%s %s answers application/vnd.api+json", async (method, path) => {
    const res = await api(method, path, { key: null, body: method === "POST" ? {} : undefined });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.headers.get("content-type")).toBe("application/vnd.api+json");
  });
});
