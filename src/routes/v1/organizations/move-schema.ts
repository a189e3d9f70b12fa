import { z } from "@hono/zod-openapi";
import { type ShardMoveRow, SHARD_MOVE_STEPS } from "../../../db/schema";
import { resource, toOne } from "../../../http/jsonapi";
import { resourceSchema, Timestamp, toOneSchema, updateDocument } from "../../../http/openapi/documents";
import { MOVE_TIMING } from "../../../services/shard-moves";

const ShardName = z
  .string()
  .max(20)
  .regex(/^TENANT_[1-9][0-9]{0,3}$/)
  .openapi({ example: "TENANT_2", description: "A tenant database's binding name." });

/** The organization a move route names: its id, or its slug. */
export const MoveParam = z.object({
  id: z
    .string()
    .max(64)
    .openapi({ param: { name: "id", in: "path" }, description: "The organization's id, or its slug.", example: "acme-security" }),
});

const Counts = z
  .record(z.string().max(64), z.object({ from: z.number().int().min(0), to: z.number().int().min(0) }))
  .openapi({ description: "The organization's rows in each table, in the database it leaves and the one it goes to, as last counted." });

const OrganizationMoveAttributes = z.object({
  from: ShardName,
  to: ShardName,
  step: z.enum(SHARD_MOVE_STEPS).openapi({
    description:
      "fencing (writes answer 503; the cached lookups made before wait out their minute), settling (the organization's queue work " +
      "finishes, then its rows are fenced in the old database), copying, verifying (counts compared), switching, switched, draining " +
      "(the lookups that still lead to the old database expire), deleting (the old rows), done; or rolling_back, rolled_back.",
  }),
  table: z.string().max(64).nullable().openapi({ description: "The table the step works on (copying, deleting, rolling back)." }),
  counts: Counts.nullable(),
  note: z.string().max(2000).nullable().openapi({ description: "What the move waits for, or why it rolled back." }),
  waiting_until: Timestamp.nullable().openapi({
    description: "When a step that waits out cached lookups may go on; advancing earlier changes nothing.",
  }),
  started_at: Timestamp,
  fenced_at: Timestamp.nullable(),
  switched_at: Timestamp.nullable(),
  finished_at: Timestamp.nullable(),
  updated_at: Timestamp,
});

export const OrganizationMove = resourceSchema(
  "OrganizationMove",
  "organization_move",
  OrganizationMoveAttributes,
  z.object({ organization: toOneSchema("organization") }),
);

// With `data.id` (the move the first call answered) the call only advances that move, and answers it as it
// ended if it has: a command that resumes never starts a second move by mistake.
export const MoveOrganizationInput = updateDocument(
  "organization_move",
  z.strictObject({ to: ShardName.openapi({ description: "The tenant database to move the organization to." }) }),
  z.strictObject({}).optional(),
).openapi("MoveOrganizationInput");

function waitingUntil(move: ShardMoveRow): string | null {
  const since = move.step === "fencing" ? move.fencedAt : move.step === "draining" ? move.switchedAt : null;
  return since ? new Date(Date.parse(since) + MOVE_TIMING.lookupsExpireMs).toISOString() : null;
}

export function serializeMove(move: ShardMoveRow) {
  return resource(
    "organization_move",
    move.id,
    {
      from: move.fromShard,
      to: move.toShard,
      step: move.step,
      table: move.tableName,
      counts: move.counts,
      note: move.note,
      waiting_until: waitingUntil(move),
      started_at: move.startedAt,
      fenced_at: move.fencedAt,
      switched_at: move.switchedAt,
      finished_at: move.finishedAt,
      updated_at: move.updatedAt,
    },
    `/v1/organizations/${move.organizationId}/move`,
    { organization: toOne("organization", move.organizationId) },
  );
}
