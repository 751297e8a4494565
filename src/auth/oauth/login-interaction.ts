import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Interaction, Provider } from 'oidc-provider';
import { holdsNul } from '../../http/input/nul-character';
import { RETRY_AFTER_S } from '../../http/problems/problem-mapping';
import { ROLE_PERMISSIONS } from '../permissions';
import { EMAIL_MAX_LENGTH } from '../users/user-email';
import type { UsersService } from '../users/users.service';
import { errorPage, loginPage } from './login-page';
import { oauthUnavailable, TEMPORARILY_UNAVAILABLE } from './oauth-unavailable';
import { interactionPath } from './provider-configuration';
import type { SignInLimiter } from './sign-in-limiter';

const MAX_FORM_BYTES = 16 * 1024;
const PERMISSION = /^[a-z-]+:(read|write)$/;
const MAX_PASSWORD = 1024;

type Users = Pick<UsersService, 'verifyPassword' | 'findById'>;

/**
 * The end-user side of the authorization server: the sign-in page (GET) and its form
 * (POST), both bound to one oidc-provider interaction. Consent is implied: the clients
 * are registered by admins, so once the user is known the grant is given, limited to the
 * scopes the user's roles allow.
 */
export class LoginInteraction {
  constructor(
    private readonly provider: Provider,
    private readonly users: Users,
    private readonly limiter: Pick<SignInLimiter, 'attempt'>,
  ) {}

  /** GET /oauth/interaction/{uid}: the sign-in form, or straight on when only consent is due. */
  async show(req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
    const interaction = await this.interaction(req, res, uid);
    if (!interaction) return;
    if (interaction.prompt.name === 'login') {
      return html(res, 200, loginPage(await this.form(interaction)));
    }
    if (interaction.prompt.name === 'consent') return this.consent(req, res, interaction);
    return html(res, 400, errorPage('interaction_required', 'This request cannot go on here.'));
  }

  /**
   * POST /oauth/interaction/{uid}/login: checks the password through the users module,
   * unless `ip` or the email has used up its attempts (SignInLimiter).
   */
  async login(req: IncomingMessage, res: ServerResponse, uid: string, ip: string): Promise<void> {
    const interaction = await this.interaction(req, res, uid);
    if (!interaction) return;
    const form = await readForm(req);
    if (!form || form.get('uid') !== uid || interaction.prompt.name !== 'login') {
      return html(
        res,
        400,
        errorPage('invalid_request', 'The sign-in form was not sent as served.'),
      );
    }
    const email = (form.get('email') ?? '').slice(0, EMAIL_MAX_LENGTH);
    const password = (form.get('password') ?? '').slice(0, MAX_PASSWORD);
    // Counted before the password is checked, so parallel posts cannot slip past the limit;
    // refused without checking it, so a refused attempt tells nothing about the password.
    const retryAfter = await this.limiter.attempt(email, ip);
    if (retryAfter !== null) {
      const minutes = Math.ceil(retryAfter / 60);
      const page = loginPage({
        ...(await this.form(interaction)),
        email,
        error: `Too many sign-in attempts. Try again in ${minutes} minute${minutes > 1 ? 's' : ''}.`,
      });
      res.setHeader('Retry-After', String(retryAfter));
      return html(res, 429, page);
    }
    // No account's email holds U+0000 (PostgreSQL text cannot): wrong, not a database error.
    const plausible = email && password && !holdsNul(email);
    const user = plausible ? await this.users.verifyPassword(email, password) : null;
    if (!user) {
      const page = loginPage({
        ...(await this.form(interaction)),
        email,
        error: 'The email or the password is not right.',
      });
      return html(res, 401, page);
    }
    await this.provider.interactionFinished(
      req,
      res,
      { login: { accountId: user.id } },
      { mergeWithLastSubmission: false },
    );
  }

  /**
   * Grants what the client asked for, as far as the user's roles go: scopes beyond them
   * are recorded as rejected (so the request does not come back here for them) and never
   * reach a token.
   */
  private async consent(
    req: IncomingMessage,
    res: ServerResponse,
    interaction: Interaction,
  ): Promise<void> {
    const accountId = interaction.session?.accountId;
    const user = accountId ? await this.users.findById(accountId) : null;
    if (!user) return html(res, 400, errorPage('login_required', 'Sign in again.'));
    const held = new Set<string>(user.roles.flatMap((role) => [...ROLE_PERMISSIONS[role]]));

    const { Grant } = this.provider;
    const clientId = String(interaction.params.client_id);
    const grant =
      (interaction.grantId ? await Grant.find(interaction.grantId) : undefined) ??
      new Grant({ accountId: user.id, clientId });
    const details = interaction.prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    // The permissions are also listed as server-wide scopes, so they show up here as well:
    // granted or refused as for the API below.
    const oidcScopes = details.missingOIDCScope ?? [];
    const oidcRefused = oidcScopes.filter((s) => PERMISSION.test(s) && !held.has(s));
    const oidcGranted = oidcScopes.filter((s) => !oidcRefused.includes(s));
    if (oidcGranted.length > 0) grant.addOIDCScope(oidcGranted);
    if (oidcRefused.length > 0) grant.rejectOIDCScope(oidcRefused);
    if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims);
    for (const [resource, scopes] of Object.entries(details.missingResourceScopes ?? {})) {
      const allowed = scopes.filter((scope) => held.has(scope));
      const refused = scopes.filter((scope) => !held.has(scope));
      if (allowed.length > 0) grant.addResourceScope(resource, allowed);
      if (refused.length > 0) grant.rejectResourceScope(resource, refused);
    }
    const grantId = await grant.save();
    await this.provider.interactionFinished(
      req,
      res,
      { consent: { grantId } },
      { mergeWithLastSubmission: true },
    );
  }

  /**
   * The interaction this browser is in, if it is `uid`: oidc-provider finds it by its
   * cookie (signed, SameSite=Lax, scoped to this path), so a page or post from another
   * site, or another browser, has none.
   */
  private async interaction(
    req: IncomingMessage,
    res: ServerResponse,
    uid: string,
  ): Promise<Interaction | undefined> {
    try {
      const interaction = await this.provider.interactionDetails(req, res);
      if (interaction.uid === uid) return interaction;
    } catch (error) {
      if (oauthUnavailable(error)) throw error;
      // no interaction cookie, or an expired interaction: answered below
    }
    html(
      res,
      400,
      errorPage(
        'invalid_request',
        'This sign-in has expired or belongs to another browser. Start again from the application.',
      ),
    );
    return undefined;
  }

  private async form(interaction: Interaction) {
    const clientId = String(interaction.params.client_id);
    const client = await this.provider.Client.find(clientId);
    return {
      action: `${interactionPath(interaction.uid)}/login`,
      uid: interaction.uid,
      clientName: client?.clientName ?? clientId,
    };
  }
}

/** The sign-in page's answer while the database cannot be reached: 503 with Retry-After. */
export function unavailablePage(res: ServerResponse): void {
  res.setHeader('Retry-After', String(RETRY_AFTER_S));
  html(
    res,
    503,
    errorPage(TEMPORARILY_UNAVAILABLE.error, TEMPORARILY_UNAVAILABLE.error_description),
  );
}

function html(res: ServerResponse, status: number, body: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.end(body);
}

/** An `application/x-www-form-urlencoded` body of at most 16 KiB; null otherwise. */
async function readForm(req: IncomingMessage): Promise<URLSearchParams | null> {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
