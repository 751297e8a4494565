import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { OpenApiDocuments } from '../../src/docs/openapi/build-documents';

type Json = Record<string, any>;

/** One answer as the client saw it. */
export interface Exchange {
  method: string;
  /** the request path, with its query string */
  path: string;
  status: number;
  headers: Headers;
  /** the parsed JSON body, or the text when it is not JSON */
  body: unknown;
  text: string;
}

type Version = keyof OpenApiDocuments;

/** Headers a client acts on (API.md §1, §5, §6, §8, §11): sent only where documented. */
const CONTRACT_HEADERS = [
  'ETag',
  'Cache-Control',
  'Location',
  'Idempotent-Replayed',
  'Retry-After',
  'WWW-Authenticate',
  'RateLimit',
  'RateLimit-Policy',
  'X-Request-Id',
  'Deprecation',
  'Sunset',
  'Link',
];

/**
 * API.md §12: the OpenAPI documents describe every operation with its responses. Checks
 * an answer against the operation its request matched in the document of its version:
 * the status is documented, each documented header it carries has a value that header's
 * schema allows, and the body is absent where no content is documented, or comes with a
 * documented media type and matches that schema. A request that matches no
 * documented operation (an unknown path, a method the path does not take) is not checked
 * here: the error tests pin those answers.
 *
 * Every request of the test apps goes through here (test-app.ts), so the whole suite is
 * also a conformance test of the documents.
 */
export class OpenApiConformance {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly routes: { version: Version; pattern: RegExp; template: string }[] = [];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly documents: OpenApiDocuments) {
    addFormats(this.ajv);
    for (const version of ['v1', 'v2'] as const) {
      // each document is a schema store, addressed by its version
      this.ajv.addSchema(documents[version], version);
      for (const template of Object.keys(documents[version].paths ?? {})) {
        this.routes.push({ version, template, pattern: patternOf(template) });
      }
    }
    // a literal segment wins over a parameter, as in the router
    this.routes.sort((a, b) => parameterCount(a.template) - parameterCount(b.template));
  }

  /** What is wrong with the answer; empty when it conforms or no operation matched. */
  problems(exchange: Exchange): string[] {
    const { pathname } = new URL(exchange.path, 'http://localhost');
    const version: Version = pathname.startsWith('/api/v1/') ? 'v1' : 'v2';
    const route = this.routes.find((r) => r.version === version && r.pattern.test(pathname));
    const method = exchange.method.toLowerCase();
    const doc = this.documents[version] as Json;
    const operation = route && (doc.paths[route.template][method] as Json | undefined);
    if (!route || !operation) return [];

    const where = `${exchange.method} ${route.template} → ${exchange.status}`;
    const status = String(exchange.status);
    const key = [status, `${status[0]}XX`, 'default'].find((k) => k in operation.responses);
    if (!key) return [`${where}: status not documented`];
    const declared = operation.responses[key] as Json;
    const response = resolve(doc, declared);
    // where the response object is defined: in place, or in components when referenced
    const at = declared.$ref
      ? pointerOf(declared.$ref as string)
      : ['paths', route.template, method, 'responses', key];
    return [
      ...this.headerProblems(version, response, at, exchange.headers),
      ...this.bodyProblems(version, response.content as Json | undefined, at, exchange),
    ].map((problem) => `${where}: ${problem}`);
  }

  /**
   * Each documented header the answer carries has a value its schema allows, and each
   * header of the contract's own that it carries is documented for that answer.
   */
  private headerProblems(version: Version, response: Json, at: string[], headers: Headers) {
    const doc = this.documents[version] as Json;
    const documented = new Set(Object.keys(response.headers ?? {}).map((n) => n.toLowerCase()));
    const undocumented = CONTRACT_HEADERS.filter(
      (name) => headers.has(name) && !documented.has(name.toLowerCase()),
    ).map((name) => `header ${name} sent but not documented`);
    return [
      ...undocumented,
      ...Object.entries((response.headers ?? {}) as Json).flatMap(([name, header]) => {
        const value = headers.get(name);
        if (value === null) return [];
        const defined = (header as Json).$ref
          ? pointerOf((header as Json).$ref as string)
          : [...at, 'headers', name];
        const integer = resolve(doc, header as Json).schema?.type === 'integer';
        const validate = this.validator(version, [...defined, 'schema']);
        return validate(integer && /^\d+$/.test(value) ? Number(value) : value)
          ? []
          : [`header ${name}: ${JSON.stringify(value)} ${validate.errors?.[0]?.message ?? ''}`];
      }),
    ];
  }

  /** No body where none is documented; otherwise a documented media type and schema. */
  private bodyProblems(
    version: Version,
    content: Json | undefined,
    at: string[],
    exchange: Exchange,
  ): string[] {
    if (!content) return exchange.text === '' ? [] : ['a body where none is documented'];
    if (exchange.text === '') return ['no body where one is documented'];
    const mediaType = (exchange.headers.get('content-type') ?? '').split(';')[0].trim();
    if (!(mediaType in content)) return [`media type "${mediaType}" not documented`];
    if (!content[mediaType].schema) return [];
    const validate = this.validator(version, [...at, 'content', mediaType, 'schema']);
    if (validate(exchange.body)) return [];
    return (validate.errors ?? []).map(
      (e) => `body${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`,
    );
  }

  private validator(version: Version, pointer: string[]): ValidateFunction {
    const id = `${version}#/${pointer.map((p) => encodeURIComponent(escapeToken(p))).join('/')}`;
    let validate = this.validators.get(id);
    if (!validate) {
      validate = this.ajv.compile({ $ref: id });
      this.validators.set(id, validate);
    }
    return validate;
  }
}

/** `node`, or what its local `$ref` points at. */
export function resolve(doc: Json, node: Json): Json {
  const ref = node.$ref as string | undefined;
  return ref ? pointerOf(ref).reduce((at: Json, part) => at[part] as Json, doc) : node;
}

/** The reference tokens of a local `#/…` reference. */
const pointerOf = (ref: string) => ref.slice(2).split('/').map(unescapeToken);

function patternOf(template: string): RegExp {
  const escaped = template
    .split(/\{[^}]+\}/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]+');
  return new RegExp(`^${escaped}$`);
}

/** JSON Pointer (RFC 6901) escaping of one reference token, and back. */
const escapeToken = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');
const unescapeToken = (token: string) => token.replace(/~1/g, '/').replace(/~0/g, '~');
const parameterCount = (template: string) => template.split('{').length - 1;
