import { EVENT_TYPES, type EventType } from '../../events/event-types';
import type { Document, Json } from './openapi-shape';

/**
 * The events of API.md §10 in the OpenAPI documents: a `webhooks` entry (OpenAPI 3.1)
 * per event type, whose body is the event envelope around the /api/v1 schema of its
 * resource, with the Standard Webhooks headers; and the same resource schemas for
 * `data.object` of the /events answers. Runs on the document of every version before it
 * is split (select-version.ts keeps the schemas the webhooks use): events are stored
 * once, in the v1 representation, and /api/v2 shows them as they are.
 */
export function documentEvents(full: Document): void {
  full.components ??= {};
  const schemas = (full.components.schemas ??= {}) as Record<string, Json>;
  const webhooks: Json = {};
  for (const type of Object.keys(EVENT_TYPES) as EventType[]) {
    const name = `${pascal(type)}Event`;
    schemas[name] = envelope(type, resourceSchema(schemas, EVENT_TYPES[type]));
    webhooks[type] = { post: webhookOperation(type, name) };
  }
  (full as unknown as Json).webhooks = webhooks;

  const data = schemas.EventDataDto as Json | undefined;
  const properties = data?.properties as Json | undefined;
  if (properties?.object) {
    const resources = [...new Set(Object.values(EVENT_TYPES))];
    properties.object = {
      description: (properties.object as Json).description,
      anyOf: resources.map((resource) => resourceSchema(schemas, resource)),
    };
  }
}

/**
 * The resource's /api/v1 schema, by the naming the controllers use: `OrderV1Dto` where
 * the versions differ, `ShipmentDto` where one representation serves both.
 */
function resourceSchema(schemas: Record<string, Json>, resource: string): Json {
  const name = [`${pascal(resource)}V1Dto`, `${pascal(resource)}Dto`].find((n) => schemas[n]);
  if (!name) throw new Error(`No OpenAPI schema for the ${resource} events carry`);
  return { $ref: `#/components/schemas/${name}` };
}

function envelope(type: EventType, object: Json): Json {
  const resource = EVENT_TYPES[type];
  return {
    type: 'object',
    description: `The body of a \`${type}\` webhook, and that event in /events: \`data.object\` is the ${resource} as /api/v1 showed it right after the change (also under /api/v2).`,
    additionalProperties: false,
    required: ['id', 'type', 'createdAt', 'data'],
    properties: {
      id: {
        type: 'string',
        format: 'uuid',
        maxLength: 36,
        description:
          'The event id, sent as `webhook-id` too: the same on every attempt, so drop a delivery whose id you have handled.',
      },
      type: { type: 'string', enum: [type] },
      createdAt: {
        type: 'string',
        format: 'date-time',
        maxLength: 35,
        description: 'When the change was made.',
      },
      data: {
        type: 'object',
        additionalProperties: false,
        required: ['object'],
        properties: { object },
      },
    },
  };
}

const HEADERS: Json[] = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description:
      'The event id (the body\'s `id`): the same on every attempt of the event to this endpoint. Use it to drop duplicates.',
    schema: { type: 'string', format: 'uuid', maxLength: 36 },
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description:
      'When this attempt was signed, in Unix seconds. Refuse a timestamp far from your clock (the standardwebhooks libraries allow 5 minutes) to stop replays.',
    schema: { type: 'string', maxLength: 20, pattern: '^\\d{1,20}$', example: '1795305600' },
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      'Standard Webhooks signatures: space-separated `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, keyed with the base64-decoded part of the endpoint secret after `whsec_`. Two entries during the 24 h after a secret rotation (new and previous secret); accept the message if any entry matches.',
    schema: {
      type: 'string',
      maxLength: 500,
      pattern: '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$',
      example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
    },
  },
];

function webhookOperation(type: EventType, schemaName: string): Json {
  const resource = EVENT_TYPES[type];
  return {
    operationId: `${camel(type)}Webhook`,
    summary: `${type}: ${SUMMARIES[type] ?? `a ${resource} event`}`,
    description: `POSTed to every enabled webhook endpoint subscribed to \`${type}\` or \`*\`, signed per Standard Webhooks. Delivery is at least once: a non-2xx answer, a connection error or no answer within 10 s is retried after each wait of WEBHOOK_RETRY_SCHEDULE (a longer \`Retry-After\` is honoured, up to a day); then the delivery is dead. Order is not guaranteed: compare the object's \`version\` with the last one you applied, and drop the event as stale when it is lower (an equal version is the same state: \`invoice.paid\` carries the invoice at the version of the \`invoice.updated\` of the same change).`,
    // We call the receiver: no API credential; the receiver authenticates the call by
    // its `webhook-signature`.
    security: [],
    parameters: HEADERS,
    requestBody: {
      required: true,
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${schemaName}` } } },
    },
    responses: {
      '200': {
        description:
          'Any 2xx status acknowledges the delivery; the body is ignored (its first KiB is kept in the delivery log).',
      },
      '410': {
        description:
          'Gone: the endpoint is disabled at once and nothing more is sent to it. Any other status is a failure that is retried.',
      },
    },
  };
}

const SUMMARIES: Partial<Record<EventType, string>> = {
  'order.created': 'an order was placed',
  'order.status_changed': 'an order moved to another status',
  'invoice.created': 'an invoice was created',
  'invoice.updated': 'an invoice changed',
  'invoice.paid': 'an invoice was paid',
  'shipment.created': 'a shipment was created',
  'shipment.updated': 'a shipment changed',
};

const words = (text: string) => text.split(/[._-]/).filter(Boolean);
const capital = (word: string) => word[0].toUpperCase() + word.slice(1);
const pascal = (text: string) => words(text).map(capital).join('');
const camel = (text: string) => {
  const name = pascal(text);
  return name[0].toLowerCase() + name.slice(1);
};
