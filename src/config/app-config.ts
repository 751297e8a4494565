// class-transformer and class-validator read decorator metadata; scripts load this file
// without Nest, which would otherwise import reflect-metadata first.
import 'reflect-metadata';
import { isIP } from 'node:net';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { parseAuthIssuers, TrustedIssuerConfig } from './auth-issuers';
import { EnvironmentVariables, MAX_SECONDS } from './environment';
import { readTlsFiles, type TlsFiles } from './tls-files';

/**
 * A setting that stops the process at boot. Each problem is a line `NAME: what is wrong`,
 * under one heading, so every such message reads alike whoever finds the problem.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';

  constructor(...problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
}

/** The typed, validated configuration every module reads; built once from the environment. */
export class AppConfig {
  readonly env: 'development' | 'production' | 'test';
  readonly port: number;
  readonly databaseUrl: string | undefined;
  readonly databasePoolSize: number;
  readonly databaseQueryTimeoutMs: number;
  /** the hot paths' statements prepared once per connection (DATABASE_PREPARED_STATEMENTS) */
  readonly databasePreparedStatements: boolean;
  readonly embeddedDbDir: string;
  readonly redisUrl: string | undefined;
  readonly bootstrapApiKey: string | undefined;
  readonly corsOrigins: readonly string[];
  readonly rateLimit: { readonly limit: number; readonly windowSeconds: number };
  /** attempts at the sign-in form, per email and per client IP, in fixed windows */
  readonly signInLimit: {
    readonly perEmail: number;
    readonly perIp: number;
    readonly windowSeconds: number;
  };
  /** the certificate and key, read and checked at start-up; undefined: plain HTTP */
  readonly tls: TlsFiles | undefined;
  readonly publicUrl: string | undefined;
  /** external issuers whose JWT access tokens are trusted (AUTH_ISSUERS) */
  readonly authIssuers: readonly TrustedIssuerConfig[];
  readonly webhookRetryScheduleSeconds: readonly number[];
  readonly webhookDisableAfterSeconds: number;
  readonly migrationsRun: boolean;
  readonly webhookAllowPrivateUrls: boolean;
  readonly apiV1Sunset: Date | undefined;
  readonly worker: boolean;
  /** where `npm run worker` serves /metrics (WORKER_METRICS_PORT); undefined: nowhere */
  readonly workerMetricsPort: number | undefined;
  readonly logLevel: string;
  /** Fastify's `trustProxy`: which peers' X-Forwarded-* headers are believed. */
  readonly trustProxy: boolean | string[];

  constructor(vars: EnvironmentVariables) {
    this.env = vars.NODE_ENV as AppConfig['env'];
    this.port = vars.PORT;
    this.databaseUrl = vars.DATABASE_URL;
    this.databasePoolSize = vars.DATABASE_POOL_SIZE;
    this.databaseQueryTimeoutMs = vars.DATABASE_QUERY_TIMEOUT_MS;
    this.databasePreparedStatements = vars.DATABASE_PREPARED_STATEMENTS;
    this.embeddedDbDir = vars.EMBEDDED_DB_DIR;
    this.redisUrl = vars.REDIS_URL;
    this.bootstrapApiKey = vars.BOOTSTRAP_API_KEY;
    this.corsOrigins = vars.CORS_ORIGINS;
    this.rateLimit = { limit: vars.RATE_LIMIT_PER_HOUR, windowSeconds: vars.RATE_LIMIT_WINDOW_S };
    this.signInLimit = {
      perEmail: vars.SIGN_IN_LIMIT_PER_EMAIL,
      perIp: vars.SIGN_IN_LIMIT_PER_IP,
      windowSeconds: vars.SIGN_IN_WINDOW_S,
    };
    this.publicUrl = vars.PUBLIC_URL?.replace(/\/+$/, '');
    this.webhookRetryScheduleSeconds = AppConfig.scheduleFrom(vars.WEBHOOK_RETRY_SCHEDULE);
    this.webhookDisableAfterSeconds = vars.WEBHOOK_DISABLE_AFTER_S;
    this.migrationsRun = vars.MIGRATIONS_RUN;
    this.webhookAllowPrivateUrls = vars.WEBHOOK_ALLOW_PRIVATE_URLS;
    this.worker = vars.WORKER === 'on';
    this.workerMetricsPort = vars.WORKER_METRICS_PORT;
    this.logLevel = vars.LOG_LEVEL;
    this.trustProxy = AppConfig.trustProxyFrom(vars.TRUST_PROXY);
    this.tls = AppConfig.tlsFrom(vars);
    this.apiV1Sunset = AppConfig.dateFrom('API_V1_SUNSET', vars.API_V1_SUNSET);
    this.authIssuers = AppConfig.issuersFrom(vars.AUTH_ISSUERS);
  }

  /**
   * Reads and validates `env`; throws a ConfigError naming the bad variables: every
   * field-level problem at once, then the first cross-field one (TLS pair, dates, issuers).
   */
  static fromEnvironment(env: NodeJS.ProcessEnv = process.env): AppConfig {
    const raw = Object.fromEntries(
      Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
    );
    const vars = plainToInstance(EnvironmentVariables, raw, { exposeDefaultValues: true });
    const problems = validateSync(vars, { skipMissingProperties: false });
    if (problems.length > 0) {
      const lines = problems.map((p) => `${p.property}: ${rulesBroken(p.constraints ?? {})}`);
      throw new ConfigError(...lines);
    }
    return new AppConfig(vars);
  }

  private static trustProxyFrom(value: string): AppConfig['trustProxy'] {
    if (value === 'true' || value === 'false') return value === 'true';
    const parts = value.split(',').map((part) => part.trim());
    const named = ['loopback', 'linklocal', 'uniquelocal'];
    const valid = (part: string) => {
      const [address, bits, extra] = part.split('/');
      return (
        named.includes(part) ||
        (isIP(address) !== 0 &&
          extra === undefined &&
          (bits === undefined || /^\d{1,3}$/.test(bits)))
      );
    };
    const bad = parts.find((part) => !valid(part));
    if (bad !== undefined) {
      throw new ConfigError(`TRUST_PROXY: "${bad}" is not an address, CIDR or known name`);
    }
    return parts;
  }

  private static tlsFrom(vars: EnvironmentVariables): AppConfig['tls'] {
    if (!vars.TLS_CERT_FILE && !vars.TLS_KEY_FILE) return undefined;
    if (!vars.TLS_CERT_FILE || !vars.TLS_KEY_FILE) {
      const missing = vars.TLS_CERT_FILE ? 'TLS_KEY_FILE' : 'TLS_CERT_FILE';
      throw new ConfigError(`${missing}: must be set with its pair`);
    }
    const files = readTlsFiles(vars.TLS_CERT_FILE, vars.TLS_KEY_FILE);
    if ('problems' in files) throw new ConfigError(...files.problems);
    return files;
  }

  private static scheduleFrom(value: string): number[] {
    const seconds = value.split(',').map(Number);
    if (seconds.some((wait) => wait > MAX_SECONDS)) {
      throw new ConfigError(
        `WEBHOOK_RETRY_SCHEDULE: no wait may be longer than ${MAX_SECONDS} s (a year)`,
      );
    }
    return seconds;
  }

  private static dateFrom(name: string, value: string | undefined): Date | undefined {
    if (value === undefined) return undefined;
    const date = new Date(value);
    // Date rolls 2027-02-30 over to March 2; the calendar day must exist as written.
    const [year, month, day] = value.slice(0, 10).split('-').map(Number);
    const calendarDay = new Date(Date.UTC(year, month - 1, day));
    if (
      Number.isNaN(date.getTime()) ||
      calendarDay.getUTCMonth() !== month - 1 ||
      calendarDay.getUTCDate() !== day
    ) {
      throw new ConfigError(`${name}: is not a valid date`);
    }
    return date;
  }

  private static issuersFrom(value: string | undefined): TrustedIssuerConfig[] {
    const result = parseAuthIssuers(value);
    if ('problems' in result) {
      throw new ConfigError(...result.problems);
    }
    return result.issuers;
  }
}

/**
 * What a variable's value breaks. A value that is not a whole number (`PORT=abc`) breaks
 * every range rule too; saying only that it is not an integer says what to fix.
 */
function rulesBroken(constraints: Record<string, string>): string {
  return constraints.isInt ?? Object.values(constraints).join('; ');
}
