import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';

export type SetLocation = (id: string) => void;

/**
 * For POST handlers: a function that sets `Location` to the created member of the
 * collection the request was posted to (`/api/v1/products` + `/<id>`), whatever version.
 */
export const Location = createParamDecorator(
  (_: unknown, context: ExecutionContext): SetLocation => {
    const http = context.switchToHttp();
    const path = http.getRequest<FastifyRequest>().url.split('?')[0].replace(/\/+$/, '');
    const reply = http.getResponse<FastifyReply>();
    return (id) => void reply.header('Location', `${path}/${encodeURIComponent(id)}`);
  },
);
