import { describe, expect, it } from "vitest";
import { ApiError, asApiError, ERROR_CODES, memberPointer } from "../../src/http/errors";
import {
  attribute,
  BadInput,
  Conflict,
  DomainError,
  Forbidden,
  Invalid,
  KeyReused,
  NotFound,
  relationship,
  resource,
  TooLarge,
  Unavailable,
  Unprocessable,
} from "../../src/lib/domain-errors";

const slugTaken = Invalid.at(attribute("slug"), "slug is taken.");

// Services refuse in their own words; the HTTP layer alone decides the status, code and headers.
describe("a service's refusal as the API's error", () => {
  it.each([
    [new NotFound("vuln", "No vuln has that id."), "vuln_not_found"],
    [new NotFound("brief", "No brief has that id."), "brief_not_found"],
    [new NotFound("webhook", "No webhook has that id."), "not_found"],
    [slugTaken, "validation_error"],
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
      ...(refusal === slugTaken ? { source: { pointer: "/data/attributes/slug" } } : {}),
      ...(refusal.problems[0]!.source && !("member" in refusal.problems[0]!.source) ? { source: refusal.problems[0]!.source } : {}),
    });
  });

  it("keeps every problem, each with its own pointer", () => {
    const refusal = new Invalid([
      { detail: "a is wrong.", source: { member: attribute("a") } },
      { detail: "b is wrong.", source: { member: attribute("b") } },
    ]);
    expect(
      asApiError(refusal)!
        .toDocument("req")
        .errors.map((e) => e.source),
    ).toEqual([{ pointer: "/data/attributes/a" }, { pointer: "/data/attributes/b" }]);
  });

  it("says the member in the detail as the API names it, where the rule wrote {member}", () => {
    const refusal = new Conflict("The vuln at {member} changed.", { member: resource({ item: 1 }) });
    expect(asApiError(refusal)!.toDocument("req").errors[0]).toMatchObject({
      detail: "The vuln at /data/1 changed.",
      source: { pointer: "/data/1" },
    });
  });

  // The rules name members; the API alone writes them as JSON pointers into its documents.
  it.each([
    [attribute("slug"), "/data/attributes/slug"],
    [attribute("credits.2.reporter_of"), "/data/attributes/credits/2/reporter_of"],
    [attribute("state", 3), "/data/3/attributes/state"],
    [relationship("policy"), "/data/relationships/policy/data/id"],
    [relationship("assets", { entry: 4 }), "/data/relationships/assets/data/4/id"],
    [relationship("organization", { whole: true }), "/data/relationships/organization"],
    [relationship("brief", { item: 1 }), "/data/1/relationships/brief/data/id"],
    [resource(), "/data"],
    [resource({ id: true }), "/data/id"],
    [resource({ id: true, item: 5 }), "/data/5/id"],
  ] as const)("%o is %s", (member, pointer) => {
    expect(memberPointer(member)).toBe(pointer);
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

describe("an error document", () => {
  it("lists each problem once (JSON:API: errors are unique), counting the omitted after", () => {
    const same = { detail: "x: must be a color like #1a2b3c", source: { pointer: "/data/attributes/x" } };
    const other = { detail: "y: must not be empty", source: { pointer: "/data/attributes/y" } };
    const doc = new ApiError("validation_error", [same, { ...same }, other, same]).toDocument("r");
    expect(doc.errors.map((e) => e.source && "pointer" in e.source && e.source.pointer)).toEqual([
      "/data/attributes/x",
      "/data/attributes/y",
    ]);
    expect(doc.meta).toBeUndefined();
    const many = Array.from({ length: 30 }, (_, i) => ({ detail: `member ${i % 27}`, source: { pointer: `/${i % 27}` } }));
    expect(new ApiError("validation_error", many).toDocument("r").meta).toEqual({ errors_omitted: 2 });
  });
});
