import { ApiProperty } from '@nestjs/swagger';
import { ApiVersionProperty } from '../../../http/routing/openapi.decorators';
import { DISABLED_REASONS, type DisabledReason } from '../webhook-endpoint.entity';
import { MAX_URL_LENGTH, SUBSCRIBABLE } from './webhook-endpoint-write.dto';

/** A webhook endpoint (the same in every API version); its secret is never shown again. */
export class WebhookEndpointDto {
  /** @example "0193c1c4-6a2e-7c61-9a8e-5d1f0b7c2a11" */
  @ApiProperty({ format: 'uuid' })
  id: string;
  /** @example "https://erp.example.com/webhooks/commerce" */
  @ApiProperty({ format: 'uri', maxLength: MAX_URL_LENGTH })
  url: string;
  @ApiProperty({ type: 'string', nullable: true, maxLength: 500 })
  description: string | null;
  /** Subscribed event types; `*` is every type. */
  @ApiProperty({ type: [String], enum: SUBSCRIBABLE, minItems: 1, maxItems: SUBSCRIBABLE.length })
  events: string[];
  /** Whether events are delivered. */
  enabled: boolean;
  /**
   * Why deliveries stopped: `manual` (PATCH), `gone` (the receiver answered 410), or
   * `failing` (every attempt failed for WEBHOOK_DISABLE_AFTER_S); null while enabled.
   */
  @ApiProperty({ enum: DISABLED_REASONS, nullable: true, example: null })
  disabledReason: DisabledReason | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  disabledAt: Date | null;
  /** Since when every attempt has failed (the first failure after the last success); null when the last attempt succeeded. */
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  failingSince: Date | null;
  /** Until when the secret before the last rotation still signs too; null when it no longer does. */
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  previousSecretExpiresAt: Date | null;
  @ApiVersionProperty()
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** The answer of a creation or a secret rotation: the only time the secret is shown. */
export class WebhookEndpointWithSecretDto extends WebhookEndpointDto {
  /**
   * The signing secret (Standard Webhooks): `whsec_` and the base64 of 32 random bytes.
   * Shown in this answer only; store it with the receiver. A replay of this answer for the
   * same `Idempotency-Key` omits it (answers kept for replays keep no secret); if it was
   * lost, rotate the secret.
   * @example "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw6JoNkELjtFA="
   */
  @ApiProperty({ required: false, maxLength: 50, pattern: '^whsec_[A-Za-z0-9+/]{43}=$' })
  secret?: string;
}
