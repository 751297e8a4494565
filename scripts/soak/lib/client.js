// An HTTP client for the soak test's loops: spreads requests over the API instances, times
// each one and records it, so every answer can later be judged by the phase it fell in.
const { randomUUID } = require('node:crypto');
const { elapsed, sleep } = require('./util');

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** Every request made, one compact entry each. */
class Recorder {
  constructor() {
    this.entries = [];
  }

  add(entry) {
    this.entries.push(entry);
  }
}

/** `GET /api/v1/orders/0190…?limit=5` -> `GET /api/v1/orders/:id` */
function routeLabel(method, path) {
  const bare = path.split('?')[0].replace(UUID, ':id');
  return `${method} ${bare.replace(/\/inventory\/(?!:id)[^/]+/, '/inventory/:sku')}`;
}

class Api {
  /**
   * @param bases the API instances' base URLs; requests go round-robin over them
   * @param key the X-API-Key of this caller
   */
  constructor({ bases, key, recorder, loop, timeoutMs = 10_000 }) {
    this.bases = bases;
    this.key = key;
    this.recorder = recorder;
    this.loop = loop;
    this.timeoutMs = timeoutMs;
    this.next = Math.floor(Math.random() * bases.length);
  }

  /**
   * One request. Never throws: a network error or a time-out is `status: 0` with `error`.
   * `instance` pins the request to one API instance (index into bases).
   */
  async request(method, path, { body, headers = {}, idempotencyKey, instance } = {}) {
    const index = instance ?? this.next++ % this.bases.length;
    const url = path.startsWith('http') ? path : this.bases[index] + path;
    const sent = { ...headers };
    if (this.key) sent['x-api-key'] = this.key;
    if (body !== undefined) sent['content-type'] = 'application/json';
    if (idempotencyKey) sent['idempotency-key'] = idempotencyKey;
    const t0 = elapsed();
    const started = performance.now();
    let status = 0;
    let responseHeaders = new Headers();
    let text = '';
    let error = null;
    try {
      const response = await fetch(url, {
        method,
        headers: sent,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      status = response.status;
      responseHeaders = response.headers;
      text = await response.text();
    } catch (e) {
      error = e instanceof Error ? `${e.name}: ${e.cause?.code ?? e.message}` : String(e);
    }
    const ms = performance.now() - started;
    let json = null;
    if (text) {
      try {
        json = JSON.parse(text);
      } catch {
        json = null;
      }
    }
    const contentType = responseHeaders.get('content-type') ?? '';
    const entry = {
      t0,
      t1: t0 + ms,
      loop: this.loop,
      route: routeLabel(method, path.replace(/^https?:\/\/[^/]+/, '')),
      instance: index,
      status,
      ms: Math.round(ms * 10) / 10,
      problem: contentType.startsWith('application/problem+json'),
      code: status >= 400 && json && typeof json.code === 'string' ? json.code : null,
      retryAfter: responseHeaders.get('retry-after'),
      replayed: responseHeaders.get('idempotent-replayed') === 'true',
      error,
    };
    this.recorder.add(entry);
    return { status, headers: responseHeaders, body: json, text, ms, error, entry };
  }

  get(path, options) {
    return this.request('GET', path, options);
  }
}

/** The statuses after which a create with the same Idempotency-Key is sent again. */
function retryable(response) {
  return (
    response.status === 0 ||
    response.status === 502 ||
    response.status === 503 ||
    response.status === 500 ||
    response.status === 429 ||
    (response.status === 409 && response.body?.code === 'idempotency_key_in_use')
  );
}

/** How long to wait before a retry: Retry-After, capped so the soak keeps its pace. */
function retryDelayMs(response, attempt) {
  const hinted = Number(response.headers.get('retry-after'));
  const base = Number.isFinite(hinted) && hinted > 0 ? hinted * 1000 : 250 * 2 ** attempt;
  return Math.min(2000, Math.max(200, base)) * (0.75 + Math.random() * 0.5);
}

/**
 * POST with an Idempotency-Key, retried with the same key and body on a network error,
 * 5xx, 429 or 409 idempotency_key_in_use until `deadlineMs` (absolute, Date.now()).
 * Returns the final response and how many attempts it took; `response.status === 0`
 * after the deadline means the outcome stayed unknown.
 */
async function postIdempotent(api, path, body, { deadlineMs, key = randomUUID() } = {}) {
  let attempt = 0;
  for (;;) {
    attempt += 1;
    const response = await api.request('POST', path, { body, idempotencyKey: key });
    if (!retryable(response) || Date.now() >= deadlineMs) {
      return { response, attempts: attempt, key };
    }
    await sleep(retryDelayMs(response, attempt));
  }
}

module.exports = { Api, Recorder, postIdempotent, retryable, retryDelayMs, routeLabel };
