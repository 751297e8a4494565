import type { RouteTable } from '../http/routing/route-table';
import { ERROR_CODES } from '../http/problems/error-codes';
import { UI_FILES, UI_FILES_ROUTE } from './docs-ui-files';

/** DocsController's route for the page of one error code, under `/docs`. */
export const ERROR_PAGE_ROUTE = 'errors/:code';

/**
 * The docs routes whose pattern matches more than they serve: the docs UI's files among
 * swagger-ui-dist's, and the page of each error code. Another method on one of those paths
 * is `405` with `Allow`, as on any page; on any other path they match, `404` under every
 * method, as its GET is (API.md §1, docs/api-conventions.md).
 */
export function listDocsPaths(routes: RouteTable): void {
  routes.servesOnly(
    UI_FILES_ROUTE,
    [...UI_FILES].map((file) => `/docs/${file}`),
  );
  routes.servesOnly(
    `/docs/${ERROR_PAGE_ROUTE}`,
    Object.keys(ERROR_CODES).map((code) => `/docs/errors/${code}`),
  );
}
