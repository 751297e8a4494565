import { createHmac, timingSafeEqual } from 'node:crypto';
import { Problem } from '../problems/problem';

/** What a cursor carries: where a page starts, in which list, under which sort. */
export interface CursorPayload {
  /** collection name, so a products cursor is refused by orders */
  c: string;
  /** the sort it was made under, normalised (`-createdAt,id`) */
  s: string;
  /** `a`: the page after `k`; `b`: the page before `k` */
  d: 'a' | 'b';
  /** sort values of the boundary row, the id last */
  k: (string | number)[];
  /**
   * 1: the page includes the boundary row itself. Only the links of an empty page carry
   * it: the way back from past the end starts at the cursor's own position.
   */
  i?: 1;
}

const MAC_BYTES = 16;

/**
 * Opaque, tamper-evident cursors: base64url(JSON payload) + "." + truncated HMAC-SHA256.
 * The secret is shared by every instance (it lives in the database), so a cursor made by
 * one instance is honoured by all.
 */
export class CursorCodec {
  constructor(private readonly secret: Buffer) {}

  encode(payload: CursorPayload): string {
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.mac(body).toString('base64url')}`;
  }

  decode(cursor: string): CursorPayload {
    const [body, mac, extra] = cursor.split('.');
    if (!body || !mac || extra !== undefined) throw invalidCursor();
    const expected = this.mac(body);
    const given = Buffer.from(mac, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw invalidCursor();
    }
    try {
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as CursorPayload;
      if (
        !Array.isArray(payload.k) ||
        (payload.d !== 'a' && payload.d !== 'b') ||
        (payload.i !== undefined && payload.i !== 1)
      ) {
        throw invalidCursor();
      }
      return payload;
    } catch {
      throw invalidCursor();
    }
  }

  private mac(body: string): Buffer {
    return createHmac('sha256', this.secret).update(body).digest().subarray(0, MAC_BYTES);
  }
}

/** A 400 naming `cursor`; `reason` reads after the field's name, as every field message does. */
export function invalidCursor(reason = 'is not valid for this list') {
  const message = `${reason}; start again without it`;
  return new Problem('bad_request', `The cursor ${message}.`, [{ field: 'cursor', message }]);
}
