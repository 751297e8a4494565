import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  MinLength,
} from 'class-validator';

const toBoolean = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  if (['true', '1', 'on', 'yes'].includes(v)) return true;
  if (['false', '0', 'off', 'no'].includes(v)) return false;
  return value;
};

/**
 * A whole number written in decimal digits, as people write one; `Number` would also
 * take `0x10`, `1e3` and `  ` (0). Anything else stays a string, which @IsInt refuses.
 */
const toInteger = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;

const toList = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : value;

/**
 * An origin as a browser sends it: http or https, a host and maybe a port; no user
 * information, path, query or fragment (a trailing `/` is allowed, and dropped).
 */
const ORIGIN = /^https?:\/\/[^/?#@\s]+\/?$/i;

/**
 * The largest count and the longest span (seconds, a year) a setting may name: beyond
 * them numbers stop being exact, and the stores' expiry times overflow.
 */
const MAX_COUNT = 1_000_000_000_000;
export const MAX_SECONDS = 365 * 24 * 3600;

/** Connections a process opens to DATABASE_URL unless DATABASE_POOL_SIZE says otherwise. */
export const DEFAULT_POOL_SIZE = 10;

/** How long a query may go unanswered before its request is given up as 503 (ms). */
export const DEFAULT_QUERY_TIMEOUT_MS = 10_000;

/**
 * Every environment variable the service reads (API.md §13). Values arrive as strings;
 * the transforms turn them into typed values and the validators reject bad ones, so a
 * wrong setting stops the process at boot with the variable's name.
 */
export class EnvironmentVariables {
  @IsOptional() @IsIn(['development', 'production', 'test']) NODE_ENV: string = 'development';

  @IsOptional() @Transform(toInteger) @IsInt() @Min(0) @Max(65535) PORT: number = 3000;

  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'must be a postgres:// URL' })
  DATABASE_URL?: string;

  /** Connections each process may open to DATABASE_URL (the embedded database uses one). */
  @IsOptional() @Transform(toInteger) @IsInt() @Min(1) @Max(200) DATABASE_POOL_SIZE: number =
    DEFAULT_POOL_SIZE;

  /** Milliseconds a query may go unanswered before it fails (503); migrations have no limit. */
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(600_000)
  DATABASE_QUERY_TIMEOUT_MS: number = DEFAULT_QUERY_TIMEOUT_MS;

  /**
   * Whether the hot paths' statements are prepared once per connection (named statements);
   * off behind a pooler that cannot carry them across its server connections (PgBouncer
   * before 1.21 in transaction mode; docs/operations.md).
   */
  @IsOptional() @Transform(toBoolean) @IsBoolean() DATABASE_PREPARED_STATEMENTS: boolean = true;

  /** Folder of the embedded database used when DATABASE_URL is unset; "memory" keeps nothing. */
  @IsOptional() @IsString() @MinLength(1) EMBEDDED_DB_DIR: string = '.data/pglite';

  @IsOptional()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'must be a redis:// URL' })
  REDIS_URL?: string;

  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'must be at least 16 characters' })
  BOOTSTRAP_API_KEY?: string;

  @IsOptional()
  @Transform(toList)
  @Matches(ORIGIN, {
    each: true,
    message:
      'must be a comma list of origins, scheme and host (and port) only, e.g. https://app.example.com',
  })
  CORS_ORIGINS: string[] = [];

  @IsOptional() @Transform(toInteger) @IsInt() @Min(1) @Max(MAX_COUNT) RATE_LIMIT_PER_HOUR: number =
    1000;

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(MAX_SECONDS)
  RATE_LIMIT_WINDOW_S: number = 3600;

  /** Sign-in attempts at the built-in authorization server per email, per window. */
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(MAX_COUNT)
  SIGN_IN_LIMIT_PER_EMAIL: number = 10;

  /** Sign-in attempts per client IP (an IPv6 /64), per window. */
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(MAX_COUNT)
  SIGN_IN_LIMIT_PER_IP: number = 100;

  @IsOptional() @Transform(toInteger) @IsInt() @Min(1) @Max(MAX_SECONDS) SIGN_IN_WINDOW_S: number =
    900;

  @IsOptional() @IsString() TLS_CERT_FILE?: string;

  @IsOptional() @IsString() TLS_KEY_FILE?: string;

  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  // The service is served at the root of its origin; a path would reach some links only.
  @Matches(ORIGIN, {
    message: 'must be an origin, scheme and host (and port) only, e.g. https://api.example.com',
  })
  PUBLIC_URL?: string;

  @IsOptional() @IsString() AUTH_ISSUERS?: string;

  @IsOptional()
  // each entry at most MAX_SECONDS (AppConfig)
  @Matches(/^\d+(,\d+)*$/, { message: 'must be a comma list of seconds, e.g. 5,300,1800' })
  WEBHOOK_RETRY_SCHEDULE: string = '5,300,1800,7200,18000,36000,36000';

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(MAX_SECONDS)
  WEBHOOK_DISABLE_AFTER_S: number = 432000;

  @IsOptional() @Transform(toBoolean) @IsBoolean() MIGRATIONS_RUN: boolean = true;

  @IsOptional() @Transform(toBoolean) @IsBoolean() WEBHOOK_ALLOW_PRIVATE_URLS: boolean = false;

  @IsOptional()
  @Matches(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/, {
    message: 'must be an ISO 8601 date, e.g. 2027-06-30',
  })
  API_V1_SUNSET?: string;

  @IsOptional() @IsIn(['on', 'off']) WORKER: string = 'on';

  /** `npm run worker` serves GET /metrics on this port; unset: no metrics server. */
  @IsOptional() @Transform(toInteger) @IsInt() @Min(0) @Max(65535) WORKER_METRICS_PORT?: number;

  @IsOptional()
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL: string = 'info';

  /**
   * Which proxies may set X-Forwarded-For/-Proto/-Host (client IP for rate limits, origin
   * of absolute links): `false` (default: none), `true` (any: only behind a proxy that
   * overwrites them), or a comma list of addresses, CIDRs and the names
   * `loopback`, `linklocal`, `uniquelocal`.
   */
  @IsOptional()
  @Matches(/^(true|false|[0-9A-Za-z.:/]+(,\s*[0-9A-Za-z.:/]+)*)$/, {
    message:
      'must be true, false, or a comma list of addresses, CIDRs or loopback/linklocal/uniquelocal',
  })
  TRUST_PROXY: string = 'false';
}
