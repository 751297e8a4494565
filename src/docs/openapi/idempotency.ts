import {
  IDEMPOTENCY_KEY_HEADER,
  MAX_KEY_LENGTH,
  REPLAYED_HEADER,
} from '../../idempotency/idempotency.interceptor';
import type { Document, Json } from './openapi-shape';
import { operations } from './openapi-shape';

const KEY_PARAMETER: Json = {
  name: IDEMPOTENCY_KEY_HEADER,
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: for 24 h, a request with the same key and body from the same caller replays the first answer (same status and body) with `Idempotent-Replayed: true` instead of running again. The same key with another body is 422 `idempotency_key_reused`; while the first request still runs, 409 `idempotency_key_in_use`. Use a fresh random value (e.g. a UUID) per operation. Send it in one header: twice is 400.',
  schema: { type: 'string', minLength: 1, maxLength: MAX_KEY_LENGTH },
};

const REPLAYED: Json = { $ref: `#/components/headers/${REPLAYED_HEADER}` };

/**
 * Every POST takes `Idempotency-Key` (API.md §6); the behaviour is one global
 * interceptor, so the document states it once here for every POST operation.
 */
export function documentIdempotency(doc: Document): void {
  for (const { method, operation } of operations(doc)) {
    if (method !== 'post') continue;
    const parameters = ((operation.parameters ??= []) as Json[]).filter(
      (p) => !(p.in === 'header' && p.name === IDEMPOTENCY_KEY_HEADER),
    );
    operation.parameters = [...parameters, KEY_PARAMETER];
    for (const [status, response] of Object.entries((operation.responses ?? {}) as Json)) {
      const r = response as Json;
      if (!/^2/.test(status) || '$ref' in r) continue;
      r.headers = { ...((r.headers) ?? {}), [REPLAYED_HEADER]: REPLAYED };
    }
  }
}
