import { ArgumentsHost, Catch, ExceptionFilter, NotFoundException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '../../config/app-config';
import { baseUrl } from '../responses/base-url';
import { Problem } from './problem';
import { toProblem } from './problem-mapping';
import { sendProblem } from './problem-response';
import { recordServerError } from '../request-log';
import { RouteTable } from '../routing/route-table';
import { servedByNoRoute, unmatchedRouteProblem } from '../routing/unmatched-routes';

/**
 * The one place where failures become HTTP answers. Nest installs it as Fastify's error
 * handler too, so body-parser and routing errors arrive here as well as guard,
 * validation and service errors.
 */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  constructor(
    private readonly config: AppConfig,
    private readonly routes: RouteTable,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    if (reply.sent) return;

    const problem =
      this.unmatchedRoute(exception, request) ??
      toProblem(exception) ??
      new Problem('internal_error', 'An unexpected error occurred.');
    // logged once, with the request's own line (RequestLogController)
    if (problem.status >= 500) recordServerError(request.raw, exception);
    sendProblem(reply, request, problem, baseUrl(request, this.config.publicUrl));
  }

  /** Nest's router throws a bare NotFoundException when no route matched. */
  private unmatchedRoute(exception: unknown, request: FastifyRequest): Problem | undefined {
    if (!(exception instanceof NotFoundException) || exception instanceof Problem) return undefined;
    if (!servedByNoRoute(request)) return undefined;
    return unmatchedRouteProblem(
      request.method,
      request.url,
      this.routes.allowedMethods(request.url),
    );
  }
}
