import { SetMetadata } from '@nestjs/common';

export const SHOWN_ONCE_FIELDS = 'idempotency:shown-once';

/**
 * Names the top-level fields of a POST answer that are secrets shown once (an API key, a
 * webhook or client secret). The idempotency store never keeps them, so a replay for the
 * same Idempotency-Key answers the same status and body without them: the secret stays
 * stored nowhere but with the client (API.md §2: keys are stored hashed, shown once).
 */
export const ShownOnce = (...fields: string[]) => SetMetadata(SHOWN_ONCE_FIELDS, fields);
