import { actsForOrganization } from "../lib/caller";
import { and, count, eq, getTableColumns } from "drizzle-orm";
import { webhookAttempts, webhookDeliveries, webhooks, webhookSubscriptions, type WebhookDeliveryRow, type WebhookRow } from "../db/schema";
import { publishDeliveries } from "../lib/queue";
import { EVENT_TYPES } from "../events/types";
import { nowIso, uuidv7 } from "../lib/ids";
import { isPlainSecret, sealWebhookSecret, webhookKeyring } from "../webhooks/secrets";
import { generateWebhookSecret } from "../webhooks/signing";
import { newDelivery } from "../webhooks/fanout";
import { readersOf, tenantFilter, type ServiceContext } from "./context";
import { batchOf, where, subquery } from "../db/queries";
import { listPage, ordering, pageStatements, type ListQuery } from "./list-pages";
import { commit, Plan, readBatch } from "./unit-of-work";
import { sentMembers } from "./audit";
import { Forbidden, Invalid, NotFound, relationship, resource, type Problem } from "../lib/domain-errors";
import { LIMITS } from "../lib/limits";
import { mayChange } from "./access";

export const PREVIOUS_SECRET_GRACE_MS = 24 * 3600 * 1000;

export interface WebhookInput {
  name?: string;
  short_description?: string | null;
  url?: string;
  enabled?: boolean;
}

/**
 * A webhook with the short names of the event types it subscribes to. Never its stored secrets: only
 * the signer reads those, and only create and rotate_secret return the new secret (WithSecret).
 */
export type WebhookRecord = Omit<WebhookRow, "secret" | "previousSecret" | "previousSecretExpiresAt"> & { eventTypes: string[] };
type WithSecret = WebhookRecord & { secret: string };

const notFound = () => new NotFound("webhook", "No webhook has that id.");

const eventTypesColumn = {
  eventTypesJson: subquery<string>`(select json_group_array(${webhookSubscriptions.eventType}) from ${webhookSubscriptions} where
    ${webhookSubscriptions.webhookId} = ${webhooks.id})`,
};

function toRecord(row: WebhookRow & { eventTypesJson: string }): WebhookRecord {
  const { eventTypesJson, secret: _secret, previousSecret: _previous, previousSecretExpiresAt: _expires, ...webhook } = row;
  return { ...webhook, eventTypes: JSON.parse(eventTypesJson) as string[] };
}

/** Event type ids (from GET /v1/webhook_event_types) to short names; unknown ids are 422 at their entry of the relationship. */
export function eventTypesFromIds(ids: string[]): string[] {
  const problems: Problem[] = [];
  const names = ids.flatMap((id, i) => {
    const type = EVENT_TYPES.find((t) => t.id === id);
    if (!type)
      problems.push({
        detail: "trigger_event_type does not exist.",
        source: { member: relationship("trigger_event_types", { entry: i }) },
      });
    return type ? [type.short_name] : [];
  });
  if (problems.length) throw new Invalid(problems);
  return [...new Set(names)];
}

export async function listWebhooks(ctx: ServiceContext, { page, sort, ...filters }: ListQuery & { enabled?: boolean }) {
  const filter = where(
    tenantFilter(ctx, webhooks.organizationId),
    filters.enabled === undefined ? undefined : eq(webhooks.enabled, filters.enabled),
  );
  const { rows, total } = await listPage(readersOf(ctx), webhooks, { filter, sort, page, extraColumns: eventTypesColumn });
  return { rows: rows.map(toRecord), total };
}

function selectWebhook(ctx: ServiceContext, id: string) {
  return ctx.db
    .select({ ...getTableColumns(webhooks), ...eventTypesColumn })
    .from(webhooks)
    .where(where(eq(webhooks.id, id), tenantFilter(ctx, webhooks.organizationId)));
}

export async function getWebhook(ctx: ServiceContext, id: string): Promise<WebhookRecord> {
  const row = await selectWebhook(ctx, id).get();
  if (!row) throw notFound();
  return toRecord(row);
}

function subscriptionStatements(
  ctx: ServiceContext,
  webhookId: string,
  { eventTypes, replace }: { eventTypes: string[]; replace: boolean },
) {
  return [
    ...(replace ? [ctx.db.delete(webhookSubscriptions).where(eq(webhookSubscriptions.webhookId, webhookId))] : []),
    ...(eventTypes.length ? [ctx.db.insert(webhookSubscriptions).values(eventTypes.map((eventType) => ({ webhookId, eventType })))] : []),
  ];
}

function limitGuard<T>(write: () => Promise<T>): Promise<T> {
  return write().catch((err) => {
    if (/webhook limit reached/.test(`${(err as Error)?.message} ${String((err as { cause?: unknown })?.cause ?? "")}`)) {
      throw Invalid.at(resource(), `An organization has at most ${LIMITS.webhooksPerOrganization} webhooks; delete one first.`);
    }
    throw err;
  });
}

export async function createWebhook(
  ctx: ServiceContext,
  input: WebhookInput & { name: string; url: string },
  links: { organizationId?: string; eventTypes: string[] },
): Promise<WithSecret> {
  mayChange(ctx, "settings");
  // Only an organization's own key writes its webhooks (the routes answer operators 403 before this);
  // naming another organization is a 422, as naming one that does not exist.
  if (!actsForOrganization(ctx.caller))
    throw new Forbidden("Operator keys read webhooks but never change them; use the organization's key.");
  const organizationId = ctx.caller.organizationId!;
  if (links.organizationId !== undefined && links.organizationId !== organizationId)
    throw Invalid.at(relationship("organization"), "organization does not exist.");
  const now = nowIso();
  const id = uuidv7();
  const secret = generateWebhookSecret();
  const row: WebhookRow = {
    id,
    organizationId,
    name: input.name,
    shortDescription: input.short_description ?? null,
    url: input.url,
    enabled: input.enabled ?? true,
    disabledReason: null,
    secret: await sealWebhookSecret(id, secret),
    previousSecret: null,
    previousSecretExpiresAt: null,
    consecutiveFailures: 0,
    createdAt: now,
    updatedAt: now,
  };
  const { secret: _sealed, previousSecret: _previous, previousSecretExpiresAt: _expires, ...rest } = row;
  const record: WebhookRecord = { ...rest, eventTypes: links.eventTypes };
  const p = new Plan(record)
    .add(ctx.db.insert(webhooks).values(row))
    .audits({ action: "webhook.create", target: { type: "webhook", id }, organizationId });
  for (const s of subscriptionStatements(ctx, row.id, { eventTypes: links.eventTypes, replace: false })) p.add(s);
  await limitGuard(() => commit(ctx, p, ctx.respond));
  return { ...record, secret };
}

/** Updates a webhook. `enabled: true` turns a disabled one back on and clears its failure count. */
export async function updateWebhook(
  ctx: ServiceContext,
  id: string,
  { input, eventTypes }: { input: WebhookInput; eventTypes: string[] | undefined },
): Promise<WebhookRecord> {
  mayChange(ctx, "settings");
  const [rows] = await readBatch(ctx, [selectWebhook(ctx, id)]);
  const existing = rows[0] ? toRecord(rows[0]) : null;
  if (!existing) throw notFound();
  const changes: Partial<WebhookRow> = { updatedAt: nowIso() };
  if (input.name !== undefined) changes.name = input.name;
  if (input.short_description !== undefined) changes.shortDescription = input.short_description;
  if (input.url !== undefined) changes.url = input.url;
  if (input.enabled !== undefined) {
    changes.enabled = input.enabled;
    if (input.enabled) Object.assign(changes, { disabledReason: null, consecutiveFailures: 0 });
  }
  const next: WebhookRecord = { ...existing, ...changes, eventTypes: eventTypes ?? existing.eventTypes };
  const p = new Plan(next);
  const updated = p.track(
    ctx.db
      .update(webhooks)
      .set(changes)
      .where(and(eq(webhooks.id, id), eq(webhooks.organizationId, existing.organizationId))),
  );
  p.audits(
    {
      action: "webhook.update",
      target: { type: "webhook", id },
      changed: sentMembers({ ...input, trigger_event_types: eventTypes }),
      organizationId: existing.organizationId,
    },
    { ifChanged: updated },
  );
  if (eventTypes) for (const s of subscriptionStatements(ctx, id, { eventTypes, replace: true })) p.add(s);
  await commit(ctx, p);
  return next;
}

export async function deleteWebhook(ctx: ServiceContext, id: string): Promise<void> {
  mayChange(ctx, "settings");
  const p = new Plan(null);
  const deleted = p.track<{ id: string }[]>(
    ctx.db
      .delete(webhooks)
      .where(where(eq(webhooks.id, id), tenantFilter(ctx, webhooks.organizationId)))
      .returning({ id: webhooks.id }),
  );
  const { results } = await commit(ctx, p.audits({ action: "webhook.delete", target: { type: "webhook", id } }, { ifChanged: deleted }));
  if (deleted.of(results).length === 0) throw notFound();
}

/**
 * A new signing secret. The old one keeps signing beside it for 24 hours, so receivers can switch
 * without dropping a delivery. Rotating again inside those 24 hours replaces the new secret and
 * keeps the original signing until its own 24 hours end: the receivers that matter still hold it.
 * With an Idempotency-Key, a retried rotation replays (secret: null) instead of rotating twice.
 *
 * The outgoing secret moves as it is stored (sealed values are bound to the webhook, not the column),
 * so a rotation never has to open it: a secret that no longer opens can still be rotated away. A
 * plain one, from before secrets were sealed, is sealed on the way.
 */
export async function rotateSecret(ctx: ServiceContext, id: string): Promise<WithSecret> {
  mayChange(ctx, "settings");
  const keyring = await webhookKeyring();
  const [rows] = await readBatch(ctx, [selectWebhook(ctx, id)]);
  const row = rows[0];
  if (!row) throw notFound();
  const now = Date.now();
  const nowIso = new Date(now).toISOString();
  const secret = generateWebhookSecret();
  const previousStillSigns = row.previousSecret !== null && row.previousSecretExpiresAt !== null && row.previousSecretExpiresAt > nowIso;
  const outgoing = previousStillSigns ? row.previousSecret! : row.secret;
  const changes = {
    secret: await sealWebhookSecret(id, secret, keyring),
    previousSecret: isPlainSecret(outgoing) ? await sealWebhookSecret(id, outgoing, keyring) : outgoing,
    previousSecretExpiresAt: previousStillSigns ? row.previousSecretExpiresAt : new Date(now + PREVIOUS_SECRET_GRACE_MS).toISOString(),
    updatedAt: nowIso,
  };
  const record: WebhookRecord = { ...toRecord(row), updatedAt: nowIso };
  const p = new Plan(record);
  const rotated = p.track(
    ctx.db
      .update(webhooks)
      .set(changes)
      .where(and(eq(webhooks.id, id), eq(webhooks.organizationId, row.organizationId))),
  );
  // The secret's name only: its value is in no audit row.
  p.audits(
    { action: "webhook.rotate_secret", target: { type: "webhook", id }, changed: ["secret"], organizationId: row.organizationId },
    { ifChanged: rotated },
  );
  await commit(ctx, p, ctx.respond);
  return { ...record, secret };
}

/** Queues a Webhook::Ping: `{"ping":{"webhook_id","sent_at"}}`, delivered even to a disabled webhook. */
export async function ping(ctx: ServiceContext, id: string): Promise<WebhookDeliveryRow> {
  mayChange(ctx, "settings");
  const [rows] = await readBatch(ctx, [selectWebhook(ctx, id)]);
  const webhook = rows[0];
  if (!webhook) throw notFound();
  const now = nowIso();
  const payload = JSON.stringify({ ping: { webhook_id: webhook.id, sent_at: now } });
  const delivery = newDelivery(webhook.id, webhook.organizationId, { id: uuidv7(), type: "Webhook::Ping", payload }, now);
  const p = new Plan(delivery)
    .add(ctx.db.insert(webhookDeliveries).values(delivery))
    .audits({ action: "webhook.ping", target: { type: "webhook", id: webhook.id }, organizationId: webhook.organizationId });
  await commit(ctx, p, ctx.respond);
  ctx.defer(publishDeliveries(ctx.queue, [delivery.id]));
  return delivery;
}

function deliveryFilter(webhookId: string, status?: string) {
  return and(
    eq(webhookDeliveries.webhookId, webhookId),
    status ? eq(webhookDeliveries.status, status as WebhookDeliveryRow["status"]) : undefined,
  );
}

/** One batch: the webhook (a foreign or missing one is a 404), a page of its deliveries, the count. */
export async function listDeliveries(ctx: ServiceContext, webhookId: string, { page, sort, status }: ListQuery & { status?: string }) {
  const filter = deliveryFilter(webhookId, status);
  const list = pageStatements<WebhookDeliveryRow>({
    ordering: ordering(webhookDeliveries, sort),
    page,
    rows: ({ seek, order, limit, offset }) =>
      ctx.db
        .select()
        .from(webhookDeliveries)
        .where(and(filter, seek))
        .orderBy(...order)
        .limit(limit)
        .offset(offset),
    probe: (at) => ctx.db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(and(filter, at)).limit(1),
    total: ctx.db.select({ total: count() }).from(webhookDeliveries).where(filter),
  });
  const [hook, ...results] = await batchOf(ctx.db, [
    ctx.db
      .select({ id: webhooks.id })
      .from(webhooks)
      .where(where(eq(webhooks.id, webhookId), tenantFilter(ctx, webhooks.organizationId))),
    ...list.statements,
  ]);
  if ((hook as unknown[]).length === 0) throw notFound();
  return list.read(results);
}

export async function getDelivery(ctx: ServiceContext, webhookId: string, deliveryId: string) {
  const [rows, attempts] = await ctx.db.batch([
    ctx.db
      .select(getTableColumns(webhookDeliveries))
      .from(webhookDeliveries)
      .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
      .where(
        where(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.webhookId, webhookId), tenantFilter(ctx, webhooks.organizationId)),
      ),
    ctx.db
      .select()
      .from(webhookAttempts)
      .where(eq(webhookAttempts.deliveryId, deliveryId))
      .orderBy(webhookAttempts.attemptedAt, webhookAttempts.id),
  ]);
  const delivery = rows[0];
  if (!delivery) throw new NotFound("webhook_delivery", "No delivery of this webhook has that id.");
  return { delivery, attempts };
}

/** A new delivery of the same event (the same webhook-id and body), queued at once. */
export async function redeliver(ctx: ServiceContext, webhookId: string, deliveryId: string): Promise<WebhookDeliveryRow> {
  mayChange(ctx, "settings");
  const { delivery } = await getDelivery(ctx, webhookId, deliveryId);
  const copy: WebhookDeliveryRow = {
    ...newDelivery(
      webhookId,
      delivery.organizationId,
      { id: delivery.eventId, type: delivery.eventType, payload: delivery.requestBody },
      nowIso(),
    ),
    redeliveryOf: delivery.id,
  };
  const p = new Plan(copy).add(ctx.db.insert(webhookDeliveries).values(copy)).audits({
    action: "webhook_delivery.redeliver",
    target: { type: "webhook_delivery", id: delivery.id },
    organizationId: delivery.organizationId,
  });
  await commit(ctx, p, ctx.respond);
  ctx.defer(publishDeliveries(ctx.queue, [copy.id]));
  return copy;
}
