import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { etagForBody } from '../http/responses/etag';

/** Where SwaggerModule serves the files of swagger-ui-dist (@fastify/static's route). */
export const UI_FILES_ROUTE = '/docs/*';

/**
 * The files of swagger-ui-dist that the docs UI loads: those its page and its OAuth
 * redirect page name, and their source maps, which browser devtools ask for.
 */
export const UI_FILES: ReadonlySet<string> = new Set(
  [
    'swagger-ui.css',
    'swagger-ui-bundle.js',
    'swagger-ui-standalone-preset.js',
    'favicon-16x16.png',
    'favicon-32x32.png',
    'oauth2-redirect.html',
    'oauth2-redirect.js',
  ].flatMap((file) =>
    file.endsWith('.png') || file.endsWith('.html') ? [file] : [file, `${file}.map`],
  ),
);

/**
 * SwaggerModule serves the whole swagger-ui-dist folder under /docs: its package.json,
 * README, build logs and other bundles too. Only what the UI loads is served; any other
 * file is `404`, as for a file that is not there.
 */
export function serveOnlyDocsUiFiles(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    if (request.routeOptions.url !== UI_FILES_ROUTE || uiFileOf(request)) return done();
    reply.callNotFound();
  });
}

const strongTags = new Map<string, string>();

/**
 * @fastify/static tags a file weakly (`W/"size-mtime"`); API.md §5 gives every GET a
 * strong ETag. The files of a swagger-ui-dist release never change, so each gets one from
 * its content, read once on its first request. Register before the response hooks
 * (response-hooks.ts), which answer a matching If-None-Match with 304.
 */
export function tagDocsUiFilesStrongly(fastify: FastifyInstance): void {
  fastify.addHook('onSend', (request, reply, payload, done) => {
    const file = uiFileOf(request);
    if (file && reply.statusCode === 200) {
      let etag = strongTags.get(file);
      if (!etag) {
        etag = etagForBody(readFileSync(join(uiFilesFolder(), file)));
        strongTags.set(file, etag);
      }
      void reply.header('ETag', etag);
    }
    done(null, payload);
  });
}

function uiFileOf(request: FastifyRequest): string | undefined {
  if (request.routeOptions.url !== UI_FILES_ROUTE) return undefined;
  const file = (request.params as Record<string, string>)['*'];
  return UI_FILES.has(file) ? file : undefined;
}

/** The swagger-ui-dist folder SwaggerModule serves: the copy @nestjs/swagger resolves. */
function uiFilesFolder(): string {
  const fromSwaggerModule = createRequire(require.resolve('@nestjs/swagger'));
  return (fromSwaggerModule('swagger-ui-dist/absolute-path.js') as () => string)();
}
