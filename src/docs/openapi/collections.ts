import type { INestApplication } from '@nestjs/common';
import { COLLECTION_SPEC } from '../../http/routing/openapi.decorators';
import { keyName, type CollectionSpec } from '../../http/pagination/collection-spec';
import { DEFAULT_LIMIT } from '../../http/pagination/list-query.dto';
import type { Document, Json } from './openapi-shape';
import { operations } from './openapi-shape';
import { metadataByOperationId } from './operation-details';

/** A collection's `sort` as a client needs it: its fields, default and tie-breaker. */
interface CollectionDocs {
  sortable: string[];
  defaultSort: string;
  tieBreaker: string;
}

/** The collection each list operation pages through (ApiPage), by operationId. */
export function collectionsByOperationId(app: INestApplication): Map<string, CollectionSpec> {
  return metadataByOperationId(app, COLLECTION_SPEC, (spec) => (spec as () => CollectionSpec)());
}

function docsOf(spec: CollectionSpec): CollectionDocs {
  return {
    sortable: Object.keys(spec.sortable),
    defaultSort: spec.defaultSort,
    tieBreaker: keyName(spec),
  };
}

/**
 * The paging parameters of each collection as it takes them (API.md §4): `limit`'s
 * default, and `sort`'s fields, default and tie-breaker, from the collection's own spec
 * (ApiPage), so the document cannot list a field the paginator refuses. The pattern
 * names the fields; a request outside it is `400`, as any unknown field is.
 */
export function documentCollections(
  doc: Document,
  collections: Map<string, CollectionSpec>,
): void {
  for (const { operation } of operations(doc)) {
    const spec = collections.get(operation.operationId as string);
    if (!spec) continue;
    const collection = docsOf(spec);
    for (const parameter of (operation.parameters ?? []) as Json[]) {
      if (parameter.in !== 'query') continue;
      const schema = (parameter.schema ?? {}) as Json;
      if (parameter.name === 'limit') parameter.schema = { ...schema, default: DEFAULT_LIMIT };
      if (parameter.name === 'sort') {
        parameter.description = sortDescription(collection);
        parameter.schema = { ...schema, pattern: sortPattern(collection), default: collection.defaultSort };
      }
    }
  }
}

function sortDescription({ sortable, defaultSort, tieBreaker }: CollectionDocs): string {
  const fields = sortable.map((name) => `\`${name}\``).join(', ');
  return `Comma list of fields to sort by, each descending with a leading \`-\`: ${fields}. Default \`${defaultSort}\`. \`${tieBreaker}\` breaks ties, in the direction of the last field.`;
}

function sortPattern({ sortable }: CollectionDocs): string {
  const field = `-?(?:${sortable.join('|')})`;
  return `^${field}(?:,${field})*$`;
}
