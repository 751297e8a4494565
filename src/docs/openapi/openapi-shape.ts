import type { OpenAPIObject } from '@nestjs/swagger';

/** The loose JSON shape the post-processing steps walk. */
export type Json = Record<string, unknown>;
export type Document = OpenAPIObject;

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface OperationRef {
  path: string;
  method: (typeof HTTP_METHODS)[number];
  operation: Json;
}

export function operations(doc: Document): OperationRef[] {
  const found: OperationRef[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const operation = (item as Json)[method] as Json | undefined;
      if (operation) found.push({ path, method, operation });
    }
  }
  return found;
}

/** Visits every object node of a JSON tree, parents before children. */
export function walk(node: unknown, visit: (node: Json) => void): void {
  if (Array.isArray(node)) {
    node.forEach((child) => walk(child, visit));
  } else if (node && typeof node === 'object') {
    visit(node as Json);
    Object.values(node).forEach((child) => walk(child, visit));
  }
}
