import type { INestApplication } from '@nestjs/common';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import { DECORATORS } from '@nestjs/swagger';
import { REQUIRED_PERMISSION, STAFF_ONLY } from '../../auth/auth.decorators';
import { Permission, ROLE_PERMISSIONS, ROLES } from '../../auth/permissions';
import type { Document, Json } from './openapi-shape';
import { operations } from './openapi-shape';

/**
 * The permission each handler declares with `@RequirePermission`, by operationId (the
 * same handler serves every version it is mounted in). An operationId used by handlers
 * with different permissions maps to none, rather than to a wrong one.
 */
export function permissionsByOperationId(app: INestApplication): Map<string, Permission> {
  return metadataByOperationId(app, REQUIRED_PERMISSION, (value) => value as Permission);
}

/** The operations a customer may not call although its role holds their permission. */
export function staffOnlyOperationIds(app: INestApplication): Set<string> {
  return new Set(metadataByOperationId(app, STAFF_ONLY, String).keys());
}

/**
 * Metadata `key` of each handler, as `read` makes it, by operationId. Handlers of one
 * operationId (its versions) that disagree give none.
 */
export function metadataByOperationId<T>(
  app: INestApplication,
  key: string,
  read: (value: unknown) => T,
): Map<string, T> {
  const found = new Map<string, T | null>();
  const scanner = new MetadataScanner();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const prototype = (wrapper.metatype as { prototype?: object } | null)?.prototype;
      if (!prototype) continue;
      // Inherited handlers too, as Nest routes them: a versioned controller's are.
      for (const name of scanner.getAllMethodNames(prototype)) {
        const handler = (prototype as Record<string, unknown>)[name];
        if (typeof handler !== 'function') continue;
        const raw = Reflect.getMetadata(key, handler) as unknown;
        if (raw === undefined) continue;
        const value = read(raw);
        const operation = Reflect.getMetadata(DECORATORS.API_OPERATION, handler) as
          | { operationId?: string }
          | undefined;
        const operationId = operation?.operationId ?? name;
        const seen = found.get(operationId);
        found.set(operationId, seen === undefined || seen === value ? value : null);
      }
    }
  }
  return new Map([...found].filter((entry): entry is [string, T] => entry[1] !== null));
}

/**
 * An operation's description says what it needs (API.md §2): the permission and the
 * roles that may call it with it. Handlers that describe themselves keep their own text
 * first.
 */
export function describePermissions(
  doc: Document,
  permissions: Map<string, Permission>,
  staffOnly: Set<string>,
): void {
  for (const { operation } of operations(doc)) {
    const operationId = operation.operationId as string;
    const permission = permissions.get(operationId);
    if (!permission) continue;
    const roles = ROLES.filter(
      (role) =>
        ROLE_PERMISSIONS[role].has(permission) &&
        !(role === 'customer' && staffOnly.has(operationId)),
    );
    const needs = `Needs the \`${permission}\` permission, which the roles ${roles.map((r) => `\`${r}\``).join(', ')} hold.`;
    operation.description = operation.description
      ? `${operation.description as string}\n\n${needs}`
      : needs;
    operation['x-permission'] = permission;
  }
}

const TAG_DESCRIPTIONS: Record<string, string> = {
  products: 'The catalog: products with their price. Creating one creates its inventory item.',
  inventory: 'Stock levels by SKU, and the ledger of atomic adjustments.',
  orders: 'Orders reserve stock at creation and move through their status workflow.',
  invoices: 'Invoices of orders, numbered per year, with their payment status.',
  shipments: 'Shipments of confirmed orders and their delivery status.',
  'api-keys': 'API keys for server-to-server access, and their usage.',
  users: 'Users who sign in to the built-in authorization server.',
  'oauth-clients': 'OAuth 2.0 clients of the built-in authorization server.',
  'webhook-endpoints': 'Subscribers to events, and the log of deliveries to them.',
  events: 'Every event ever emitted, for clients that reconcile after missed webhooks.',
};

/** Declares, in the order first used, every tag the operations use. */
export function declareTags(doc: Document): void {
  const names = new Set<string>();
  for (const { operation } of operations(doc)) {
    for (const tag of (operation.tags as string[] | undefined) ?? []) names.add(tag);
  }
  const existing = new Map((doc.tags ?? []).map((tag) => [tag.name, tag]));
  doc.tags = [...names].map((name) => {
    const tag: Json = { name, ...(existing.get(name) ?? {}) };
    if (!tag.description && TAG_DESCRIPTIONS[name]) tag.description = TAG_DESCRIPTIONS[name];
    return tag as { name: string };
  });
}
