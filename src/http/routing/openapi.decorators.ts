import { applyDecorators, HttpCode, SetMetadata, Type } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiHeader,
  ApiNoContentResponse,
  ApiProperty,
  ApiResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import { MAX_PRECONDITION_LENGTH } from '../input/header-fields';
import type { CollectionSpec } from '../pagination/collection-spec';
import { PaginationDto } from '../pagination/pagination.dto';

/**
 * The collection a list operation pages through, for the OpenAPI build to document its
 * `sort` and `limit` (docs/openapi/collections.ts). A function, read when the documents
 * are built: the spec lives in the repository, which a controller's module may still be
 * loading when the decorator runs.
 */
export const COLLECTION_SPEC = 'openapi:collection-spec';

/** The largest value of a PostgreSQL `integer` column (versions, stock quantities). */
export const PG_INTEGER_MAX = 2 ** 31 - 1;

/** `version` of every resource (API.md §3): 1 at creation, one more with every change. */
export const ApiVersionProperty = () => ApiProperty({ minimum: 1, maximum: PG_INTEGER_MAX });

/** A collection answer: `{data: Item[], pagination}`, sorted as `spec()` says. */
export const ApiPage = (item: Type<unknown>, spec: () => CollectionSpec) =>
  applyDecorators(
    SetMetadata(COLLECTION_SPEC, spec),
    ApiExtraModels(item, PaginationDto),
    ApiResponse({
      status: 200,
      description: 'One page; `Link` carries the same next/prev URLs.',
      headers: { Link: { $ref: '#/components/headers/Link' } },
      schema: {
        type: 'object',
        additionalProperties: false,
        required: ['data', 'pagination'],
        properties: {
          data: { type: 'array', maxItems: 100, items: { $ref: getSchemaPath(item) } },
          pagination: { $ref: getSchemaPath(PaginationDto) },
        },
      },
    }),
  );

/** 200 with one resource, ETag its version. */
export const ApiResource = (
  type: Type<unknown>,
  description = 'The resource; `ETag` is its version.',
) => ApiResponse({ status: 200, type, description });

/** 201 with the created resource and its Location. */
export const ApiCreated = (type: Type<unknown>) =>
  ApiResponse({ status: 201, type, description: 'Created; `Location` is its URL.' });

/** PUT, PATCH and DELETE take `If-Match` (API.md §5). */
export const ApiIfMatch = () =>
  ApiHeader({
    name: 'If-Match',
    required: false,
    description:
      'Only apply the change if the resource still has this `ETag` (or one of a comma list; `*`: whatever its version). Any other value, a stale, weak or malformed tag alike, never matches: `412` and nothing changes.',
    schema: { type: 'string', maxLength: MAX_PRECONDITION_LENGTH },
  });

/** `204` with what it means for this resource: `Deleted.`, `Archived: …`, `Revoked.` */
export const ApiDeleted = (description = 'Deleted.') =>
  applyDecorators(HttpCode(204), ApiNoContentResponse({ description }));
