import { cors } from "hono/cors";
import { createRouter } from "../../http/router";
import { publicBriefsRouter } from "./briefs";
import { publicDirectoriesRouter } from "./directories";
import { reportRouter } from "./reporter-api";
import { publicVulnsRouter } from "./vulns";

/** The routes under /v1/p: no key, CORS open to any origin (and only here). */
export const publicRouter = createRouter({ public: true });
publicRouter.use(
  "*",
  cors({
    origin: "*",
    allowMethods: ["GET", "HEAD", "POST", "OPTIONS"],
    exposeHeaders: ["ETag", "X-Cache", "X-Request-Id", "Retry-After"],
    maxAge: 86400,
  }),
);
publicRouter.route("/", publicBriefsRouter);
publicRouter.route("/", publicVulnsRouter);
publicRouter.route("/", publicDirectoriesRouter);
publicRouter.route("/report", reportRouter);
