import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { versionsFromIfMatch } from '../responses/etag';

/** The versions `If-Match` accepts (undefined: no precondition). See versionsFromIfMatch. */
export const IfMatch = createParamDecorator((_: unknown, context: ExecutionContext) => {
  const header = context.switchToHttp().getRequest<FastifyRequest>().headers['if-match'];
  return versionsFromIfMatch(Array.isArray(header) ? header.join(',') : header);
});
