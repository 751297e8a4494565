import { CallHandler, ExecutionContext, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { catchError, from, mergeMap, Observable, of, throwError } from 'rxjs';
import { AppConfig } from '../config/app-config';
import { baseUrl } from '../http/responses/base-url';
import { isErrorCode } from '../http/problems/error-codes';
import { versionEtagOf } from '../http/responses/etag';
import { FieldError, Problem } from '../http/problems/problem';
import { headerFieldCount, headerProblem } from '../http/input/header-fields';
import { toProblem } from '../http/problems/problem-mapping';
import { problemBody } from '../http/problems/problem-response';
import type { OpenTransaction } from '../database/transaction';
import { IdempotencyRecord, IdempotencyRepository, StoredResponse } from './idempotency.repository';
import { requestHash } from './request-hash';
import { SHOWN_ONCE_FIELDS } from './shown-once.decorator';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
export const MAX_KEY_LENGTH = 255;

/** Headers of the first answer that a replay repeats. */
const KEPT_HEADERS = ['Location', 'ETag'] as const;

/** The request holding its key: who, which key, which request, and its open transaction. */
interface Scope {
  principal: string;
  key: string;
  hash: string;
  /** the request's transaction, its key claimed and its work done, until its answer ends it */
  transaction?: OpenTransaction;
}

/** Thrown by the claim inside a request's transaction when the key is not free; rolls it back. */
class KeyTaken extends Error {
  constructor(readonly record: IdempotencyRecord | null) {
    super('the Idempotency-Key is held by another request');
  }
}

/**
 * Idempotency-Key for every POST (API.md §6), in one place. The key is scoped to the
 * caller; the request is identified by method, path and canonical body. The request
 * claims its key as the first statement of its own transaction (`@CommitHook()` hands
 * the hook to the handler, the handler to its service), and a retry while it runs finds
 * the key locked and gets 409 `idempotency_key_in_use`. The transaction is handed back
 * open once the work is done; the answer, 2xx or 4xx, is stored as it commits (sent with
 * the COMMIT, pipeline.ts): the claim, the work and the answer commit together or not at all. A
 * retry with the same body replays the answer with `Idempotent-Replayed: true`, another
 * body is 422 `idempotency_key_reused`. A 5xx stores nothing: its transaction rolled the
 * claim back, so a retry runs afresh. A 4xx from work that rolled back, or from before the
 * transaction, is stored on its own if the key is free.
 *
 * It runs after authentication (the caller is known) and before validation, so a 422
 * for a bad body is an answer like any other.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger('Idempotency');

  constructor(
    private readonly store: IdempotencyRepository,
    private readonly config: AppConfig,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const header = request.headers['idempotency-key'];
    // Bound to POST routes only (@IdempotentPost). Public routes have no caller to scope a
    // key to; they do not take one.
    if (header === undefined || !request.user) return next.handle();

    const scope: Scope = {
      principal: request.user.subject,
      key: validKey(header, request.raw.rawHeaders),
      hash: requestHash(request.method, request.url.split('?')[0], request.body),
    };
    const reply = http.getResponse<FastifyReply>();
    const shownOnce =
      this.reflector.get<string[] | undefined>(SHOWN_ONCE_FIELDS, context.getHandler()) ?? [];
    // Every attempt of the transaction (a deadlock retries it) claims afresh.
    request.commitHook = {
      begin: async (manager) => {
        const claim = await this.store.claim(manager, scope.principal, scope.key, scope.hash);
        if (!claim.mine) throw new KeyTaken(claim.record);
      },
      adopt: (transaction) => {
        scope.transaction = transaction;
      },
    };
    return next.handle().pipe(
      mergeMap(async (body: unknown) => {
        const response = success(reply, withoutFields(body, shownOnce));
        const transaction = takeTransaction(scope);
        if (transaction) await this.commitWith(transaction, scope, response);
        else await this.storeFree(scope, response);
        return body;
      }),
      catchError((error: unknown) => {
        if (error instanceof KeyTaken) return answerFor(reply, scope, error.record);
        return from(this.settleFailure(request, scope, error)).pipe(
          mergeMap((record) =>
            record ? answerFor(reply, scope, record) : throwError(() => error),
          ),
        );
      }),
    );
  }

  /**
   * A 4xx is the request's answer and is stored, with its transaction if it has one,
   * unless another request holds the key by now: then that request's record is returned,
   * to answer as a retry would be. A 5xx is not stored and rolls the transaction back; but
   * a retry of a request whose answer is stored is answered from it even when its own run
   * failed before reaching the claim, if the record can be read.
   */
  private async settleFailure(
    request: FastifyRequest,
    scope: Scope,
    error: unknown,
  ): Promise<IdempotencyRecord | null> {
    const transaction = takeTransaction(scope);
    const problem = toProblem(error);
    if (!problem || problem.status >= 500) {
      await transaction?.rollback().catch(() => undefined);
      const record = await this.store.find(scope.principal, scope.key).catch(() => null);
      return record?.status === 'done' ? record : null;
    }
    const body = problemBody(problem, request, baseUrl(request, this.config.publicUrl));
    const response = { status: problem.status, body, headers: problem.headers ?? {} };
    if (transaction) {
      await this.commitWith(transaction, scope, response).catch((failure: unknown) =>
        this.logger.warn(
          { err: failure, principal: scope.principal },
          'could not store the 4xx answer of an idempotent request; its transaction rolled back',
        ),
      );
      return null;
    }
    if (await this.storeFree(scope, response)) return null;
    return this.store.find(scope.principal, scope.key);
  }

  /** The answer, written with the commit of the request's transaction. */
  private async commitWith(
    transaction: OpenTransaction,
    scope: Scope,
    response: StoredResponse,
  ): Promise<void> {
    try {
      await this.store.complete(transaction.manager, scope.principal, scope.key, response);
    } catch (error) {
      await transaction.rollback().catch(() => undefined);
      throw error;
    }
    await transaction.commit();
  }

  /**
   * The answer of a request that holds no claim, stored if the key is free; false when
   * another request holds it. Nothing of such a request committed (every POST handler
   * hands its hook to the transaction of its work), so an answer that cannot be stored is
   * only logged: a retry runs afresh and comes to the same answer.
   */
  private async storeFree(scope: Scope, response: StoredResponse): Promise<boolean> {
    try {
      return await this.store.answer(scope.principal, scope.key, scope.hash, response);
    } catch (error) {
      this.logger.warn(
        { err: error, principal: scope.principal },
        'could not store the answer of an idempotent request',
      );
      return true;
    }
  }
}

/** The request's open transaction, once: whoever takes it ends it. */
function takeTransaction(scope: Scope): OpenTransaction | undefined {
  const transaction = scope.transaction;
  scope.transaction = undefined;
  return transaction;
}

/**
 * The answer to a request whose key another request holds: that request's stored answer
 * replayed, 422 if it was another request, 409 while it runs (null: its lock is held).
 */
function answerFor(
  reply: FastifyReply,
  scope: Scope,
  record: IdempotencyRecord | null,
): Observable<unknown> {
  if (record && record.requestHash !== scope.hash) {
    throw new Problem(
      'idempotency_key_reused',
      'This Idempotency-Key was used with another request (method, path or body); use a new key for a new request.',
      [{ field: IDEMPOTENCY_KEY_HEADER, message: 'was used with another request' }],
    );
  }
  if (record?.status === 'done' && record.response) return replay(reply, record.response);
  if (record?.answerLost) throw answerLost();
  throw keyInUse();
}

/** `Retry-After` tells the client when to try again: the first request is usually done by then. */
function keyInUse(): Problem {
  return new Problem(
    'idempotency_key_in_use',
    'A request with this Idempotency-Key is still being processed; retry shortly with the same key and body.',
    undefined,
    { 'Retry-After': '1' },
  );
}

/** The rare key whose request committed and whose process died before storing the answer. */
function answerLost(): Problem {
  return new Problem(
    'idempotency_key_in_use',
    'The request with this Idempotency-Key was carried out, but its answer was lost; it will not run again. Look up what it created or changed instead of retrying; the key stays taken until it expires.',
  );
}

/**
 * The key as sent: in one header, 1 to 255 characters. Node joins a header sent twice into
 * one value (`a, b`), which a proxy keeping the first would read as another key, so the
 * raw headers are counted. Node reads header bytes as Latin-1; a key is read as the UTF-8
 * it was sent in, and its length counted in characters (API.md §6).
 */
function validKey(header: string | string[], rawHeaders: string[]): string {
  if (headerFieldCount(rawHeaders, 'idempotency-key') > 1 || Array.isArray(header)) {
    throw keyProblem('must be given once');
  }
  const bytes = Buffer.from(header, 'latin1');
  const key = bytes.toString('utf8');
  if (!Buffer.from(key, 'utf8').equals(bytes)) throw keyProblem('must be UTF-8 text');
  const length = [...key].length;
  if (length < 1 || length > MAX_KEY_LENGTH) {
    throw keyProblem(`must be 1 to ${MAX_KEY_LENGTH} characters`);
  }
  return key;
}

const keyProblem = (message: string) => headerProblem(IDEMPOTENCY_KEY_HEADER, message);

/** The body to store: without the secrets the route shows once (ShownOnce). */
function withoutFields(body: unknown, fields: string[]): unknown {
  if (fields.length === 0 || typeof body !== 'object' || body === null) return body;
  const kept: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const field of fields) delete kept[field];
  return kept;
}

/** A 2xx answer as it will be sent: status, JSON body, Location and ETag. */
function success(reply: FastifyReply, body: unknown): StoredResponse {
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = reply.getHeader(name);
    if (value !== undefined) headers[name] = String(value);
  }
  // The representation hook tags the body after this one has seen it.
  const etag = headers.ETag ?? versionEtagOf(body);
  if (etag !== undefined) headers.ETag = etag;
  return {
    status: reply.statusCode,
    body: body === undefined ? null : body,
    headers,
  };
}

/** Answers with the stored first answer; a stored problem goes through the problem filter. */
function replay(reply: FastifyReply, response: StoredResponse): Observable<unknown> {
  void reply.header(REPLAYED_HEADER, 'true');
  if (response.status >= 400) {
    const body = response.body as { code?: string; detail?: string; errors?: FieldError[] };
    if (body.code && isErrorCode(body.code)) {
      throw new Problem(body.code, body.detail, body.errors, response.headers);
    }
  }
  for (const [name, value] of Object.entries(response.headers)) void reply.header(name, value);
  void reply.status(response.status);
  return of(response.body === null ? undefined : response.body);
}
