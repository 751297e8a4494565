import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ProductFilters, ProductsRepository } from '../src/products/products.repository';
import { createProduct } from './support/factories';
import { startTestApp, TestApp } from './support/test-app';

/**
 * The products filters that a million products need an index for (API.md §4; migration
 * ProductFilterIndexes): `q`, a case-insensitive substring of the name or the SKU, and
 * `active` and `currency`, whose rare values would otherwise be looked for row by row.
 */

let api: TestApp;

beforeAll(async () => {
  api = await startTestApp();
});

afterAll(async () => {
  await api?.close();
});

const skusFound = async (q: string): Promise<string[]> => {
  const response = await api.get(`/api/v1/products?q=${encodeURIComponent(q)}&limit=100`);
  expect(response.status).toBe(200);
  return (response.body.data as { sku: string }[]).map((p) => p.sku).sort();
};

describe('GET /products?q=', () => {
  const tag = randomBytes(4).toString('hex');
  let byName: string;
  let bySku: string;

  beforeAll(async () => {
    byName = (await createProduct(api, { sku: `QN-${tag}-1`, name: `Quartz Kettle ${tag}` })).sku;
    bySku = (await createProduct(api, { sku: `KETTLE-${tag}-2`, name: `Other ${tag}` })).sku;
  });

  it.each([
    ['words of the name, in another case', `qUARTZ KETTLE ${tag}`],
    ['a part of the name that starts inside a word', `artz Kettle ${tag}`],
  ])('finds by %s', async (_situation, term) => {
    expect(await skusFound(term)).toEqual([byName]);
  });

  it('finds by a part of the SKU and of the name alike', async () => {
    expect(await skusFound('kettle')).toEqual([bySku, byName].sort());
  });

  it('finds by terms of one and two characters, which have no trigram to look up', async () => {
    const oneChar = await skusFound(tag[0]);
    const twoChars = await skusFound(tag.slice(0, 2));

    expect(oneChar).toEqual(expect.arrayContaining([byName, bySku]));
    expect(twoChars).toEqual(expect.arrayContaining([byName, bySku]));
  });
});

describe('the plans of the products filters', () => {
  beforeAll(async () => {
    const db = api.app.get(DataSource);
    // enough products, all active and in EUR, for the planner to weigh a scan of the
    // table against the indexes as it does at a million
    await db.query(
      `INSERT INTO products (id, sku, name, category, price_minor, price_scale, currency)
       SELECT gen_random_uuid(), 'FILL-' || n, 'Filler product ' || n, 'filler', 100, 2, 'EUR'
       FROM generate_series(1, 20000) AS n`,
    );
    // VACUUM also moves the new rows from the GIN indexes' pending lists into the
    // indexes, as autovacuum would have done on a catalog that size
    await db.query('VACUUM ANALYZE products');
  });

  it.each<[string, ProductFilters, string[]]>([
    [
      'q, in the trigram indexes of name and SKU',
      { q: 'kettle' },
      ['products_name_trgm_idx', 'products_sku_trgm_idx'],
    ],
    ['a rare active flag', { active: false }, ['products_active_idx']],
    ['a rare currency', { currency: 'USD' }, ['products_currency_idx']],
  ])('looks up %s rather than reading the table', async (_situation, filters, indexes) => {
    const [sql, parameters] = api.app
      .get(ProductsRepository)
      .matching(filters)
      .select('p.id')
      .getQueryAndParameters();

    const rows: { 'QUERY PLAN': string }[] = await api.app
      .get(DataSource)
      .query(`EXPLAIN ${sql}`, parameters);
    const plan = rows.map((row) => row['QUERY PLAN']).join('\n');

    for (const index of indexes) expect(plan).toContain(index);
    expect(plan).not.toMatch(/Seq Scan/);
  });
});
