import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { map, Observable } from 'rxjs';
import { etagForVersion } from './etag';

/** Tags every single-resource answer (GET and successful writes) with its version. */
@Injectable()
export class VersionEtagInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      map((result: unknown) => {
        const version = (result as { version?: unknown } | null)?.version;
        if (typeof version === 'number' && Number.isInteger(version)) {
          void context
            .switchToHttp()
            .getResponse<FastifyReply>()
            .header('ETag', etagForVersion(version));
        }
        return result;
      }),
    );
  }
}
