import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { AppConfig } from '../../config/app-config';
import { CommitHook, inTransaction } from '../../database/transaction';
import { ConflictProblem, NotFoundProblem, ValidationProblem } from '../../http/problems/problem';
import { Page } from '../../http/pagination/page';
import type { PageRequest } from '../../http/pagination/paginate';
import {
  DeliveryFilters,
  WebhookDeliveriesRepository,
} from '../deliveries/webhook-deliveries.repository';
import type { WebhookDeliveryEntity } from '../deliveries/webhook-delivery.entity';
import { newWebhookSecret } from '../deliveries/webhook-signing';
import { parseWebhookUrl, resolveWebhookHost, UrlPolicy, UrlRefused } from './url-policy';
import type { WebhookEndpointEntity } from './webhook-endpoint.entity';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { TRANSACTION_TIME } from '../../database/transaction-time';

/** How long the secret before a rotation keeps signing next to the new one. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export interface WebhookEndpointInput {
  url: string;
  events: string[];
  description?: string | null;
}

export interface WebhookEndpointPatch {
  url?: string;
  events?: string[];
  description?: string | null;
  enabled?: boolean;
}

/**
 * Webhook endpoint use cases (admin only): registration with an SSRF-checked URL and a
 * secret shown once, changes, deletion, secret rotation, and the delivery log with
 * manual retries.
 */
@Injectable()
export class WebhookEndpointsService {
  constructor(
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  list(page: PageRequest): Promise<Page<WebhookEndpointEntity>> {
    return this.endpoints.list(page);
  }

  async get(id: string): Promise<WebhookEndpointEntity> {
    return (await this.endpoints.findById(id)) ?? notFound(id);
  }

  async create(
    input: WebhookEndpointInput,
    commitHook?: CommitHook,
  ): Promise<WebhookEndpointEntity> {
    await this.checkUrl(input.url);
    return inTransaction(
      this.dataSource,
      (manager) =>
        this.endpoints.insert(manager, {
          id: uuidv7(),
          url: input.url,
          description: input.description ?? null,
          eventTypes: input.events,
          secret: newWebhookSecret(),
        }),
      commitHook,
    );
  }

  /**
   * PATCH. Disabling makes the outstanding deliveries dead; enabling clears the reason
   * and the failing streak, and events from then on are delivered.
   */
  async update(
    id: string,
    patch: WebhookEndpointPatch,
    expectedVersions?: number[],
  ): Promise<WebhookEndpointEntity> {
    // Resolved before the row is locked: DNS can be slow.
    if (patch.url !== undefined) await this.checkUrl(patch.url);
    const updated = await inTransaction(this.dataSource, async (manager) => {
      const endpoint = await this.endpoints.update(manager, id, expectedVersions, (current) => {
        const change: Partial<WebhookEndpointEntity> = {};
        if (patch.url !== undefined) change.url = patch.url;
        if (patch.events !== undefined) change.eventTypes = patch.events;
        if (patch.description !== undefined) change.description = patch.description;
        // The fan-out compares these with events' times, which the database stamps: one clock.
        if (patch.enabled === false && current.enabled) {
          Object.assign(change, {
            enabled: false,
            disabledReason: 'manual',
            disabledAt: TRANSACTION_TIME,
          });
        }
        if (patch.enabled === true && !current.enabled) {
          Object.assign(change, {
            enabled: true,
            enabledAt: TRANSACTION_TIME,
            disabledReason: null,
            disabledAt: null,
            failingSince: null,
          });
        }
        return change;
      });
      if (endpoint?.previous.enabled && !endpoint.current.enabled) {
        await this.deliveries.killOutstanding(manager, id);
      }
      return endpoint;
    });
    return updated?.current ?? notFound(id);
  }

  /** DELETE: the endpoint, its deliveries and their attempts are gone. */
  async remove(id: string, expectedVersions?: number[]): Promise<void> {
    const deleted = await inTransaction(this.dataSource, (manager) =>
      this.endpoints.delete(manager, id, expectedVersions),
    );
    if (!deleted) notFound(id);
  }

  /**
   * A new secret, shown once; the previous one keeps signing next to it for 24 h, so
   * receivers can switch without losing a delivery. A second rotation within the
   * overlap drops the oldest secret.
   */
  async rotateSecret(id: string, commitHook?: CommitHook): Promise<WebhookEndpointEntity> {
    const rotated = await inTransaction(
      this.dataSource,
      (manager) =>
        this.endpoints.update(manager, id, undefined, (current) => ({
          previousSecret: current.secret,
          previousSecretExpiresAt: new Date(Date.now() + ROTATION_OVERLAP_MS),
          secret: newWebhookSecret(),
        })),
      commitHook,
    );
    return rotated?.current ?? notFound(id);
  }

  async listDeliveries(
    id: string,
    filters: DeliveryFilters,
    page: PageRequest,
  ): Promise<Page<WebhookDeliveryEntity>> {
    await this.get(id);
    return this.deliveries.listForEndpoint(id, filters, page);
  }

  async getDelivery(id: string, deliveryId: string): Promise<WebhookDeliveryEntity> {
    return (await this.deliveries.findForEndpoint(id, deliveryId)) ?? deliveryNotFound(deliveryId);
  }

  /** Sends a delivery again soon, with a fresh retry schedule, whatever its status. */
  async retryDelivery(
    id: string,
    deliveryId: string,
    commitHook?: CommitHook,
  ): Promise<WebhookDeliveryEntity> {
    const request = await this.deliveries.scheduleRetry(id, deliveryId, commitHook);
    switch (request.outcome) {
      case 'scheduled':
        return request.delivery;
      case 'not_found':
        return deliveryNotFound(deliveryId);
      case 'in_flight':
        throw new ConflictProblem(
          'A worker is sending this delivery right now; look at its attempts in a moment.',
        );
      case 'endpoint_disabled':
        throw new ConflictProblem(
          'The endpoint is disabled; enable it (PATCH enabled=true) before retrying its deliveries.',
        );
    }
  }

  /** The URL's form, then its host's addresses (API.md §13): 422 naming `url` otherwise. */
  private async checkUrl(raw: string): Promise<void> {
    const policy: UrlPolicy = {
      requireHttps: this.config.env === 'production',
      allowPrivate: this.config.webhookAllowPrivateUrls,
    };
    try {
      await resolveWebhookHost(parseWebhookUrl(raw, policy), policy);
    } catch (error) {
      if (error instanceof UrlRefused) {
        throw new ValidationProblem([{ field: 'url', message: error.message }]);
      }
      throw error;
    }
  }
}

function notFound(id: string): never {
  throw new NotFoundProblem('webhook endpoint', id);
}

function deliveryNotFound(id: string): never {
  throw new NotFoundProblem('webhook delivery', id);
}
