export { createVuln } from "./create";
export { deleteVuln } from "./delete";
export { closeUnansweredInfoRequests, INFO_REQUEST_DAYS, returnFromInfoRequest } from "./info-requests";
export { alertView, nextVuln, type VulnChangeEvent, type VulnDecision } from "./next";
export { domainsColumn, showVuln, toRecord, vulnIdOf } from "./read";
export type { VulnInput, VulnRecord, VulnUpdate } from "./types";
export { touchVulns, updateVuln, updateVulns } from "./update";
