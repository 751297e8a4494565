import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { rowCountOf } from '../../database/row-counts';
import { Problem } from '../problems/problem';
import { keyName, type CollectionSpec, type SortableField } from './collection-spec';
import { CursorCodec, invalidCursor } from './cursor-codec';
import { DEFAULT_LIMIT } from './list-query.dto';
import { Page } from './page';

export interface PageRequest {
  limit?: number;
  cursor?: string;
  page?: number;
  sort?: string;
}

interface SortTerm {
  name: string;
  field: SortableField;
  descending: boolean;
}

/**
 * The one paginator (API.md §4). Cursor pages are keyset pages on (sort fields…, key), so
 * page 50,000 costs what page 1 costs; the v1 `page` style is an offset. `total` counts
 * the same filtered query in the same statement as the page (withTotal). The query
 * builder arrives with its filters applied and without joins that multiply rows.
 *
 * `whole` is the collection's own query, before any filter or owner narrows it. When
 * `qb` is still that query (the same SQL) and the spec names a table the database keeps
 * a count of (row-counts.ts), `total` is read from there instead of counted: as exact, and
 * as cheap at a hundred million rows as at ten. Comparing the SQL, not a list of filters,
 * keeps this right for a filter added later.
 */
export async function paginate<E extends ObjectLiteral>(
  qb: SelectQueryBuilder<E>,
  spec: CollectionSpec,
  request: PageRequest,
  codec: CursorCodec,
  whole?: SelectQueryBuilder<E>,
): Promise<Page<E>> {
  if (request.page !== undefined && request.cursor !== undefined) {
    throw new Problem('bad_request', 'page and cursor cannot be used together.', [
      { field: 'page', message: 'cannot be combined with cursor' },
    ]);
  }
  const limit = request.limit ?? DEFAULT_LIMIT;
  const terms = parseSort(spec, request.sort ?? spec.defaultSort);
  const sortKey = terms.map((t) => (t.descending ? '-' : '') + t.name).join(',');
  const counted =
    spec.counted !== undefined && whole !== undefined && qb.getQuery() === whole.getQuery()
      ? spec.counted
      : undefined;
  if (request.page !== undefined) {
    const page = request.page;
    const { rows: items, total } = await withTotal(
      offsetPage(qb, spec, terms, (page - 1) * limit, limit),
      qb,
      counted,
    );
    return new Page(
      items,
      total,
      limit,
      page * limit < total ? { page: page + 1 } : null,
      // past the end, the way back is the last page with items, not the empty one before
      page > 1 ? { page: Math.min(page - 1, Math.max(1, Math.ceil(total / limit))) } : null,
      page,
    );
  }

  const cursor = request.cursor ? codec.decode(request.cursor) : undefined;
  if (
    cursor &&
    (cursor.c !== spec.name || cursor.s !== sortKey || cursor.k.length !== terms.length)
  ) {
    throw invalidCursor('was issued for another list or sort');
  }
  const backward = cursor?.d === 'b';
  const query = orderBy(qb.clone(), terms, backward).limit(limit + 1);
  if (cursor) applyKeyset(query, terms, cursor.k, backward, cursor.i === 1);
  // counted only once the cursor is known to be good: a 400 costs no query
  const { rows, total } = await withTotal(query, qb, counted);
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit);
  if (backward) items.reverse();

  const link = (k: (string | number)[], d: 'a' | 'b', inclusive = false) => ({
    cursor: codec.encode({ c: spec.name, s: sortKey, d, k, ...(inclusive && { i: 1 as const }) }),
  });
  const keyOf = (row: E) => terms.map((t) => keyValue(row, t.field));
  let next: { cursor: string } | null = null;
  let prev: { cursor: string } | null = null;
  if (items.length > 0) {
    // Going forward, a page after a cursor always has something before it; going back,
    // the page always has something after it (the row the cursor was made from).
    if (backward ? cursor !== undefined : hasMore) next = link(keyOf(items[items.length - 1]), 'a');
    if (backward ? hasMore : cursor !== undefined) prev = link(keyOf(items[0]), 'b');
  } else if (cursor) {
    // An empty page past either end (its rows were deleted since the cursor was made) is
    // no end of the list: the way back is the other side of the cursor's own position,
    // its row included, as an offset page past the end links back to the last full one.
    if (backward) next = link(cursor.k, 'a', true);
    else prev = link(cursor.k, 'b', true);
  }
  return new Page(items, total, limit, next, prev);
}

/** The column of a page's rows that carries `total` (withTotal). */
const TOTAL = 'page_total';

/** The parameter naming the counted table (rowCountOf). */
const COUNTED = '_counted';

/**
 * The rows of `page` and the `total` of `filtered`, in one statement: the count is a
 * scalar subquery of the page's select list, which PostgreSQL runs once (an InitPlan), so
 * a list is one round trip on one connection instead of two. Each round trip costs the
 * API more CPU than the count itself (docs/performance.md). With `counted`, the subquery
 * reads that table's row count instead (paginate). An empty page has no row to carry the
 * total; only then is it counted on its own.
 */
async function withTotal<E extends ObjectLiteral>(
  page: SelectQueryBuilder<E>,
  filtered: SelectQueryBuilder<E>,
  counted: string | undefined,
): Promise<{ rows: E[]; total: number }> {
  if (counted !== undefined) {
    page.addSelect(rowCountOf(`:${COUNTED}`), TOTAL).setParameter(COUNTED, counted);
  } else {
    page.addSelect(`(${countQuery(filtered).getQuery()})`, TOTAL);
  }
  const { entities, raw } = await page.getRawAndEntities<Record<string, unknown>>();
  const total = raw.length > 0 ? Number(raw[0][TOTAL]) : await countRows(filtered, counted);
  return { rows: entities, total };
}

/**
 * COUNT(*) of the filtered rows. TypeORM's getCount() counts DISTINCT ids, which makes
 * PostgreSQL sort or hash every matching key: twice the time at a million rows.
 */
function countQuery<E extends ObjectLiteral>(qb: SelectQueryBuilder<E>): SelectQueryBuilder<E> {
  return qb.clone().select('COUNT(*)', 'total').orderBy();
}

async function countRows<E extends ObjectLiteral>(
  qb: SelectQueryBuilder<E>,
  counted: string | undefined,
): Promise<number> {
  const row =
    counted !== undefined
      ? (
          await qb.connection.query<{ total: string }[]>(`SELECT ${rowCountOf('$1')} AS total`, [
            counted,
          ])
        )[0]
      : await countQuery(qb).getRawOne<{ total: string }>();
  return Number(row?.total ?? 0);
}

/**
 * An offset page as a deferred join: the offset walks the keys alone (an index-only scan
 * of the sort's index), and only the page's own rows are read from the table, so page
 * 2,501 skips 50,000 index entries instead of fetching 50,000 rows.
 */
function offsetPage<E extends ObjectLiteral>(
  qb: SelectQueryBuilder<E>,
  spec: CollectionSpec,
  terms: SortTerm[],
  offset: number,
  limit: number,
): SelectQueryBuilder<E> {
  const keys = orderBy(qb.clone().select(spec.key.column), terms, false)
    .offset(offset)
    .limit(limit);
  return orderBy(qb.clone(), terms, false).andWhere(`${spec.key.column} IN (${keys.getQuery()})`);
}

function parseSort(spec: CollectionSpec, sort: string): SortTerm[] {
  const terms: SortTerm[] = [];
  for (const part of sort.split(',')) {
    const descending = part.startsWith('-');
    const name = descending ? part.slice(1) : part;
    // own fields only: `constructor` or `toString` are no sortable field
    const field = Object.hasOwn(spec.sortable, name) ? spec.sortable[name] : undefined;
    if (!field) {
      const allowed = Object.keys(spec.sortable).join(', ');
      throw new Problem(
        'bad_request',
        `sort field "${name}" is not sortable; use one of ${allowed}.`,
        [{ field: 'sort', message: `"${name}" is not one of ${allowed}` }],
      );
    }
    // `name,-name` cannot be both: no order is guessed for it
    if (terms.some((t) => t.name === name)) {
      throw new Problem('bad_request', `sort field "${name}" is given twice.`, [
        { field: 'sort', message: `names "${name}" twice` },
      ]);
    }
    terms.push({ name, field, descending });
  }
  // The key is unique: nothing after it can change the order.
  const keyAt = terms.findIndex((t) => t.field === spec.key);
  if (keyAt >= 0) return terms.slice(0, keyAt + 1);
  // The key breaks ties in the direction of the last term, so a single-field sort is a
  // uniform row comparison that one composite index serves.
  terms.push({
    name: keyName(spec),
    field: spec.key,
    descending: terms[terms.length - 1].descending,
  });
  return terms;
}

function orderBy<E extends ObjectLiteral>(
  qb: SelectQueryBuilder<E>,
  terms: SortTerm[],
  reverse: boolean,
): SelectQueryBuilder<E> {
  terms.forEach((t, i) => {
    const direction = t.descending !== reverse ? 'DESC' : 'ASC';
    if (i === 0) qb.orderBy(t.field.column, direction);
    else qb.addOrderBy(t.field.column, direction);
  });
  return qb;
}

/** The rows after (or before) the key `values`, and the key's own row when `inclusive`. */
function applyKeyset<E extends ObjectLiteral>(
  qb: SelectQueryBuilder<E>,
  terms: SortTerm[],
  values: (string | number)[],
  backward: boolean,
  inclusive: boolean,
): void {
  const params: Record<string, unknown> = {};
  terms.forEach((t, i) => (params[`_k${i}`] = fromCursor(values[i], t.field)));
  const ops = terms.map((t) => (t.descending !== backward ? '<' : '>'));
  if (ops.every((op) => op === ops[0])) {
    const columns = terms.map((t) => t.field.column).join(', ');
    const placeholders = terms.map((_, i) => `:_k${i}`).join(', ');
    const op = inclusive ? `${ops[0]}=` : ops[0];
    qb.andWhere(`(${columns}) ${op} (${placeholders})`, params);
    return;
  }
  const equal = (upTo: number) => terms.slice(0, upTo).map((p, j) => `${p.field.column} = :_k${j}`);
  const disjuncts = terms.map(
    (t, i) => `(${[...equal(i), `${t.field.column} ${ops[i]} :_k${i}`].join(' AND ')})`,
  );
  if (inclusive) disjuncts.push(`(${equal(terms.length).join(' AND ')})`);
  qb.andWhere(`(${disjuncts.join(' OR ')})`, params);
}

function keyValue(row: ObjectLiteral, field: SortableField): string | number {
  const value: unknown = row[field.property];
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'number' || typeof value === 'string') return value;
  return String(value);
}

function fromCursor(value: string | number | undefined, field: SortableField): unknown {
  const ok =
    (field.kind === 'number' && typeof value === 'number') ||
    (field.kind !== 'number' && typeof value === 'string');
  if (!ok) throw invalidCursor();
  if (field.kind === 'date') {
    const date = new Date(value);
    if (Number.isNaN(date.getTime())) throw invalidCursor();
    return date;
  }
  return value;
}
