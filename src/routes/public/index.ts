import { createRouter } from "../../http/router";
import { advisoryName, routeBy, shortcodeName } from "../../http/shard-lookup";
import { publicAdvisoriesRouter } from "./advisories";
import { publicBriefsRouter } from "./briefs";
import { publicChallengeRouter } from "./challenge";
import { publicDirectoriesRouter } from "./directories";
import { publicPoliciesRouter } from "./policies";
import { reportRouter } from "./reporter-api";
import { publicVulnsRouter } from "./vulns";

/** The routes under /v1/p: no key, CORS open to any origin (set by the app, before anything can refuse). */
export const publicRouter = createRouter({ public: true });
// In a sharded deployment these routes read their organization's shard, found by what their path names:
// a brief's or a policy's shortcode (read as heard, as the routes read it), an advisory's id.
const byBrief = routeBy((c) => shortcodeName("brief", c.req.param("shortcode")));
publicRouter.use("/briefs/:shortcode", byBrief);
publicRouter.use("/briefs/:shortcode/*", byBrief);
publicRouter.use(
  "/policies/:shortcode/*",
  routeBy((c) => shortcodeName("policy", c.req.param("shortcode"))),
);
const byAdvisory = routeBy((c) => advisoryName(c.req.param("id")));
publicRouter.use("/advisories/:id", byAdvisory);
publicRouter.use("/advisories/:id/*", byAdvisory);
publicRouter.route("/", publicBriefsRouter);
publicRouter.route("/", publicVulnsRouter);
publicRouter.route("/", publicChallengeRouter);
publicRouter.route("/", publicDirectoriesRouter);
publicRouter.route("/", publicPoliciesRouter);
publicRouter.route("/", publicAdvisoriesRouter);
publicRouter.route("/report", reportRouter);
