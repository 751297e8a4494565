import { ERROR_CODES } from '../../http/error-codes';
import type { Json } from './openapi-shape';

/** The RFC 9457 problem body of API.md §7. */
export const PROBLEM_SCHEMA: Json = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'title', 'status', 'detail', 'instance', 'code', 'requestId'],
  properties: {
    type: { type: 'string', format: 'uri', maxLength: 2048, description: 'Link to the page that explains `code`.' },
    title: { type: 'string', maxLength: 200 },
    status: { type: 'integer', format: 'int32', minimum: 400, maximum: 599 },
    detail: { type: 'string', maxLength: 5000 },
    instance: { type: 'string', maxLength: 2048, description: 'The request path.' },
    code: { type: 'string', enum: Object.keys(ERROR_CODES) },
    requestId: { type: 'string', maxLength: 128, pattern: '^[A-Za-z0-9._:-]{1,128}$' },
    errors: {
      type: 'array',
      maxItems: 100,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['field', 'message'],
        properties: {
          field: { type: 'string', maxLength: 200 },
          message: { type: 'string', maxLength: 1000 },
        },
      },
    },
  },
};

export const HEADERS: Json = {
  RateLimit: {
    description: 'IETF draft: remaining requests `r` and seconds to reset `t` in the current window.',
    schema: { type: 'string', maxLength: 100, example: '"default";r=998;t=2341' },
  },
  'RateLimit-Policy': {
    description: 'IETF draft: quota `q` per window `w` seconds.',
    schema: { type: 'string', maxLength: 100, example: '"default";q=1000;w=3600' },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 86400 },
  },
};
