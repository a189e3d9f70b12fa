import { describe, expect, it } from "vitest";
import { cleanFilename, contentDisposition, servedContentType, storedContentType } from "../../src/lib/filenames";

describe("cleanFilename", () => {
  it.each([
    ["poc.txt", "poc.txt"],
    ["  report final.pdf  ", "report final.pdf"],
    ["../../etc/passwd", "passwd"],
    ["C:\\Users\\me\\poc.txt", "poc.txt"],
    ["a\u0000b\u001fc\u007fd\u0085e.txt", "abcde.txt"],
    ["invoice\u202Etxt.exe", "invoicetxt.exe"],
    ["zero\u200Bwidth.png", "zerowidth.png"],
    ["e\u0301.txt", "\u00e9.txt"],
    ["日本語.txt", "日本語.txt"],
    ["x".repeat(255), "x".repeat(255)],
    ["😀".repeat(255), "😀".repeat(255)],
  ])("%j is kept as %j", (raw, kept) => {
    expect(cleanFilename(raw)).toBe(kept);
  });

  it.each(["", "   ", "/", "dir/", "..", "a/..", ".", "\u0000\u0001", "x".repeat(256), "😀".repeat(256)])("%j is refused", (raw) => {
    expect(cleanFilename(raw)).toBeNull();
  });
});

describe("content types", () => {
  it.each([
    [undefined, "application/octet-stream"],
    ["IMAGE/PNG", "image/png"],
    // UTF-8 or no charset at all: another (utf-7 above all) could make a browser read text as markup.
    ["text/plain; charset=ISO-8859-1", "text/plain"],
    ["text/plain; charset=utf-7", "text/plain"],
    ["text/plain; charset=UTF-8", "text/plain; charset=utf-8"],
    ['text/plain; charset="utf-8"', "text/plain; charset=utf-8"],
    ["application/json; charset=utf-8", "application/json"],
    ["not a type", "application/octet-stream"],
    ['text/html; charset="><script>', "text/html"],
  ])("the upload's %j is kept as %j", (header, kept) => {
    expect(storedContentType(header)).toBe(kept);
  });

  it.each([
    ["text/plain", "text/plain; charset=utf-8"],
    // Rows kept before only UTF-8 was stored are served as UTF-8 too.
    ["text/plain; charset=iso-8859-1", "text/plain; charset=utf-8"],
    ["text/plain; charset=utf-7", "text/plain; charset=utf-8"],
    ["text/csv", "text/csv; charset=utf-8"],
    ["image/jpeg", "image/jpeg"],
    ["application/pdf", "application/pdf"],
    ["application/zip", "application/zip"],
    ["video/mp4", "video/mp4"],
    ["text/html", "application/octet-stream"],
    ["text/html; charset=utf-8", "application/octet-stream"],
    ["image/svg+xml", "application/octet-stream"],
    ["application/xhtml+xml", "application/octet-stream"],
    ["text/xml", "application/octet-stream"],
    ["application/xml", "application/octet-stream"],
    ["text/javascript", "application/octet-stream"],
    ["application/x-shockwave-flash", "application/octet-stream"],
    ["multipart/x-mixed-replace", "application/octet-stream"],
  ])("a file stored as %s is served as %s", (stored, served) => {
    expect(servedContentType(stored)).toBe(served);
  });
});

describe("contentDisposition", () => {
  it("always says attachment, with an ASCII fallback and the UTF-8 name (RFC 5987)", () => {
    expect(contentDisposition("poc.txt")).toBe(`attachment; filename="poc.txt"; filename*=UTF-8''poc.txt`);
    expect(contentDisposition('a "b"\\c%.txt')).toBe(`attachment; filename="a _b__c_.txt"; filename*=UTF-8''a%20%22b%22%5Cc%25.txt`);
    expect(contentDisposition("naïve (1)'*.png")).toBe(
      `attachment; filename="na_ve (1)'*.png"; filename*=UTF-8''na%C3%AFve%20%281%29%27%2A.png`,
    );
  });
});
