import { LIMITS } from "../../../lib/limits";
import { Out, Uuid } from "../../../http/openapi/documents";
import { MAX_ATTEMPTS } from "../../../lib/retry-schedule";
import { z } from "@hono/zod-openapi";
import { DELIVERY_STATUSES, DISABLED_REASONS, type WebhookAttemptRow, type WebhookDeliveryRow } from "../../../db/schema";
import { EVENT_TYPES } from "../../../events/types";
import { resource, toOne, toMany } from "../../../http/jsonapi";
import { booleanQuery, listQuery } from "../../../http/openapi/queries";
import { requestDocument, resourceSchema, Timestamp, toManySchema, toOneSchema, updateDocument } from "../../../http/openapi/documents";
import type { WebhookRecord } from "../../../services/webhooks";
import { relationshipInput, ShortDescription, SingleLine } from "../fields";

const WEBHOOK_NAME_LENGTH = 100;
const WebhookName = SingleLine.trim()
  .min(1, "must not be empty")
  .max(WEBHOOK_NAME_LENGTH, `must be at most ${WEBHOOK_NAME_LENGTH} characters`);
const WebhookUrl = z
  .string()
  .max(LIMITS.urlLength, `must be at most ${LIMITS.urlLength} characters`)
  .openapi({ format: "uri", example: "https://hooks.example.com/vdp" });
const TriggerEventTypes = z.strictObject({
  data: z.array(z.strictObject({ type: z.literal("trigger_event_type"), id: Uuid })).max(EVENT_TYPES.length * 2),
});

/** A new webhook's attributes: the API's document and the console's form are checked by this one schema. */
export const WebhookAttributesInput = z.strictObject({
  name: WebhookName,
  short_description: ShortDescription.nullable().optional(),
  url: WebhookUrl,
  enabled: z.boolean().optional(),
});

export const CreateWebhookInput = requestDocument(
  "webhook",
  WebhookAttributesInput,
  z.strictObject({ trigger_event_types: TriggerEventTypes, organization: relationshipInput("organization").optional() }),
).openapi("CreateWebhookInput");

export const UpdateWebhookInput = updateDocument(
  "webhook",
  z
    .strictObject({
      name: WebhookName.optional(),
      short_description: ShortDescription.nullable().optional(),
      url: WebhookUrl.optional(),
      enabled: z.boolean().optional(),
    })
    .optional()
    .default({}),
  z.strictObject({ trigger_event_types: TriggerEventTypes.optional() }).optional(),
).openapi("UpdateWebhookInput");

export const ListWebhooksQuery = listQuery({ "q[enabled_eq]": booleanQuery("q[enabled_eq]") });

const WebhookAttributes = z.object({
  name: z.string().max(WEBHOOK_NAME_LENGTH),
  short_description: Out.shortDescription.nullable(),
  url: Out.url,
  enabled: z.boolean(),
  disabled_reason: z
    .enum(DISABLED_REASONS)
    .nullable()
    .openapi({ description: "gone: the receiver answered 410; failing: 5 deliveries in a row used up every attempt" }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
const WebhookRelationships = z.object({
  trigger_event_types: toManySchema("trigger_event_type"),
  organization: toOneSchema("organization"),
  tunnel_endpoint: toOneSchema("tunnel_endpoint"),
  local_app: toOneSchema("local_app"),
});

export const Webhook = resourceSchema("Webhook", "webhook", WebhookAttributes, WebhookRelationships);
export const WebhookWithSecret = resourceSchema(
  "WebhookWithSecret",
  "webhook",
  WebhookAttributes.extend({
    secret: z
      .string()
      .max(50)
      .regex(/^whsec_[A-Za-z0-9+/]{43}=$/)
      .nullable()
      .openapi({ description: "whsec_...: shown on create and rotate_secret only (null in an idempotent replay)" }),
  }),
  WebhookRelationships,
);

const typeIdOf = (shortName: string) => EVENT_TYPES.find((t) => t.short_name === shortName)!.id;

export function serializeWebhook(row: WebhookRecord) {
  return resource(
    "webhook",
    row.id,
    {
      name: row.name,
      short_description: row.shortDescription,
      url: row.url,
      enabled: row.enabled,
      disabled_reason: row.disabledReason,
      created_at: row.createdAt,
      updated_at: row.updatedAt,
    },
    `/v1/webhooks/${row.id}`,
    {
      trigger_event_types: toMany(
        "trigger_event_type",
        EVENT_TYPES.filter((t) => row.eventTypes.includes(t.short_name)).map((t) => typeIdOf(t.short_name)),
      ),
      organization: toOne("organization", row.organizationId),
      tunnel_endpoint: toOne("tunnel_endpoint", null),
      local_app: toOne("local_app", null),
    },
  );
}

export function withSecret(row: WebhookRecord, secret: string | null) {
  const r = serializeWebhook(row);
  return { ...r, attributes: { ...r.attributes, secret } };
}

// ---- Deliveries ---------------------------------------------------------------------------------

export const ListDeliveriesQuery = listQuery({
  "q[status_eq]": z
    .enum(DELIVERY_STATUSES)
    .optional()
    .openapi({ param: { name: "q[status_eq]", in: "query" } }),
});

const DeliveryAttributes = z.object({
  event_id: Uuid.openapi({ description: "The webhook-id header: the same on every attempt and redelivery" }),
  // The subscribed event types, and the ping any webhook can be sent.
  event_type: z.string().openapi({ enum: [...EVENT_TYPES.map((e) => e.short_name), "Webhook::Ping"], example: "Vuln::Created" }),
  status: z.enum(DELIVERY_STATUSES),
  attempt_count: z.number().int().min(0).max(MAX_ATTEMPTS),
  last_status_code: z.number().int().min(100).max(599).nullable(),
  next_attempt_at: Timestamp.nullable(),
  redelivery: z.boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
const DeliveryRelationships = z.object({ webhook: toOneSchema("webhook") });

export const WebhookDelivery = resourceSchema("WebhookDelivery", "webhook_delivery", DeliveryAttributes, DeliveryRelationships);
export const WebhookDeliveryDetail = resourceSchema(
  "WebhookDeliveryDetail",
  "webhook_delivery",
  DeliveryAttributes.extend({
    request_body: z.string().max(LIMITS.bodyBytes).openapi({ description: "The body exactly as sent and signed" }),
    // A delivery stops after its last scheduled attempt; a redelivery is a delivery of its own.
    attempts: z
      .array(
        z.object({
          attempted_at: Timestamp,
          status_code: z.number().int().min(100).max(599).nullable(),
          duration_ms: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
          error: z.string().max(1024).nullable().openapi({ description: "What went wrong, in at most 1,024 characters" }),
        }),
      )
      .max(MAX_ATTEMPTS),
  }),
  DeliveryRelationships,
);

export function serializeDelivery(row: WebhookDeliveryRow) {
  return resource(
    "webhook_delivery",
    row.id,
    {
      event_id: row.eventId,
      event_type: row.eventType,
      status: row.status,
      attempt_count: row.attemptCount,
      last_status_code: row.lastStatusCode,
      next_attempt_at: row.nextAttemptAt,
      redelivery: row.redeliveryOf !== null,
      created_at: row.createdAt,
      updated_at: row.updatedAt,
    },
    `/v1/webhooks/${row.webhookId}/deliveries/${row.id}`,
    { webhook: toOne("webhook", row.webhookId) },
  );
}

export function serializeDeliveryDetail(row: WebhookDeliveryRow, attempts: WebhookAttemptRow[]) {
  const r = serializeDelivery(row);
  return {
    ...r,
    attributes: {
      ...r.attributes,
      request_body: row.requestBody,
      attempts: attempts.map((a) => ({
        attempted_at: a.attemptedAt,
        status_code: a.statusCode,
        duration_ms: a.durationMs,
        error: a.error && a.error.length > 1024 ? `${a.error.slice(0, 1023)}…` : a.error,
      })),
    },
  };
}

export const DeliveryParams = z.object({
  id: z.string().openapi({ param: { name: "id", in: "path" }, format: "uuid" }),
  delivery_id: z.string().openapi({ param: { name: "delivery_id", in: "path" }, format: "uuid" }),
});
