import http, { IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from '../webhook-endpoints/url-policy';
import { parseRetryAfter } from './retry-schedule';

/** API.md §10: an attempt that has not answered in 10 s has failed. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** What an attempt keeps of the receiver's answer. */
export const RESPONSE_EXCERPT_BYTES = 1024;
export const MAX_ERROR_LENGTH = 500;

export interface WebhookRequest {
  url: URL;
  /** checked addresses of the URL's host: the socket connects to one of them */
  addresses: readonly ResolvedAddress[];
  headers: Record<string, string>;
  body: string;
  timeoutMs?: number;
  /** aborts the attempt (worker shutdown) */
  signal?: AbortSignal;
}

export interface AttemptOutcome {
  /** the receiver's status, null when none came (connection error, time-out) */
  statusCode: number | null;
  /** why no status came, or null */
  error: string | null;
  latencyMs: number;
  /** the first KiB of the answer, as text */
  responseExcerpt: string | null;
  retryAfterSeconds?: number;
  /** the attempt was aborted through `signal` */
  aborted?: boolean;
}

export const succeeded = (outcome: AttemptOutcome): boolean =>
  outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;

/**
 * One POST of a webhook. Redirects are not followed (a 3xx is a failure), nothing of
 * the answer beyond its first KiB is read, and the whole exchange has `timeoutMs`. Only
 * the status counts: one that came in time stands even if the body is still coming
 * when the time is up (the excerpt is what came), and the latency is the time to it. The
 * host is not looked up again: the socket connects to one of `addresses`, which the
 * caller checked, so DNS rebinding cannot redirect the attempt (TLS still verifies the
 * certificate against the URL's host name).
 */
export function sendWebhook(request: WebhookRequest): Promise<AttemptOutcome> {
  const timeoutMs = request.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  const transport = request.url.protocol === 'https:' ? https : http;

  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    /** set once the status came: settles with what came of the body so far */
    let answered: (() => void) | undefined;
    const finish = (outcome: Omit<AttemptOutcome, 'latencyMs'>, latencyMs = latency()) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
      resolve({ ...outcome, latencyMs });
    };
    const fail = (error: string, aborted = false) =>
      finish({
        statusCode: null,
        error: error.slice(0, MAX_ERROR_LENGTH),
        responseExcerpt: null,
        ...(aborted ? { aborted } : {}),
      });

    const outgoing = transport.request(
      request.url,
      {
        method: 'POST',
        headers: {
          ...request.headers,
          'content-length': String(Buffer.byteLength(request.body)),
        },
        lookup: pinnedLookup(request.addresses),
        agent: false,
      },
      (response) => {
        const statusAfter = latency();
        answered = readAnswer(response, (answer) => finish(answer, statusAfter));
      },
    );
    const timer = setTimeout(() => {
      if (answered) answered();
      else fail(`no answer within ${timeoutMs} ms`);
      outgoing.destroy();
    }, timeoutMs);
    const onAbort = () => {
      fail('aborted: the worker is shutting down', true);
      outgoing.destroy();
    };
    if (request.signal?.aborted) return onAbort();
    request.signal?.addEventListener('abort', onAbort, { once: true });
    outgoing.on('error', (error: NodeJS.ErrnoException) =>
      fail(error.code ? `${error.code}: ${error.message}` : error.message),
    );
    outgoing.end(request.body);
  });
}

/**
 * Status, Retry-After and the first KiB of the body; the rest is not read. Returns what
 * settles the answer early, with the body read so far.
 */
function readAnswer(
  response: IncomingMessage,
  done: (answer: Omit<AttemptOutcome, 'latencyMs'>) => void,
): () => void {
  const chunks: Buffer[] = [];
  let length = 0;
  const complete = () => {
    const excerpt = textExcerpt(Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES));
    const retryAfter = response.headers['retry-after'];
    done({
      statusCode: response.statusCode ?? null,
      error: null,
      responseExcerpt: excerpt,
      ...(retryAfter !== undefined
        ? { retryAfterSeconds: parseRetryAfter(retryAfter, new Date()) }
        : {}),
    });
    response.destroy();
  };
  response.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    length += chunk.length;
    if (length >= RESPONSE_EXCERPT_BYTES) complete();
  });
  response.on('end', complete);
  response.on('error', complete);
  return complete;
}

/** UTF-8 text without a character cut in half at the end, and without NULs. */
function textExcerpt(bytes: Buffer): string | null {
  if (bytes.length === 0) return null;
  return bytes
    .toString('utf8')
    .replace(/\uFFFD+$/, '')
    .replaceAll('\u0000', '');
}

/** A `lookup` that answers with the checked addresses instead of asking DNS again. */
function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const usable = family ? addresses.filter((a) => a.family === family) : [...addresses];
    if (usable.length === 0) {
      const error: NodeJS.ErrnoException = new Error(`no checked address for ${hostname}`);
      error.code = 'ENOTFOUND';
      callback(error, '', undefined);
      return;
    }
    if (options.all) callback(null, usable);
    else callback(null, usable[0].address, usable[0].family);
  };
}
