import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A new endpoint secret: `whsec_` and the base64 of 32 random bytes (Standard Webhooks). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The `webhook-signature` header of one attempt: a `v1,<base64 HMAC-SHA256>` entry of
 * `id.timestamp.body` per secret, space-separated, as Standard Webhooks allows. During a
 * rotation's overlap both the new and the previous secret sign, so a receiver that still
 * holds the old secret keeps verifying.
 */
export function signatureHeader(
  secrets: readonly string[],
  webhookId: string,
  timestamp: Date,
  body: string,
): string {
  return secrets.map((secret) => new Webhook(secret).sign(webhookId, timestamp, body)).join(' ');
}
