import type { WebhookDeliveryEntity } from '../deliveries/webhook-delivery.entity';
import type { EventType } from '../event-types';
import { MAX_LISTED_ATTEMPTS, type WebhookDeliveryDto } from './dto/webhook-delivery.dto';
import type { WebhookEndpointDto, WebhookEndpointWithSecretDto } from './dto/webhook-endpoint.dto';
import type { WebhookEndpointEntity } from './webhook-endpoint.entity';

export function toWebhookEndpoint(e: WebhookEndpointEntity, now = new Date()): WebhookEndpointDto {
  const overlap = e.previousSecretExpiresAt;
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    events: e.eventTypes,
    enabled: e.enabled,
    disabledReason: e.disabledReason,
    disabledAt: e.disabledAt,
    failingSince: e.failingSince,
    previousSecretExpiresAt: overlap && overlap > now ? overlap : null,
    version: e.version,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
  };
}

/** Creation and rotation only: the one answer that shows the secret. */
export function toWebhookEndpointWithSecret(
  e: WebhookEndpointEntity,
): WebhookEndpointWithSecretDto {
  return { ...toWebhookEndpoint(e), secret: e.secret };
}

export function toWebhookDelivery(d: WebhookDeliveryEntity): WebhookDeliveryDto {
  return {
    id: d.id,
    endpointId: d.endpointId,
    eventId: d.eventId,
    eventType: d.eventType as EventType,
    status: d.status,
    attemptCount: d.attemptCount,
    nextAttemptAt: d.nextAttemptAt,
    lastAttemptAt: d.lastAttemptAt,
    lastStatusCode: d.lastStatusCode,
    lastError: d.lastError,
    lastLatencyMs: d.lastLatencyMs,
    lastResponseExcerpt: d.lastResponseExcerpt,
    attempts: (d.attempts ?? []).slice(-MAX_LISTED_ATTEMPTS).map((a) => ({
      attempt: a.attemptNo,
      at: a.at,
      succeeded: a.succeeded,
      statusCode: a.statusCode,
      error: a.error,
      latencyMs: a.latencyMs,
      responseExcerpt: a.responseExcerpt,
    })),
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}
