import { describe, expect, it } from "vitest";
import { isAcceptedMediaType, JSON_MEDIA_TYPE, JSONAPI_MEDIA_TYPE, responseMediaType } from "../../src/http/media-type";

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
    "application/vnd.api+json; ext=\"https://jsonapi.org/ext/atomic\"",
    "application/vnd.api+json;ext=https://jsonapi.org/ext/atomic",
    "application/vnd.api+json; profile=\"https://example.com/profile\"",
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

describe("responseMediaType", () => {
  it("uses the expected constants", () => {
    expect(JSON_MEDIA_TYPE).toBe("application/json");
    expect(JSONAPI_MEDIA_TYPE).toBe("application/vnd.api+json");
  });

  it.each([
    "/v1/vulns",
    "/v1/vulns/",
    "/v1/vulns/abc",
    "/v1/vulns/abc/relationships/assets",
    "/v1/p/briefs/ABCD-EFGH/vulns",
    "/v1/p/briefs/ABCD-EFGH/vulns/",
  ])("%s answers application/json", (path) => {
    expect(responseMediaType(path)).toBe("application/json");
  });

  it.each([
    "/v1/policies",
    "/v1/policies/abc",
    "/v1/p/briefs/ABCD-EFGH",
    "/v1/p/briefs/ABCD-EFGH/vulns/abc",
    "/v1/p/briefs/ABCD-EFGH/vulnsX",
    "/v1/p/briefs//vulns",
    "/v1/vulnsX",
    "/v1/vuln",
    "/v2/vulns",
    "/vulns",
    "/v1/briefs/abc/vulns",
    "/",
    "",
  ])("%j answers application/vnd.api+json", (path) => {
    expect(responseMediaType(path)).toBe("application/vnd.api+json");
  });
});
