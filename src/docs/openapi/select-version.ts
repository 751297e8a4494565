import type { Document, Json } from './openapi-shape';
import { operations, walk } from './openapi-shape';

/**
 * One document per API version (API.md §12): keep the paths of `/api/v<n>`, drop what
 * that version does not take (v2 has no `page`), and keep only the schemas still used.
 */
export function selectVersion(full: Document, version: 1 | 2): Document {
  const doc = structuredClone(full);
  const prefix = `/api/v${version}/`;
  doc.paths = Object.fromEntries(Object.entries(doc.paths).filter(([path]) => path.startsWith(prefix)));
  if (version === 2) {
    for (const { operation } of operations(doc)) {
      const parameters = operation.parameters as Json[] | undefined;
      if (parameters) operation.parameters = parameters.filter((p) => !(p.in === 'query' && p.name === 'page'));
    }
  }
  pruneSchemas(doc);
  return doc;
}

/** Removes component schemas no longer reachable from the paths. */
function pruneSchemas(doc: Document): void {
  const schemas = (doc.components?.schemas ?? {}) as Record<string, unknown>;
  const used = new Set<string>();
  const visitRefs = (node: unknown) =>
    walk(node, (n) => {
      const ref = n.$ref;
      if (typeof ref !== 'string' || !ref.startsWith('#/components/schemas/')) return;
      const name = ref.slice('#/components/schemas/'.length);
      if (used.has(name)) return;
      used.add(name);
      visitRefs(schemas[name]);
    });
  visitRefs(doc.paths);
  visitRefs(doc.components?.responses);
  visitRefs((doc as unknown as Json).webhooks);
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
}
