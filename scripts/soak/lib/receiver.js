// The soak test's webhook receiver: a real node:https server (plain node:http when no
// certificate could be made) that verifies every delivery with `standardwebhooks`, as a
// receiver in production would, and answers 204; while `failing` is on it answers 500 and
// 503 alternately, so deliveries fail and are retried.
const fs = require('node:fs');
const http = require('node:http');
const https = require('node:https');
const { Webhook } = require('standardwebhooks');

class WebhookReceiver {
  constructor({ tls }) {
    this.tls = tls;
    this.secret = undefined;
    this.failing = false;
    this.requests = 0;
    this.failedAnswers = 0;
    this.badSignatures = 0;
    this.badSignatureSamples = [];
    /** event id -> { type, ok (2xx answers), failed (non-2xx answers), firstOkAt } */
    this.events = new Map();
    const handler = (request, response) => this.handle(request, response);
    this.server = tls
      ? https.createServer(
          { key: fs.readFileSync(tls.keyFile), cert: fs.readFileSync(tls.certFile) },
          handler,
        )
      : http.createServer(handler);
    // Keep-alive is not used by the sender (agent: false); close idle sockets promptly.
    this.server.keepAliveTimeout = 1000;
  }

  async start() {
    await new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = this.server.address().port;
  }

  url(path = '/soak/webhooks') {
    return `${this.tls ? 'https' : 'http'}://127.0.0.1:${this.port}${path}`;
  }

  handle(request, response) {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      this.requests += 1;
      const body = Buffer.concat(chunks).toString('utf8');
      let event;
      try {
        if (!this.secret) throw new Error('no secret yet');
        event = new Webhook(this.secret).verify(body, request.headers);
      } catch (error) {
        this.badSignatures += 1;
        if (this.badSignatureSamples.length < 5) {
          this.badSignatureSamples.push({
            error: error instanceof Error ? error.message : String(error),
            webhookId: request.headers['webhook-id'],
          });
        }
        response.writeHead(400).end();
        return;
      }
      const id = request.headers['webhook-id'];
      let entry = this.events.get(id);
      if (!entry) {
        entry = { type: event.type, ok: 0, failed: 0, firstOkAt: null, bodyIdMatches: true };
        this.events.set(id, entry);
      }
      // webhook-id is the event id (docs/webhooks.md): the body must say the same
      if (event.id !== id) entry.bodyIdMatches = false;
      if (this.failing) {
        entry.failed += 1;
        this.failedAnswers += 1;
        const status = this.failedAnswers % 2 === 0 ? 500 : 503;
        response
          .writeHead(status, { 'content-type': 'text/plain' })
          .end('soak: failing on purpose');
        return;
      }
      entry.ok += 1;
      if (!entry.firstOkAt) entry.firstOkAt = Date.now();
      response.writeHead(204).end();
    });
  }

  /** Ids delivered (a 2xx answer) at least once. */
  deliveredIds() {
    const ids = new Set();
    for (const [id, entry] of this.events) if (entry.ok > 0) ids.add(id);
    return ids;
  }

  stats() {
    let delivered = 0;
    let duplicates = 0;
    let extraCopies = 0;
    let retriedThenDelivered = 0;
    for (const entry of this.events.values()) {
      if (entry.ok > 0) delivered += 1;
      if (entry.ok > 1) {
        duplicates += 1;
        extraCopies += entry.ok - 1;
      }
      if (entry.ok > 0 && entry.failed > 0) retriedThenDelivered += 1;
    }
    return {
      requests: this.requests,
      distinctEvents: this.events.size,
      delivered,
      failedAnswersOnPurpose: this.failedAnswers,
      eventsRetriedThenDelivered: retriedThenDelivered,
      eventsDeliveredMoreThanOnce: duplicates,
      extraCopies,
      badSignatures: this.badSignatures,
      badSignatureSamples: this.badSignatureSamples,
    };
  }

  async close() {
    this.server.closeAllConnections?.();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

module.exports = { WebhookReceiver };
