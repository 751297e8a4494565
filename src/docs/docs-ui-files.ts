import type { FastifyInstance } from 'fastify';

/** Where SwaggerModule serves the files of swagger-ui-dist (@fastify/static's route). */
const UI_FILES_ROUTE = '/docs/*';

/**
 * The files of swagger-ui-dist that the docs UI loads: those its page and its OAuth
 * redirect page name, and their source maps, which browser devtools ask for.
 */
const UI_FILES = new Set(
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
    if (request.routeOptions.url !== UI_FILES_ROUTE) return done();
    const file = (request.params as Record<string, string>)['*'];
    if (UI_FILES.has(file)) return done();
    reply.callNotFound();
  });
}
