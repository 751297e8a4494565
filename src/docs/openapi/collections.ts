import type { INestApplication } from '@nestjs/common';
import { COLLECTION_SPEC } from '../../http/openapi.decorators';
import type { CollectionSpec } from '../../http/pagination/collection-spec';
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
export function collectionsByOperationId(app: INestApplication): Map<string, CollectionDocs> {
  return metadataByOperationId(app, COLLECTION_SPEC, (spec) =>
    docsOf((spec as () => CollectionSpec)()),
  );
}

const described = new WeakMap<CollectionSpec, CollectionDocs>();

/** One object per spec, so the versions of one operation agree. */
function docsOf(spec: CollectionSpec): CollectionDocs {
  let docs = described.get(spec);
  if (!docs) {
    const sortable = Object.keys(spec.sortable);
    const tieBreaker = sortable.find((name) => spec.sortable[name] === spec.key);
    docs = { sortable, defaultSort: spec.defaultSort, tieBreaker: tieBreaker ?? spec.key.property };
    described.set(spec, docs);
  }
  return docs;
}

/**
 * The paging parameters of each collection as it takes them (API.md §4): `limit`'s
 * default, and `sort`'s fields, default and tie-breaker, from the collection's own spec
 * (ApiPage), so the document cannot list a field the paginator refuses. The pattern
 * names the fields; a request outside it is `400`, as any unknown field is.
 */
export function documentCollections(
  doc: Document,
  collections: Map<string, CollectionDocs>,
): void {
  for (const { operation } of operations(doc)) {
    const collection = collections.get(operation.operationId as string);
    if (!collection) continue;
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
