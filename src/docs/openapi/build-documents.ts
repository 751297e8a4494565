import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { FastifyInstance } from 'fastify';
import type { Permission } from '../../auth/permissions';
import { oauth2Scheme } from '../../auth/oauth/oauth-openapi';
import type { AppConfig } from '../../config/app-config';
import { DEPRECATION_HEADERS, HEADERS, PROBLEM_SCHEMA } from './components';
import { normalizeSchemas, ServerLimits } from './normalize-schemas';
import type { Document } from './openapi-shape';
import { operations } from './openapi-shape';
import {
  declareTags,
  describePermissions,
  permissionsByOperationId,
  staffOnlyOperationIds,
} from './operation-details';
import { collectionsByOperationId, documentCollections } from './collections';
import { documentIdempotency } from './idempotency';
import { addProblemResponses } from './problem-responses';
import { selectVersion } from './select-version';
import { documentValidationConstraints } from './validation-constraints';
import { documentEvents } from './webhooks';

export type ApiVersion = 1 | 2;
export type OpenApiDocuments = Record<`v${ApiVersion}`, Document>;

const DESCRIPTION = `Products, inventory, orders, invoices and shipments over strict HTTP/JSON.

Errors are RFC 9457 problem details whose \`type\` links to a page about their \`code\`.
A path with no operation for the method sent answers \`405 method_not_allowed\` with an
\`Allow\` header listing the methods it has; a path that does not exist answers \`404\`.
Collections are paginated (\`limit\`, opaque \`cursor\`; v1 also \`page\`) and answer
\`{data, pagination}\` with a \`Link\` header. Every GET carries a strong \`ETag\`; writes take
\`If-Match\`. A customer sees only its own orders, invoices and shipments; other rows are 404.

Rate limits: besides \`RateLimit\` and \`RateLimit-Policy\` (documented on every response),
every answer also carries the older \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and
\`X-RateLimit-Reset\` (seconds to reset) headers, for clients written against that convention.`;

/** The OpenAPI 3.1 document of each API version, built once at boot from the controllers. */
export function buildOpenApiDocuments(app: INestApplication, config: AppConfig): OpenApiDocuments {
  const base = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Commerce Operations API')
    .setDescription(DESCRIPTION)
    .setVersion('1')
    .addSecurity('ApiKey', {
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
      description: 'An API key (server to server). Ask an admin for one; it is shown once.',
    })
    .addSecurity('Bearer', {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: 'An RFC 9068 JWT access token, validated per RFC8725 (JWT best current practices).',
    })
    .addOAuth2(oauth2Scheme(config), 'OAuth2')
    .build();
  // package.json: "UNLICENSED", a private API
  base.info.license = { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' } as never;
  base.servers = [server(config)];
  documentValidationConstraints();
  const full = SwaggerModule.createDocument(app, base, {
    operationIdFactory: (_controller, method) => method,
  });
  const context: Context = {
    config,
    limits: serverLimits(app),
    permissions: permissionsByOperationId(app),
    staffOnly: staffOnlyOperationIds(app),
    collections: collectionsByOperationId(app),
  };
  documentEvents(full);
  return { v1: finish(full, 1, context), v2: finish(full, 2, context) };
}

interface Context {
  config: AppConfig;
  limits: ServerLimits;
  permissions: Map<string, Permission>;
  staffOnly: Set<string>;
  collections: ReturnType<typeof collectionsByOperationId>;
}

function finish(full: Document, version: ApiVersion, context: Context): Document {
  const deprecated = version === 1 && context.config.apiV1Sunset !== undefined;
  const doc = selectVersion(full, version);
  doc.info = { ...doc.info, version: String(version), title: `Commerce Operations API v${version}` };
  doc.components ??= {};
  doc.components.schemas = { ...(doc.components.schemas ?? {}), Problem: PROBLEM_SCHEMA };
  doc.components.headers = {
    ...(doc.components.headers ?? {}),
    ...HEADERS,
    ...(deprecated ? DEPRECATION_HEADERS : {}),
  } as never;
  documentCollections(doc, context.collections);
  addProblemResponses(doc, { deprecated });
  documentIdempotency(doc);
  normalizeSchemas(doc, context.limits);
  declareTags(doc);
  describePermissions(doc, context.permissions, context.staffOnly);
  if (deprecated) {
    for (const { operation } of operations(doc)) operation.deprecated = true;
  }
  return doc;
}

/** The limits the HTTP server enforces, read from it so the document cannot drift. */
function serverLimits(app: INestApplication): ServerLimits {
  const { initialConfig } = app.getHttpAdapter().getInstance() as FastifyInstance;
  const router = (initialConfig as { routerOptions?: { maxParamLength?: number } }).routerOptions;
  // the fallbacks are Fastify's defaults
  return {
    bodyLimit: initialConfig.bodyLimit ?? 1024 * 1024,
    maxParamLength: router?.maxParamLength ?? initialConfig.maxParamLength ?? 100,
  };
}

/**
 * API.md §12: one server, PUBLIC_URL (its root: paths carry /api/vN) when it is https and
 * `/` otherwise, declared public, and described with its environment in words the OWASP
 * ruleset knows (local, test, production).
 */
function server(config: AppConfig) {
  const publicUrl = config.publicUrl?.startsWith('https://') ? config.publicUrl : undefined;
  const environment = config.env === 'development' ? 'local development' : config.env;
  return {
    url: publicUrl ?? '/',
    description: publicUrl
      ? `The ${environment} server`
      : `This ${environment} server: the host that serves this document`,
    'x-internal': false,
  };
}
