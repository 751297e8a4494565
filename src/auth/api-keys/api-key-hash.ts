import { hash, randomBytes } from 'node:crypto';

/**
 * Keys are high-entropy random strings, so a fast hash is the right lookup (API.md §2).
 * Every authenticated request hashes its key: the one-shot `hash` costs a third of a
 * `createHash` object's update and digest.
 */
export const hashApiKey = (key: string): string => hash('sha256', key, 'hex');

export const KEY_PREFIX = 'coa_';

/** What generateApiKey makes: the prefix and 32 random bytes in base64url (43 characters). */
export const API_KEY_PATTERN = /^coa_[A-Za-z0-9_-]{43}$/;

/** A new key: recognisable prefix, 256 random bits. */
export const generateApiKey = (): string => KEY_PREFIX + randomBytes(32).toString('base64url');

/**
 * What is shown of a key after creation: `coa_` and six of its 256 random bits' characters.
 * A key the operator chose (BOOTSTRAP_API_KEY, at least 16 characters, maybe far less
 * random) shows its first four only, so the listing gives away little of the secret.
 */
export const displayPrefix = (key: string): string =>
  key.slice(0, API_KEY_PATTERN.test(key) ? KEY_PREFIX.length + 6 : 4);
