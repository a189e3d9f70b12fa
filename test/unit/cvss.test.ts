import { describe, expect, it } from "vitest";
import { rateCvss, severityOf } from "../../src/lib/cvss";

// Scores from FIRST's published examples: the CVSS v3.1 and v3.0 specification documents' worked
// examples (phpMyAdmin CVE-2013-1937, MySQL CVE-2013-0375, Heartbleed CVE-2014-0160, Shellshock
// CVE-2014-6271, VMware CVE-2012-1516, Apple iWork CVE-2015-1098) and the CVSS v4.0 examples.
describe("rateCvss scores FIRST's examples", () => {
  it.each([
    ["CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N", "3.1", 6.1],
    ["CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:C/C:L/I:L/A:N", "3.1", 6.4],
    ["CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N", "3.1", 7.5],
    ["CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", "3.1", 9.8],
    ["CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:C/C:H/I:H/A:H", "3.1", 9.9],
    ["CVSS:3.0/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N", "3.0", 6.1],
    ["CVSS:3.0/AV:L/AC:L/PR:N/UI:R/S:U/C:H/I:H/A:H", "3.0", 7.8],
    ["CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N", "4.0", 9.3],
    ["CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:H/SI:H/SA:H", "4.0", 10],
    ["CVSS:4.0/AV:L/AC:L/AT:N/PR:L/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N", "4.0", 8.5],
    ["CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:N/VI:N/VA:N/SC:N/SI:N/SA:N", "4.0", 0],
  ])("%s is %s, %s", (vector, version, score) => {
    expect(rateCvss(vector)).toEqual({ ok: true, rating: { vector, version, score } });
  });

  it("keeps the vector as given, without a trailing slash", () => {
    const rated = rateCvss(" CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/ ");
    expect(rated.ok && rated.rating.vector).toBe("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H");
  });
});

describe("rateCvss refuses what the library would score anyway", () => {
  it.each([
    ["not a vector", "high", /must be a CVSS 3.0, 3.1 or 4.0 vector/],
    ["CVSS 2.0", "AV:N/AC:L/Au:N/C:P/I:P/A:P", /must be a CVSS/],
    ["a lower-case prefix", "cvss:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", /must be a CVSS/],
    ["a missing base metric", "CVSS:3.1/AV:N/AC:L", /lacks the base metrics PR, UI, S, C, I, A/],
    ["a base metric not defined", "CVSS:3.1/AV:X/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", /lacks the base metric AV/],
    ["a repeated metric", "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/A:L", /names the metric A twice/],
    ["an unknown value", "CVSS:3.1/AV:Q/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", /not valid CVSS 3.1/],
    ["an unknown metric", "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/ZZ:1", /not valid CVSS 3.1/],
    ["a 3.1 metric in a 4.0 vector", "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N/S:U", /not valid CVSS 4.0/],
    ["a malformed part", "CVSS:3.1/AV:N//AC:L", /malformed metric/],
  ])("%s", (_case, vector, reason) => {
    const rated = rateCvss(vector);
    expect(rated.ok).toBe(false);
    expect(!rated.ok && rated.reason).toMatch(reason);
  });
});

describe("severityOf: FIRST's qualitative rating", () => {
  it.each([
    [0, "none"], [0.1, "low"], [3.9, "low"], [4, "medium"], [6.9, "medium"], [7, "high"], [8.9, "high"], [9, "critical"], [10, "critical"],
  ])("%s is %s", (score, severity) => {
    expect(severityOf(score)).toBe(severity);
  });
});
