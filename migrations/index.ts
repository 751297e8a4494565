import { CatalogAndApiKeys1763769600000 } from './1763769600000-CatalogAndApiKeys';
import { Orders1763856000000 } from './1763856000000-Orders';
import { IdempotencyKeys1763856000001 } from './1763856000001-IdempotencyKeys';
import { Events1763856000002 } from './1763856000002-Events';
import { Invoices1763856000010 } from './1763856000010-Invoices';
import { Shipments1763856000011 } from './1763856000011-Shipments';
import { Webhooks1763856000020 } from './1763856000020-Webhooks';
import { ApiKeyUsage1763856000030 } from './1763856000030-ApiKeyUsage';
import { Users1763856000031 } from './1763856000031-Users';
import { OAuthServer1763856000040 } from './1763856000040-OAuthServer';
import { CountIndexes1763856000050 } from './1763856000050-CountIndexes';
import { IdempotencyCommitted1763856000060 } from './1763856000060-IdempotencyCommitted';
import { WebhookEndpointEnabledAt1763856000070 } from './1763856000070-WebhookEndpointEnabledAt';
import { InventoryHotUpdates1763856000080 } from './1763856000080-InventoryHotUpdates';
import { ProductFilterIndexes1763856000090 } from './1763856000090-ProductFilterIndexes';
import { RowCounts1763856000100 } from './1763856000100-RowCounts';
import { RowCountMarks1763856000110 } from './1763856000110-RowCountMarks';

/** Every migration, in order. Listed explicitly so the build, the CLI and tests agree. */
export const MIGRATIONS = [
  CatalogAndApiKeys1763769600000,
  Orders1763856000000,
  IdempotencyKeys1763856000001,
  Events1763856000002,
  Invoices1763856000010,
  Shipments1763856000011,
  Webhooks1763856000020,
  ApiKeyUsage1763856000030,
  Users1763856000031,
  OAuthServer1763856000040,
  CountIndexes1763856000050,
  IdempotencyCommitted1763856000060,
  WebhookEndpointEnabledAt1763856000070,
  InventoryHotUpdates1763856000080,
  ProductFilterIndexes1763856000090,
  RowCounts1763856000100,
  RowCountMarks1763856000110,
];
