import { ApiHeader } from '@nestjs/swagger';
import { IDEMPOTENCY_KEY_HEADER, MAX_KEY_LENGTH } from './idempotency.interceptor';

/**
 * Documents the `Idempotency-Key` request header that every POST accepts (API.md §6);
 * the behaviour itself is global (IdempotencyInterceptor).
 */
export const ApiIdempotencyKey = () =>
  ApiHeader({
    name: IDEMPOTENCY_KEY_HEADER,
    required: false,
    description:
      'Makes a retry safe: for 24 h, a request with the same key and body from the same caller replays the first answer (same status and body) with `Idempotent-Replayed: true` instead of running again. The same key with another body is 422 `idempotency_key_reused`; while the first request still runs, 409 `idempotency_key_in_use`. Use a fresh random value (e.g. a UUID) per operation.',
    schema: { type: 'string', minLength: 1, maxLength: MAX_KEY_LENGTH },
  });
