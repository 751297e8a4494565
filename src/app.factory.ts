import { VersioningType } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { AppModule } from './app.module';
import { DOCS_CLIENT_ID, docsRedirectUri } from './auth/oauth/oauth-client-metadata';
import { OAuthServer } from './auth/oauth/oauth-server';
import { AppConfig } from './config/app-config';
import type { DatabaseTarget } from './database/data-source-options';
import { listDocsPaths } from './docs/docs-paths';
import { serveOnlyDocsUiFiles, tagDocsUiFilesStrongly } from './docs/docs-ui-files';
import { buildOpenApiDocuments } from './docs/openapi/build-documents';
import { OpenApiRegistry } from './docs/openapi/openapi-registry';
import { loadGeneratedPluginMetadata } from './docs/openapi/plugin-metadata';
import { ClientErrors } from './http/problems/client-errors';
import { registerCors } from './http/responses/cors';
import { DrainingFastifyAdapter, registerDrainHooks } from './http/draining-fastify-adapter';
import { serveConnectRequests } from './http/input/connect-requests';
import { serveUnknownExpectations } from './http/input/expectations';
import { canonicalRequestTarget, refuseMalformedTargets } from './http/input/request-target';
import { FrameworkErrors } from './http/problems/framework-errors';
import { registerJsonBodyParser } from './http/input/json-body';
import { requestIdFor } from './http/request-id';
import { registerRepresentationHooks } from './http/responses/representation.hooks';
import { registerResponseHooks } from './http/responses/response-hooks';
import { RouteTable } from './http/routing/route-table';
import { registerSecurityHeaders } from './http/responses/security-headers';
import { answerUnmatchedBeforeBody } from './http/routing/unmatched-routes';
import { appLogger, createLogger, LogDestination, requestLogging } from './logging';
import { Metrics } from './metrics/metrics';
import { registerMetricsHooks } from './metrics/metrics.hooks';
import { registerRateLimitHooks } from './rate-limit/rate-limit.hooks';
import { RateLimiter } from './rate-limit/rate-limiter';

export const BODY_LIMIT_BYTES = 1024 * 1024;
/**
 * The longest path parameter the router matches: three times the longest key a client
 * can name (a SKU, 64 characters; ids are 36-character UUIDs). Anything longer names no
 * resource and is answered `404` (framework-errors.ts), not with Fastify's raw 414.
 */
export const MAX_PARAM_LENGTH = 200;

export interface AppOptions {
  /** where the request log goes instead of stdout (tests read it) */
  logDestination?: LogDestination;
}

/**
 * Builds the whole application, ready to listen: the one assembly used by main.ts, the
 * worker-less test apps and the benchmark, so they all run the same HTTP contract.
 */
export async function createApp(
  config: AppConfig,
  database: DatabaseTarget,
  { logDestination }: AppOptions = {},
): Promise<NestFastifyApplication> {
  // one pino logger for Fastify's request lines and, in production, Nest's own lines
  const logger = createLogger(config, logDestination);
  const logging = requestLogging(logger);
  // malformed URLs and over-long path parameters, refused before any route or hook
  const frameworkErrors = new FrameworkErrors(config, MAX_PARAM_LENGTH, logging.logController!);
  // bytes the HTTP parser refuses, before any request exists
  const clientErrors = new ClientErrors(config, logger);
  const options = {
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: requestIdFor,
    requestIdHeader: false as const,
    trustProxy: config.trustProxy,
    ...logging,
    frameworkErrors: frameworkErrors.handler,
    clientErrorHandler: clientErrors.handler,
    // On close, idle keep-alive connections are cut and requests in flight finish;
    // `true` would cut those too.
    forceCloseConnections: 'idle' as const,
    // a request that comes in meanwhile gets the API's 503 problem (registerDrainHooks)
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: MAX_PARAM_LENGTH },
    rewriteUrl: canonicalRequestTarget,
    // an HTTP/1.1 request without Host gets the API's 400 problem (request-target.ts),
    // not Node's empty one
    http: { requireHostHeader: false },
    // No Express-style middleware anywhere: without middie no hook of its runs on every
    // request for an empty chain.
    skipMiddie: true,
  };
  const adapter = new DrainingFastifyAdapter(
    config.tls
      ? {
          ...options,
          https: {
            cert: config.tls.cert,
            key: config.tls.key,
            minVersion: 'TLSv1.3',
            requireHostHeader: false,
          },
        }
      : options,
  );
  const fastify = adapter.getInstance();
  serveUnknownExpectations(fastify.server);
  serveConnectRequests(fastify.server);
  // Bodies are JSON only (API.md §1): Fastify's text/plain parser would accept others.
  fastify.removeContentTypeParser(['text/plain']);
  // ours in place of Fastify's JSON parser: empty, deep, NUL and prototype-key bodies
  registerJsonBodyParser(fastify);
  const routes = new RouteTable(MAX_PARAM_LENGTH);
  routes.attach(fastify);
  listDocsPaths(routes);
  tagDocsUiFilesStrongly(fastify);
  // a handler's Page becomes the collection envelope, a versioned answer gets its ETag
  registerRepresentationHooks(fastify, config);
  registerResponseHooks(fastify, config);
  // Before any route: helmet's headers are on every answer, and a foreign Origin is
  // refused (403) before authentication, as preflights carry no credentials.
  registerSecurityHeaders(adapter, config);
  // a request that comes in while closing is refused next, with those headers
  registerDrainHooks(fastify);
  await registerCors(fastify, config);
  refuseMalformedTargets(fastify);

  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot({ config, database, routes }),
    adapter,
    {
      bodyParser: false,
      logger: appLogger(config, logger),
      // A failure while the app is built reaches the caller, which says what failed
      // (main.ts) whatever LOG_LEVEL is; Nest would otherwise log it and exit at once.
      abortOnError: false,
    },
  );
  app.enableVersioning({ type: VersioningType.URI, prefix: 'api/v' });
  // The built-in authorization server on /oauth, after the CORS and security-header hooks.
  app.get(OAuthServer).attach(fastify);
  // after the OAuth server's hook, which takes /oauth and /.well-known over
  answerUnmatchedBeforeBody(fastify);
  registerRateLimitHooks(fastify, app.get(RateLimiter), config);
  // request count and latency by route pattern and status, for GET /metrics
  registerMetricsHooks(fastify, app.get(Metrics));
  frameworkErrors.countIn(app.get(Metrics), app.get(RateLimiter));
  clientErrors.countIn(app.get(Metrics));

  serveOnlyDocsUiFiles(fastify);
  await loadGeneratedPluginMetadata();
  const documents = buildOpenApiDocuments(app, config);
  app.get(OpenApiRegistry).set(documents);
  SwaggerModule.setup('docs', app, documents.v2, {
    raw: false,
    explorer: true,
    customSiteTitle: 'Commerce Operations API',
    swaggerOptions: {
      urls: [
        { url: '/docs/v2/openapi.json', name: 'v2' },
        { url: '/docs/v1/openapi.json', name: 'v1 (deprecated when API_V1_SUNSET is set)' },
      ],
      persistAuthorization: true,
      // no badge from validator.swagger.io: another host, which the docs' CSP blocks
      validatorUrl: null,
      // "Authorize" signs in at the built-in server as its docs client, with PKCE
      initOAuth: { clientId: DOCS_CLIENT_ID, usePkceWithAuthorizationCodeGrant: true },
      ...(config.publicUrl ? { oauth2RedirectUrl: docsRedirectUri(config.publicUrl) } : {}),
    },
  });
  await app.init();
  return app;
}
