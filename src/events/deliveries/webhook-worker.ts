import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { v4 as uuidv4 } from 'uuid';
import { AppConfig } from '../../config/app-config';
import { Metrics } from '../../metrics/metrics';
import { toEventEnvelope } from '../event-envelope';
import type { EventEntity } from '../event.entity';
import { resolveWebhookHost, UrlRefused } from '../webhook-endpoints/url-policy';
import { afterFailure } from './retry-schedule';
import {
  AttemptResult,
  ClaimedDelivery,
  RecordPolicy,
  WebhookDeliveriesRepository,
} from './webhook-deliveries.repository';
import { AttemptOutcome, MAX_ERROR_LENGTH, sendWebhook, succeeded } from './webhook-sender';
import { signatureHeader } from './webhook-signing';

/** How the worker paces itself; the defaults suit production, tests may shorten them. */
export interface WorkerTuning {
  /** events fanned out per round */
  fanOutBatch: number;
  /** deliveries leased per round, at most: a round leases no more than the free slots */
  claimBatch: number;
  /** deliveries sent at once by one worker (its slots) */
  concurrency: number;
  /** how long a lease keeps other workers off; well above the 10 s attempt time-out */
  leaseSeconds: number;
  /** the wait between rounds when nothing is due, cut short when a slot frees */
  pollIntervalMs: number;
  /** on shutdown, how long in-flight attempts may take before they are aborted and released */
  shutdownGraceMs: number;
  /** per attempt (API.md §10: 10 s) */
  attemptTimeoutMs: number;
  /** how often a worker disables endpoints failing for WEBHOOK_DISABLE_AFTER_S, at most */
  failingSweepMs: number;
}

export const DEFAULT_TUNING: WorkerTuning = {
  fanOutBatch: 200,
  claimBatch: 20,
  concurrency: 8,
  leaseSeconds: 60,
  pollIntervalMs: 1000,
  shutdownGraceMs: 12_000,
  attemptTimeoutMs: 10_000,
  failingSweepMs: 1000,
};

export interface RoundSummary {
  /** events turned into deliveries */
  fannedOut: number;
  /** deliveries leased */
  claimed: number;
  /** attempts made and recorded */
  attempted: number;
  succeeded: number;
  /** leases handed back unsent (shutdown) */
  released: number;
}

type Sent = 'succeeded' | 'failed' | 'released' | 'lost';

const USER_AGENT = 'CommerceOperationsAPI-Webhooks/1';

/**
 * The webhook worker (API.md §10, DESIGN.md §4). Each round fans new events out into
 * deliveries, leases as many due ones as it has free slots and starts sending them,
 * outside any transaction, recording each attempt as it ends. The polling loop does not
 * wait for a round's attempts: a slot that frees starts the next round, so a receiver
 * that hangs until the time-out holds one slot and delays no other delivery. Any number
 * of workers, in the API processes (WORKER=on) or alone (`npm run worker`), share the
 * work through the database: a delivery is leased by one worker at a time, so no attempt
 * is ever sent twice at once. Delivery is at least once: a worker that dies mid-attempt
 * leaves a lease that runs out, and the delivery is sent again.
 */
@Injectable()
export class WebhookWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('WebhookWorker');
  private tuning: WorkerTuning = DEFAULT_TUNING;
  private loop: Promise<void> | undefined;
  private stopping = false;
  private wake: (() => void) | undefined;
  /** a wake-up that came while the loop was not pausing, for its next pause */
  private woken = false;
  /** aborts the attempts in flight when the shutdown grace runs out */
  private readonly inFlight = new Set<AbortController>();
  /** deliveries leased and not yet recorded or released: each holds a slot */
  private readonly sending = new Set<Promise<Sent>>();
  /** slots held for leases being taken, so rounds at once never exceed `concurrency` */
  private claiming = 0;
  /** when this worker last looked for endpoints failing too long (Date.now()) */
  private lastFailingSweep = 0;
  /** rounds under way from direct runOnce() calls, with their attempts */
  private readonly rounds = new Set<Promise<RoundSummary>>();

  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.worker) this.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  /** Changes the pacing (tests); takes effect from the next round. */
  tune(changes: Partial<WorkerTuning>): void {
    this.tuning = { ...this.tuning, ...changes };
  }

  get running(): boolean {
    return this.loop !== undefined;
  }

  /** Starts polling: a round whenever a slot frees or new work may wait, else one per interval. */
  start(): void {
    if (this.loop) return;
    this.stopping = false;
    this.logger.log('started');
    this.loop = this.poll().finally(() => (this.loop = undefined));
  }

  /**
   * Graceful stop: no new round or attempt starts, leased deliveries not yet sent are
   * released at once, attempts in flight may finish (and are recorded) within the grace
   * period; those still running then are aborted and released, to be sent again by
   * another worker. Waits for all of it.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.nudge();
    const abort = setTimeout(() => {
      for (const controller of this.inFlight) controller.abort();
    }, this.tuning.shutdownGraceMs);
    try {
      await Promise.allSettled([this.loop, ...this.rounds]);
    } finally {
      clearTimeout(abort);
    }
  }

  /**
   * One round that waits for its own attempts: fan out, lease, send, record. Safe to call
   * from several workers (or several times at once); tests with WORKER=off drive delivery
   * with it.
   */
  async runOnce(): Promise<RoundSummary> {
    const round = (async () => {
      const { fannedOut, sends } = await this.round();
      const sent = await Promise.all(sends);
      const count = (outcome: Sent) => sent.filter((s) => s === outcome).length;
      return {
        fannedOut,
        claimed: sends.length,
        attempted: count('succeeded') + count('failed'),
        succeeded: count('succeeded'),
        released: count('released'),
      };
    })();
    this.rounds.add(round);
    try {
      return await round;
    } finally {
      this.rounds.delete(round);
    }
  }

  /**
   * Disables endpoints failing too long, fans out, leases due deliveries for the free
   * slots and starts sending them.
   */
  private async round(): Promise<{ fannedOut: number; sends: Promise<Sent>[] }> {
    const { fanOutBatch, claimBatch, leaseSeconds, concurrency } = this.tuning;
    await this.disableFailingEndpoints();
    const fannedOut = await this.deliveries.fanOut(fanOutBatch);
    const free = Math.min(claimBatch, concurrency - this.sending.size - this.claiming);
    if (this.stopping || free <= 0) return { fannedOut, sends: [] };
    this.claiming += free;
    let claimed: ClaimedDelivery[];
    try {
      claimed = await this.deliveries.claimDue(free, leaseSeconds, uuidv4());
    } finally {
      this.claiming -= free;
    }
    for (const { id, attemptCount } of claimed.filter((claim) => claim.tookOverLostLease)) {
      this.logger.warn(
        `delivery ${id}: attempt ${attemptCount}'s lease ran out without an outcome; logged as unknown, sending again`,
      );
    }
    return { fannedOut, sends: claimed.map((claim) => this.send(claim)) };
  }

  /**
   * An endpoint is disabled once all its attempts have failed for WEBHOOK_DISABLE_AFTER_S
   * (API.md §10), checked here at most once per `failingSweepMs` rather than after a
   * failed attempt: the streak can outlast the endpoint's last retry.
   */
  private async disableFailingEndpoints(): Promise<void> {
    const now = Date.now();
    if (now - this.lastFailingSweep < this.tuning.failingSweepMs) return;
    this.lastFailingSweep = now;
    const seconds = this.config.webhookDisableAfterSeconds;
    for (const id of await this.deliveries.disableFailingEndpoints(seconds)) {
      this.logger.warn(`endpoint ${id} disabled: every attempt failed for ${seconds} s or more`);
    }
  }

  private async poll(): Promise<void> {
    while (!this.stopping) {
      let more = false;
      try {
        const { fannedOut, sends } = await this.round();
        // Straight on while work may wait and there is room for it: a full batch of
        // events, or leases taken with slots still free. Otherwise the pause ends when a
        // slot frees (its attempt recorded) or after the interval.
        more =
          fannedOut === this.tuning.fanOutBatch ||
          (sends.length > 0 && this.sending.size < this.tuning.concurrency);
      } catch (error) {
        this.logger.error(`round failed: ${(error as Error).message}`, (error as Error).stack);
      }
      if (!more && !this.stopping) await this.pause(this.tuning.pollIntervalMs);
    }
    await Promise.all(this.sending);
    this.logger.log('stopped');
  }

  private pause(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wake?.(), ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
    });
  }

  private nudge(): void {
    if (this.wake) this.wake();
    else this.woken = true;
  }

  /** Sends a leased delivery, which holds a slot until it is recorded or released. */
  private send(claim: ClaimedDelivery): Promise<Sent> {
    const sending = (async (): Promise<Sent> => {
      try {
        // stop() came while the lease was being taken: nothing new starts
        const sent = this.stopping ? 'released' : await this.deliver(claim);
        if (sent === 'released') await this.deliveries.release([claim.id], claim.leaseToken);
        return sent;
      } catch (error) {
        // The polling loop awaits no send, so none may reject. The lease runs out and
        // another round sends the delivery: at least once.
        this.logger.error(
          `delivery ${claim.id}: ${(error as Error).message}`,
          (error as Error).stack,
        );
        return 'lost';
      }
    })().finally(() => {
      this.sending.delete(sending);
      this.nudge();
    });
    this.sending.add(sending);
    return sending;
  }

  /** One attempt of one leased delivery: check the address, sign, send, record. */
  private async deliver(claim: ClaimedDelivery): Promise<Sent> {
    const at = new Date();
    let outcome: AttemptOutcome;
    try {
      outcome = await this.attempt(claim, at);
    } catch (error) {
      // e.g. a stored secret that no longer decodes: a failed attempt like any other
      outcome = {
        statusCode: null,
        error: `not sent: ${(error as Error).message}`.slice(0, MAX_ERROR_LENGTH),
        latencyMs: 0,
        responseExcerpt: null,
      };
    }
    if (outcome.aborted) return 'released';
    const ok = succeeded(outcome);
    try {
      const recorded = await this.deliveries.recordAttempt(
        claim,
        { at, succeeded: ok, ...outcomeColumns(outcome) },
        this.recordPolicy(outcome),
      );
      if (!recorded) {
        this.metrics.recordWebhookDelivery('lost');
        this.logger.warn(`delivery ${claim.id}: lease lost before the attempt was recorded`);
        return 'lost';
      }
      this.metrics.recordWebhookDelivery(recorded.result.status);
      if (recorded.endpointDisabled) {
        this.logger.warn(
          `endpoint ${claim.endpointId} disabled after attempt ${recorded.attemptNo} of delivery ${claim.id}`,
        );
      }
    } catch (error) {
      // The lease runs out and another round sends it again: at least once.
      this.logger.error(
        `delivery ${claim.id}: attempt not recorded: ${(error as Error).message}`,
        (error as Error).stack,
      );
      this.metrics.recordWebhookDelivery('lost');
      return 'lost';
    }
    return ok ? 'succeeded' : 'failed';
  }

  private async attempt(claim: ClaimedDelivery, at: Date): Promise<AttemptOutcome> {
    const url = new URL(claim.url);
    let addresses;
    try {
      // Checked again for every attempt: the DNS answer may have changed since the
      // endpoint was registered (rebinding); the socket connects to what passed.
      addresses = await resolveWebhookHost(url, {
        requireHttps: false,
        allowPrivate: this.config.webhookAllowPrivateUrls,
      });
    } catch (error) {
      if (!(error instanceof UrlRefused)) throw error;
      return {
        statusCode: null,
        error: `not sent: url ${error.message}`.slice(0, MAX_ERROR_LENGTH),
        latencyMs: 0,
        responseExcerpt: null,
      };
    }
    const body = webhookBody(claim.event);
    const controller = new AbortController();
    this.inFlight.add(controller);
    try {
      return await sendWebhook({
        url,
        addresses,
        body,
        timeoutMs: this.tuning.attemptTimeoutMs,
        signal: controller.signal,
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          'webhook-id': claim.event.id,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': signatureHeader(claim.secrets, claim.event.id, at, body),
        },
      });
    } finally {
      this.inFlight.delete(controller);
    }
  }

  /** How the state after this attempt is decided, under the delivery's row lock. */
  private recordPolicy(outcome: AttemptOutcome): RecordPolicy {
    const schedule = this.config.webhookRetryScheduleSeconds;
    return {
      decide: ({ status, attemptNo, scheduleStart }): AttemptResult => {
        if (succeeded(outcome)) return { status: 'succeeded' };
        // 410 Gone: the receiver asks never to be called again
        if (outcome.statusCode === 410) return { status: 'dead', disable: 'gone' };
        // the endpoint was disabled while this attempt was in flight
        if (status === 'dead') return { status: 'dead' };
        const next = afterFailure(schedule, attemptNo - scheduleStart, outcome.retryAfterSeconds);
        return next.retry
          ? { status: 'failed', retryInSeconds: next.delaySeconds }
          : { status: 'dead' };
      },
    };
  }
}

/** The signed body: the event as /events shows it, serialised once. */
export function webhookBody(
  event: Pick<EventEntity, 'id' | 'type' | 'createdAt' | 'payload'>,
): string {
  return JSON.stringify(toEventEnvelope(event as EventEntity));
}

function outcomeColumns(outcome: AttemptOutcome) {
  return {
    statusCode: outcome.statusCode,
    error: outcome.error,
    latencyMs: outcome.latencyMs,
    responseExcerpt: outcome.responseExcerpt,
  };
}
