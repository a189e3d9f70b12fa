import { describe, expect, it } from "vitest";
import { ApiError, asApiError, ERROR_CODES } from "../../src/http/errors";
import {
  BadInput,
  Conflict,
  DomainError,
  Forbidden,
  Invalid,
  KeyReused,
  NotFound,
  TooLarge,
  Unavailable,
  Unprocessable,
} from "../../src/lib/domain-errors";

// Services refuse in their own words; the HTTP layer alone decides the status, code and headers.
describe("a service's refusal as the API's error", () => {
  it.each([
    [new NotFound("vuln", "No vuln has that id."), "vuln_not_found"],
    [new NotFound("brief", "No brief has that id."), "brief_not_found"],
    [new NotFound("webhook", "No webhook has that id."), "not_found"],
    [Invalid.at("/data/attributes/slug", "slug is taken."), "validation_error"],
    [new Unprocessable({ detail: "Not listed." }), "unprocessable_entity"],
    [new Conflict("Lost a race."), "conflict"],
    [new Forbidden("Operators may not."), "forbidden"],
    [new TooLarge("Too big."), "payload_too_large"],
    [new Unavailable("Storage is down."), "service_unavailable"],
    [new BadInput("Bad cursor.", { parameter: "page[after]" }), "bad_request"],
    [new KeyReused("Another body.", { header: "Idempotency-Key" }), "idempotency_key_reused"],
  ] as const)("%o answers %s", (refusal, code) => {
    const api = asApiError(refusal)!;
    expect(api).toBeInstanceOf(ApiError);
    expect(api.code).toBe(code);
    expect(api.status).toBe(ERROR_CODES[code].status);
    expect(api.toDocument("req").errors[0]).toMatchObject({
      code,
      detail: refusal.message,
      ...(refusal.problems[0]!.source ? { source: refusal.problems[0]!.source } : {}),
    });
  });

  it("keeps every problem, each with its own pointer", () => {
    const refusal = new Invalid([
      { detail: "a is wrong.", source: { pointer: "/data/attributes/a" } },
      { detail: "b is wrong.", source: { pointer: "/data/attributes/b" } },
    ]);
    expect(
      asApiError(refusal)!
        .toDocument("req")
        .errors.map((e) => e.source),
    ).toEqual([{ pointer: "/data/attributes/a" }, { pointer: "/data/attributes/b" }]);
  });

  it("tells the client when to retry an unavailable store", () => {
    expect(asApiError(new Unavailable("Down.", 7))!.headers).toEqual({ "Retry-After": "7" });
    expect(asApiError(new Conflict("Lost."))!.headers).toEqual({});
  });

  it("leaves anything else to the generic 500", () => {
    expect(asApiError(new Error("boom"))).toBeUndefined();
    expect(asApiError("text")).toBeUndefined();
    expect(new NotFound("vuln", "x")).toBeInstanceOf(DomainError);
  });
});
