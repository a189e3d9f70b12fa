import { createRouter } from "../../http/router";
import { routeBy } from "../../http/shard-lookup";
import { publicAdvisoriesRouter } from "./advisories";
import { publicBriefsRouter } from "./briefs";
import { publicChallengeRouter } from "./challenge";
import { publicDirectoriesRouter } from "./directories";
import { publicPoliciesRouter } from "./policies";
import { reportRouter } from "./reporter-api";
import { publicVulnsRouter } from "./vulns";

/** The routes under /v1/p: no key, CORS open to any origin (set by the app, before anything can refuse). */
export const publicRouter = createRouter({ public: true });
// In a sharded deployment a brief's routes read its organization's shard, found by the brief's shortcode.
const byBrief = routeBy((c) => ({ kind: "brief", name: c.req.param("shortcode") ?? "" }));
publicRouter.use("/briefs/:shortcode", byBrief);
publicRouter.use("/briefs/:shortcode/*", byBrief);
publicRouter.route("/", publicBriefsRouter);
publicRouter.route("/", publicVulnsRouter);
publicRouter.route("/", publicChallengeRouter);
publicRouter.route("/", publicDirectoriesRouter);
publicRouter.route("/", publicPoliciesRouter);
publicRouter.route("/", publicAdvisoriesRouter);
publicRouter.route("/report", reportRouter);
