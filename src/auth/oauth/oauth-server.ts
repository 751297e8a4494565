import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Provider } from 'oidc-provider';
import { repeatInBackground } from '../../common/repeat-in-background';
import { AppConfig } from '../../config/app-config';
import { baseUrl } from '../../http/responses/base-url';
import { conditionalRawGet } from '../../http/responses/raw-conditional-get';
import { recordServerError } from '../../http/request-log';
import { setRoutePattern } from '../../http/routing/route-pattern';
import { OAuthClientsRepository } from '../oauth-clients/oauth-clients.repository';
import { UsersService } from '../users/users.service';
import { ApiProvider } from './api-provider';
import { LoginInteraction, unavailablePage } from './login-interaction';
import { DOCS_FALLBACK_REDIRECT_PATH } from './oauth-client-metadata';
import { postgresAdapter } from './oauth-adapter';
import { apiEdges, oauthRoutePatternOf, type SentRequest } from './oauth-routes';
import { OAuthPayloadsRepository } from './oauth-payloads.repository';
import { oauthUnavailable } from './oauth-unavailable';
import { builtInIssuer, OAUTH_PATH } from './oauth-urls';
import { providerConfiguration } from './provider-configuration';
import { SignInLimiter } from './sign-in-limiter';
import { SigningKeys } from './signing-keys';
import { SigningKeysRepository } from './signing-keys.repository';

/** Without PUBLIC_URL each origin gets its own issuer; this many are kept at most. */
const MAX_ORIGINS = 16;
const PURGE_EVERY_MS = 10 * 60_000;

/** Discovery documents served at the root, where the issuer `<origin>` has them (API.md §2). */
const WELL_KNOWN = new Set([
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
]);

const INTERACTION = new RegExp(`^${OAUTH_PATH}/interaction/([A-Za-z0-9_-]{1,64})(/login)?$`);

interface Origin {
  provider: Provider;
  handle: ReturnType<Provider['callback']>;
  login: LoginInteraction;
}

/**
 * The built-in authorization server: oidc-provider (a certified implementation; nothing
 * of the protocol is written here) mounted under /oauth on Fastify's raw request, before
 * Nest's routing and body parsing, plus the sign-in page and the discovery documents at
 * the root. Its issuer is `PUBLIC_URL`; without PUBLIC_URL, the origin each request
 * came in on (development and tests), one provider per origin.
 */
@Injectable()
export class OAuthServer implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(OAuthServer.name);
  private readonly origins = new Map<string, Origin>();
  private readonly sentRequests = new WeakMap<IncomingMessage, SentRequest>();
  private cookieKeys: string[] = [];
  private stopPurging?: () => void;

  constructor(
    private readonly config: AppConfig,
    private readonly signingKeys: SigningKeys,
    private readonly secrets: SigningKeysRepository,
    private readonly payloads: OAuthPayloadsRepository,
    private readonly clients: OAuthClientsRepository,
    private readonly users: UsersService,
    private readonly signInLimiter: SignInLimiter,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.signingKeys.ready();
    this.cookieKeys = [await this.secrets.findCookieSecret()];
    this.stopPurging = repeatInBackground(
      PURGE_EVERY_MS,
      'purging expired OAuth state',
      this.logger,
      () => this.payloads.purgeExpired(),
    );
  }

  onModuleDestroy(): void {
    this.stopPurging?.();
  }

  /**
   * Serves /oauth/* and the well-known documents from an `onRequest` hook: the request is
   * taken over (hijacked) before Fastify routes or parses it, since oidc-provider reads
   * its own bodies (forms, not JSON). Register after the CORS and security-header hooks so
   * their rules and headers apply here too.
   */
  attach(fastify: FastifyInstance): void {
    // Not an async hook: every request of the API passes here, and only these few are
    // served; a promise per request was a cost the others paid for nothing.
    fastify.addHook('onRequest', (request, reply, done) => {
      const query = request.url.indexOf('?');
      const path = query < 0 ? request.url : request.url.slice(0, query);
      if (path === DOCS_FALLBACK_REDIRECT_PATH && request.method === 'GET') {
        // answered here: Fastify runs no further hook for a sent reply
        void reply.redirect(`/docs${request.url}`, 302);
        return;
      }
      const wellKnown = WELL_KNOWN.has(path);
      if (!wellKnown && path !== OAUTH_PATH && !path.startsWith(`${OAUTH_PATH}/`)) return done();
      reply.hijack();
      this.take(request, reply.raw, path, wellKnown).catch((error: unknown) => {
        // the answer itself failed (the connection is gone): nothing is left to answer
        this.logger.error({ err: error }, 'Could not answer an OAuth request');
      });
    });
  }

  /** Serves a hijacked request to the provider, answering what escapes it with a 500. */
  private async take(
    request: FastifyRequest,
    res: ServerResponse,
    path: string,
    wellKnown: boolean,
  ): Promise<void> {
    labelRoute(request, path, wellKnown);
    const { raw: req } = request;
    res.setHeader('X-Request-Id', String(request.id));
    conditionalRawGet(req, res);
    try {
      await this.serve(request, req, res, path, wellKnown);
    } catch (error) {
      // only the sign-in page's own code throws here: oidc-provider answers its failures
      if (oauthUnavailable(error) && !res.headersSent) return unavailablePage(res);
      recordServerError(req, error);
      if (!res.headersSent) {
        res.statusCode = 500;
        res.setHeader('Content-Type', 'application/json; charset=utf-8');
      }
      res.end(JSON.stringify({ error: 'server_error' }));
    }
  }

  private async serve(
    request: FastifyRequest,
    req: IncomingMessage & { originalUrl?: string },
    res: ServerResponse,
    path: string,
    wellKnown: boolean,
  ): Promise<void> {
    const { handle, login } = this.forOrigin(baseUrl(request, this.config.publicUrl));
    const interaction = INTERACTION.exec(path);
    if (interaction && !wellKnown) {
      const [, uid, isLogin] = interaction;
      if (req.method === 'GET' && !isLogin) return login.show(req, res, uid);
      if (req.method === 'POST' && isLogin) return login.login(req, res, uid, request.ip);
    }
    const query = req.url?.slice(path.length) ?? '';
    // restored by apiEdges once oidc-provider is done with the rewritten one below
    this.sentRequests.set(req, { url: req.url ?? path, id: String(request.id) });
    // oidc-provider works out its mount point from originalUrl minus url (as under express)
    req.originalUrl = wellKnown ? `${OAUTH_PATH}${PROVIDER_DISCOVERY}${query}` : req.url;
    req.url = `${providerPathOf(path, wellKnown)}${query}`;
    await new Promise<void>((resolve) => {
      res.once('close', resolve);
      res.once('finish', resolve);
      void handle(req, res);
    });
  }

  private forOrigin(origin: string): Origin {
    let entry = this.origins.get(origin);
    if (!entry) {
      entry = this.create(origin);
      if (this.origins.size >= MAX_ORIGINS) {
        this.origins.delete(this.origins.keys().next().value as string);
      }
      this.origins.set(origin, entry);
    }
    return entry;
  }

  private create(origin: string): Origin {
    const provider = new ApiProvider(
      builtInIssuer(origin),
      providerConfiguration({
        origin,
        jwks: this.signingKeys.privateJwks(),
        cookieKeys: this.cookieKeys,
        adapter: postgresAdapter(this.payloads, this.clients),
        users: this.users,
      }),
    );
    // Believe X-Forwarded-* exactly when Fastify does (TRUST_PROXY); Koa knows only on/off.
    provider.proxy = this.config.trustProxy !== false;
    provider.use(apiEdges(origin, (req) => this.sentRequests.get(req)));
    compareHashedClientSecrets(provider);
    // on the request's own log line, with its reqId, as the API's 500s are
    provider.on('server_error', (ctx: { req: IncomingMessage }, error: unknown) => {
      recordServerError(ctx.req, error);
    });
    return {
      provider,
      handle: provider.callback(),
      login: new LoginInteraction(provider, this.users, this.signInLimiter),
    };
  }
}

/**
 * Client secrets are stored as their SHA-256 (`oauth_clients.secret_hash`), and the
 * client metadata carries that hash as `client_secret`: the secret a client presents is
 * hashed before oidc-provider's constant-time comparison.
 */
function compareHashedClientSecrets(provider: Provider): void {
  const client = provider.Client.prototype as { compareClientSecret(actual: string): boolean } & {
    clientSecret?: string;
  };
  client.compareClientSecret = function (this: { clientSecret?: string }, actual: string) {
    const expected = Buffer.from(this.clientSecret ?? '', 'utf8');
    const presented = Buffer.from(createHash('sha256').update(actual).digest('hex'), 'utf8');
    return expected.length === presented.length && timingSafeEqual(expected, presented);
  };
}

/** oidc-provider's own discovery path, under its mount point. */
const PROVIDER_DISCOVERY = '/.well-known/openid-configuration';

/** `path` as oidc-provider routes it: under its mount point, discovery mapped to its own. */
function providerPathOf(path: string, wellKnown: boolean): string {
  return wellKnown ? PROVIDER_DISCOVERY : path.slice(OAUTH_PATH.length) || '/';
}

/** Metrics and the log line name the route served, as for Fastify's own routes. */
function labelRoute(request: FastifyRequest, path: string, wellKnown: boolean): void {
  const pattern = oauthRoutePatternOf(request.method, providerPathOf(path, wellKnown));
  // the root discovery paths are few and fixed: each is its own pattern
  if (pattern) setRoutePattern(request, wellKnown ? path : `${OAUTH_PATH}${pattern}`);
}
