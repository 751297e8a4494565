import { createHash, randomBytes } from 'node:crypto';

/** Keys are high-entropy random strings, so a fast hash is the right lookup (API.md §2). */
export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

export const KEY_PREFIX = 'coa_';

/** What generateApiKey makes: the prefix and 32 random bytes in base64url (43 characters). */
export const API_KEY_PATTERN = /^coa_[A-Za-z0-9_-]{43}$/;

/** A new key: recognisable prefix, 256 random bits. */
export const generateApiKey = (): string => KEY_PREFIX + randomBytes(32).toString('base64url');

/** What is shown of a key after creation. */
export const displayPrefix = (key: string): string => key.slice(0, KEY_PREFIX.length + 6);
