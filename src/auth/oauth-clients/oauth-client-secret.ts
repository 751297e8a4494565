import { createHash, randomBytes } from 'node:crypto';

/** Client ids are public; a prefix and 128 random bits keep them unguessable all the same. */
export const generateClientId = (): string => `cli_${randomBytes(16).toString('base64url')}`;

/** A confidential client's secret: 256 random bits, so a fast hash is the right storage. */
export const generateClientSecret = (): string => `cs_${randomBytes(32).toString('base64url')}`;

export const CLIENT_SECRET_PATTERN = /^cs_[A-Za-z0-9_-]{43}$/;

export const hashClientSecret = (secret: string): string =>
  createHash('sha256').update(secret).digest('hex');
