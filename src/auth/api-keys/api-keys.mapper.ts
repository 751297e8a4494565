import type { ApiKeyEntity } from './api-key.entity';
import type { ApiKeyUsage } from './api-keys.service';
import type { ApiKeyCreatedDto, ApiKeyDto } from './dto/api-key.dto';
import type { ApiKeyUsageDto } from './dto/api-key-usage.dto';

/** Every version shows a key alike; never its hash. */
export function toApiKey(k: ApiKeyEntity): ApiKeyDto {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    role: k.role,
    customerId: k.customerId,
    expiresAt: k.expiresAt,
    version: k.version,
    createdAt: k.createdAt,
    updatedAt: k.updatedAt,
  };
}

/** The creation answer: the representation and the key, this once. */
export function toCreatedApiKey(k: ApiKeyEntity, key: string): ApiKeyCreatedDto {
  return { ...toApiKey(k), key };
}

export function toApiKeyUsage(usage: ApiKeyUsage): ApiKeyUsageDto {
  return {
    from: usage.from,
    to: usage.to,
    data: usage.hours.map((h) => ({ hour: h.hour, requests: h.requests })),
  };
}
