import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppOptions, createApp } from '../../src/app.factory';
import { AppConfig } from '../../src/config/app-config';
import type { DatabaseTarget } from '../../src/database/data-source-options';
import { OpenApiRegistry } from '../../src/docs/openapi/openapi-registry';
import { OpenApiConformance } from './openapi-conformance';
import { createTestDatabase, TestDatabase } from './test-database';

export const ADMIN_KEY = 'test-admin-key-0123456789';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** sent as is, not JSON-encoded */
  rawBody?: string;
  headers?: Record<string, string>;
  /** false: send no X-API-Key */
  auth?: boolean;
}

export interface TestApp {
  app: NestFastifyApplication;
  baseUrl: string;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  get<T = any>(path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  post<T = any>(path: string, body: unknown, options?: RequestOptions): Promise<ApiResponse<T>>;
  close(): Promise<void>;
}

/**
 * The whole app, booted in-process on a database of this test file's own and listening
 * on a loopback port; tests speak real HTTP to it, as a client would.
 */
export async function startTestApp(
  env: Record<string, string> = {},
  options: AppOptions = {},
): Promise<TestApp> {
  const database: TestDatabase = await createTestDatabase();
  let api: TestApp;
  try {
    api = await startTestAppOn(database.target, env, options);
  } catch (error) {
    await database.drop();
    throw error;
  }
  return {
    ...api,
    async close() {
      await api.close();
      await database.drop();
    },
  };
}

/**
 * The app on a database someone else owns (support/shared-database-apps.ts starts
 * several on one); `close()` stops the app and leaves the database alone.
 */
export async function startTestAppOn(
  target: DatabaseTarget,
  env: Record<string, string> = {},
  options: AppOptions = {},
): Promise<TestApp> {
  const config = AppConfig.fromEnvironment({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    BOOTSTRAP_API_KEY: ADMIN_KEY,
    WORKER: 'off',
    // test clients stand in for a proxy on this host (rate-limit tests send X-Forwarded-For)
    TRUST_PROXY: 'loopback',
    ...env,
  });
  const app = await createApp(config, target, options);
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
  } catch (error) {
    await app.close();
    throw error;
  }
  const address = app.getHttpServer().address() as { port: number };
  const baseUrl = `http://127.0.0.1:${address.port}`;

  let conformance: OpenApiConformance | undefined;
  const request = async <T>(method: string, path: string, options: RequestOptions = {}) => {
    const headers: Record<string, string> = {
      ...(options.auth === false ? {} : { 'X-API-Key': ADMIN_KEY }),
      ...(options.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      ...options.headers,
    };
    const body =
      options.rawBody ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined);
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    if (/json/.test(response.headers.get('content-type') ?? '') && text) parsed = JSON.parse(text);
    const answer = { status: response.status, headers: response.headers, body: parsed as T, text };
    conformance ??= new OpenApiConformance(app.get(OpenApiRegistry).get());
    const problems = conformance.problems({ method, path, ...answer });
    if (problems.length > 0) {
      throw new Error(`The answer does not match the OpenAPI document:\n${problems.join('\n')}`);
    }
    return answer;
  };

  return {
    app,
    baseUrl,
    request,
    get: (path, options) => request('GET', path, options),
    post: (path, body, options) => request('POST', path, { ...options, body }),
    close: () => app.close(),
  };
}
