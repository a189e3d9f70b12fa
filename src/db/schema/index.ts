export * from "./api-keys";
export * from "./assets";
export * from "./briefs";
export * from "./organizations";
export * from "./policies";
export * from "./events";
export * from "./idempotency-keys";
export * from "./vulns";
