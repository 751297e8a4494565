import {
  createServer,
  IncomingHttpHeaders,
  IncomingMessage,
  Server,
  ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Receipt {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
  /** when the request had arrived whole (Date.now()) */
  at: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** wait this long before answering */
  delayMs?: number;
}

/** How a path answers its n-th request (n from 1). */
export type Script = (receipt: Receipt, n: number) => Answer;

/**
 * A real webhook receiver on 127.0.0.1 (DESIGN.md §7): every request is kept, and each
 * path answers as its script says (204 by default). Tests verify signatures with the
 * `standardwebhooks` library, as a real receiver would.
 */
export class WebhookReceiver {
  private readonly received: Receipt[] = [];
  private readonly scripts = new Map<string, Script>();
  private readonly timers = new Set<NodeJS.Timeout>();

  private readonly server: Server;
  private listeningOn = 0;

  private constructor() {
    this.server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => this.answer(request, response, body));
    });
  }

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    receiver.listeningOn = (receiver.server.address() as AddressInfo).port;
    return receiver;
  }

  get port(): number {
    return this.listeningOn;
  }

  private answer(request: IncomingMessage, response: ServerResponse, body: string): void {
    const path = (request.url ?? '/').split('?')[0];
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      json = undefined;
    }
    const receipt: Receipt = { path, headers: request.headers, body, json, at: Date.now() };
    this.received.push(receipt);
    const n = this.receipts(path).length;
    const answer: Answer = (this.scripts.get(path) ?? (() => ({ status: 204 })))(receipt, n);
    const send = () => {
      if (!response.destroyed) response.writeHead(answer.status, answer.headers).end(answer.body);
    };
    if (!answer.delayMs) return send();
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      send();
    }, answer.delayMs);
    this.timers.add(timer);
  }

  /** The absolute URL of `path` on this receiver. */
  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  script(path: string, script: Script): void {
    this.scripts.set(path, script);
  }

  receipts(path: string): Receipt[] {
    return this.received.filter((r) => r.path === path);
  }

  /** The payload if `receipt` is signed with `secret` (standardwebhooks' Webhook.verify); throws otherwise. */
  static verify(receipt: Receipt, secret: string): unknown {
    return new Webhook(secret).verify(receipt.body, receipt.headers as Record<string, string>);
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
