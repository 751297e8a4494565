import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { AppConfig } from '../../config/app-config';
import { HEADERS, PROBLEM_SCHEMA } from './components';
import type { Document } from './openapi-shape';
import { operations } from './openapi-shape';
import { addProblemResponses } from './problem-responses';
import { selectVersion } from './select-version';

export type ApiVersion = 1 | 2;
export type OpenApiDocuments = Record<`v${ApiVersion}`, Document>;

const DESCRIPTION = `Products, inventory, orders, invoices and shipments over strict HTTP/JSON.

Errors are RFC 9457 problem details whose \`type\` links to a page about their \`code\`.
Collections are paginated (\`limit\`, opaque \`cursor\`; v1 also \`page\`) and answer
\`{data, pagination}\` with a \`Link\` header. Every GET carries a strong \`ETag\`; writes take
\`If-Match\`. Besides \`RateLimit\`/\`RateLimit-Policy\`, every answer also carries the older
\`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` headers.`;

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
    .build();
  base.servers = [server(config)];
  const full = SwaggerModule.createDocument(app, base, {
    operationIdFactory: (_controller, method) => method,
  });
  return { v1: finish(full, 1, config), v2: finish(full, 2, config) };
}

function finish(full: Document, version: ApiVersion, config: AppConfig): Document {
  const doc = selectVersion(full, version);
  doc.info = { ...doc.info, version: String(version), title: `Commerce Operations API v${version}` };
  doc.components ??= {};
  doc.components.schemas = { ...(doc.components.schemas ?? {}), Problem: PROBLEM_SCHEMA };
  doc.components.headers = { ...(doc.components.headers ?? {}), ...HEADERS } as never;
  addProblemResponses(doc);
  if (version === 1 && config.apiV1Sunset) {
    for (const { operation } of operations(doc)) operation.deprecated = true;
  }
  return doc;
}

/** API.md §12: PUBLIC_URL when it is https, `/` otherwise. */
function server(config: AppConfig) {
  const https = config.publicUrl?.startsWith('https://');
  return {
    url: https ? (config.publicUrl as string) : '/',
    description: https ? 'production' : 'local development or test',
    'x-internal': false,
  };
}
