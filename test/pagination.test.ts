import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createProduct } from './support/factories';
import { expectProblem, fieldsOf } from './support/problem';
import { ApiResponse, startTestApp, TestApp } from './support/test-app';

/** API.md §4: cursor and offset pagination, sorting and filters of collections. */

let api: TestApp;

/** Upper-case letters and digits only, so every collation orders them as JavaScript does. */
const RUN = randomBytes(3).toString('hex').toUpperCase();
const WALK_CATEGORY = `walk-${RUN}`;
const FILTER_CATEGORY = `filters-${RUN}`;
const NAMES = ['Anchor', 'Bucket', 'Candle', 'Dagger', 'Engine'];
/** 5.00 < 12.50 < 100.00 as numbers, the other way round as strings. */
const PRICES = ['5.00', '12.50', '100.00'];
const WALKED = 45;

interface Created {
  id: string;
  sku: string;
  name: string;
  price: string;
  createdAt: string;
}

const walked: Created[] = [];
/** skus of every product this file creates */
const allSkus: string[] = [];

beforeAll(async () => {
  api = await startTestApp();
  // Every (name, price) pair three times: ties on both sort fields, broken only by the id.
  for (let i = 0; i < WALKED; i++) {
    walked.push(
      (await createProduct(api, {
        sku: `W${RUN}${String(i).padStart(3, '0')}`,
        name: NAMES[i % NAMES.length],
        price: PRICES[Math.floor(i / NAMES.length) % PRICES.length],
        category: WALK_CATEGORY,
      })) as unknown as Created,
    );
  }
  const filtered = {
    blue: { name: 'Blue Widget', price: '10.00', active: true },
    red: { name: 'red WIDGET deluxe', price: '25.50', active: false },
    green: { name: 'Green Gadget', price: '99.99', active: true },
    tiny: { name: 'Tiny widget', price: '5.00', active: false },
  };
  for (const [key, fields] of Object.entries(filtered)) {
    await createProduct(api, {
      ...fields,
      sku: `F${RUN}${key.toUpperCase()}`,
      category: FILTER_CATEGORY,
    });
  }
  allSkus.push(
    ...walked.map((p) => p.sku),
    ...Object.keys(filtered).map((k) => `F${RUN}${k.toUpperCase()}`),
  );
});

afterAll(async () => {
  await api?.close();
});

type Key = (p: Created) => string | number;
/** A comparator over keys, each ascending (1) or descending (-1). */
const by =
  (...keys: [Key, 1 | -1][]) =>
  (a: Created, b: Created) => {
    for (const [key, direction] of keys) {
      const x = key(a);
      const y = key(b);
      if (x < y) return -direction;
      if (x > y) return direction;
    }
    return 0;
  };

/**
 * The order API.md §4 promises. The id breaks ties; the service breaks them in the
 * direction of the last sort term (one composite index serves a uniform comparison).
 */
const EXPECTED: Record<string, () => string[]> = {
  'name,-price': () =>
    [...walked]
      .sort(by([(p) => p.name, 1], [(p) => Number(p.price), -1], [(p) => p.id, -1]))
      .map((p) => p.id),
  '-createdAt': () =>
    [...walked].sort(by([(p) => p.createdAt, -1], [(p) => p.id, -1])).map((p) => p.id),
};

/** `Link` header relations as { rel: url }. */
function linkRelations(header: string | null): Record<string, string> {
  const relations: Record<string, string> = {};
  for (const match of (header ?? '').matchAll(/<([^>]*)>\s*;\s*rel="([^"]+)"/g)) {
    relations[match[2]] = match[1];
  }
  return relations;
}

/** Follows an absolute `next`/`prev` URL exactly as given (origin checked, then requested). */
async function follow(url: string): Promise<ApiResponse> {
  expect(new URL(url).origin).toBe(api.baseUrl);
  return api.get(url.slice(api.baseUrl.length));
}

/** Asserts what every page of a collection answer carries; returns its ids. */
function expectPage(response: ApiResponse, total: number, limit: number): string[] {
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const { data, pagination } = response.body;
  expect(pagination).toEqual(expect.objectContaining({ total, limit }));
  for (const rel of ['next', 'prev']) {
    expect(pagination).toHaveProperty(rel);
    if (pagination[rel] !== null) expect(pagination[rel]).toMatch(/^https?:\/\//);
  }
  const expectedLinks: Record<string, string> = {};
  if (pagination.next) expectedLinks.next = pagination.next;
  if (pagination.prev) expectedLinks.prev = pagination.prev;
  expect(linkRelations(response.headers.get('link'))).toEqual(expectedLinks);
  expect(data.length).toBeLessThanOrEqual(limit);
  return (data as { id?: string; sku?: string }[]).map((item) => item.id ?? (item.sku as string));
}

/** Walks forward from `path` to the last page, then back along `prev` to the first. */
async function walkBothWays(path: string, maxPages: number) {
  const forward: ApiResponse[] = [await api.get(path)];
  while (forward[forward.length - 1].body.pagination?.next) {
    expect(forward.length).toBeLessThan(maxPages); // a runaway walk fails, not hangs
    forward.push(await follow(forward[forward.length - 1].body.pagination.next));
  }
  const backward: ApiResponse[] = [forward[forward.length - 1]];
  while (backward[0].body.pagination?.prev) {
    expect(backward.length).toBeLessThan(maxPages);
    backward.unshift(await follow(backward[0].body.pagination.prev));
  }
  return { forward, backward };
}

describe.each([['/api/v1/products'], ['/api/v2/products']])('cursor walk over %s', (base) => {
  it.each([['name,-price'], ['-createdAt']])(
    'with sort=%s visits all 45 products once, in sort order, forward and back',
    async (sort) => {
      const path = `${base}?category=${WALK_CATEGORY}&sort=${sort}&limit=10`;

      const { forward, backward } = await walkBothWays(path, 10);

      const forwardIds = forward.flatMap((page) => expectPage(page, WALKED, 10));
      const backwardIds = backward.flatMap((page) => expectPage(page, WALKED, 10));
      expect(forward).toHaveLength(5);
      expect(backward).toHaveLength(5);
      expect(new Set(forwardIds).size).toBe(WALKED);
      expect(forwardIds).toEqual(EXPECTED[sort]());
      expect(backwardIds).toEqual(forwardIds);
      expect(forward[0].body.pagination.prev).toBeNull();
      expect(backward[0].body.pagination.prev).toBeNull();
      expect(forward[4].body.pagination.next).toBeNull();
      expect(forward[4].body.data).toHaveLength(5);
    },
  );

  it('keeps every filter, the sort and the limit in next and prev, and no page parameter', async () => {
    const first = await api.get(`${base}?category=${WALK_CATEGORY}&sort=name,-price&limit=10`);
    const second = await follow(first.body.pagination.next);

    for (const url of [first.body.pagination.next, second.body.pagination.prev]) {
      const params = new URL(url).searchParams;
      expect(new URL(url).pathname).toBe(base);
      expect(params.get('category')).toBe(WALK_CATEGORY);
      expect(params.get('sort')).toBe('name,-price');
      expect(params.get('limit')).toBe('10');
      expect(params.get('cursor')).toMatch(/\S/);
      expect(params.has('page')).toBe(false);
    }
  });

  it('pages 20 items when no limit is sent', async () => {
    const response = await api.get(`${base}?category=${WALK_CATEGORY}`);

    expect(expectPage(response, WALKED, 20)).toHaveLength(20);
    expect(new URL(response.body.pagination.next).searchParams.has('limit')).toBe(false);
  });
});

describe('cursor misuse', () => {
  const firstPage = () => api.get(`/api/v1/products?category=${WALK_CATEGORY}&sort=name,-price`);
  const cursorOf = (url: string) => new URL(url).searchParams.get('cursor') as string;
  /** The same string with the character at `index` replaced by another base64url one. */
  const flip = (text: string, index: number) =>
    text.slice(0, index) + (text[index] === 'A' ? 'B' : 'A') + text.slice(index + 1);

  async function expectCursorRefused(path: string) {
    const response = await api.get(path);
    const problem = expectProblem(response, 400, 'bad_request');
    expect(fieldsOf(problem)).toContain('cursor');
  }

  it('refuses a cursor whose payload was altered with 400 naming cursor', async () => {
    const [payload, signature] = cursorOf((await firstPage()).body.pagination.next).split('.');

    await expectCursorRefused(
      `/api/v1/products?category=${WALK_CATEGORY}&sort=name,-price&cursor=${flip(payload, 3)}.${signature}`,
    );
  });

  it('refuses a cursor whose signature was altered with 400 naming cursor', async () => {
    const [payload, signature] = cursorOf((await firstPage()).body.pagination.next).split('.');

    await expectCursorRefused(
      `/api/v1/products?category=${WALK_CATEGORY}&sort=name,-price&cursor=${payload}.${flip(signature, 0)}`,
    );
  });

  it('refuses a cursor that is not one this API issued with 400 naming cursor', async () => {
    await expectCursorRefused('/api/v1/products?cursor=not-a-cursor');
  });

  it('refuses a cursor issued under another sort with 400 naming cursor', async () => {
    const cursor = cursorOf((await firstPage()).body.pagination.next);

    await expectCursorRefused(
      `/api/v1/products?category=${WALK_CATEGORY}&sort=-createdAt&cursor=${cursor}`,
    );
  });

  it('refuses a products cursor on the inventory with 400 naming cursor', async () => {
    const cursor = cursorOf(
      (await api.get(`/api/v1/products?category=${WALK_CATEGORY}&sort=id`)).body.pagination.next,
    );

    await expectCursorRefused(`/api/v1/inventory?cursor=${cursor}`);
  });

  it('continues the list other filters give from its place: filters are not in a cursor', async () => {
    const sort = 'name,-price';
    const first = await api.get(`/api/v1/products?category=${WALK_CATEGORY}&sort=${sort}&limit=10`);
    const cursor = cursorOf(first.body.pagination.next);

    const narrowed = await api.get(
      `/api/v1/products?category=${WALK_CATEGORY}&active=true&sort=${sort}&limit=100&cursor=${cursor}`,
    );

    expect(narrowed.status).toBe(200);
    const ids = (narrowed.body.data as { id: string }[]).map((p) => p.id);
    const rest = EXPECTED[sort]().slice(10);
    expect(ids.length).toBeGreaterThan(0);
    expect(ids).toEqual(rest.filter((id) => ids.includes(id)));
  });

  it('refuses page together with cursor with 400', async () => {
    const cursor = cursorOf((await firstPage()).body.pagination.next);

    const response = await api.get(
      `/api/v1/products?category=${WALK_CATEGORY}&sort=name,-price&page=2&cursor=${cursor}`,
    );

    const problem = expectProblem(response, 400, 'bad_request');
    expect(fieldsOf(problem)).toEqual(expect.arrayContaining(['page']));
  });
});

describe('a cursor page emptied by deletions', () => {
  /** Four products of their own category, named A to D; `sort` decides their order. */
  async function fourProducts(sort: string) {
    const category = `emptied-${randomBytes(4).toString('hex')}`;
    const ids: string[] = [];
    for (const name of ['A', 'B', 'C', 'D']) {
      ids.push((await createProduct(api, { name, category })).id);
    }
    const list = `/api/v1/products?category=${category}&sort=${sort}&limit=2`;
    return { ids, list };
  }
  const remove = (id: string) => api.request('DELETE', `/api/v1/products/${id}`);
  const namesOf = (page: ApiResponse) => page.body.data.map((p: { name: string }) => p.name);

  it.each([['name'], ['name,-createdAt']])(
    'links back, sort=%s, to the last page with items: the cursor row included, even deleted',
    async (sort) => {
      const { ids, list } = await fourProducts(sort);
      const first = await api.get(list);
      for (const id of ids.slice(1)) await remove(id);

      const emptied = await follow(first.body.pagination.next);

      expect([emptied.status, emptied.body.data, emptied.body.pagination.next]).toEqual([
        200,
        [],
        null,
      ]);
      expect(emptied.body.pagination.prev).toEqual(expect.any(String));
      expect(emptied.headers.get('link')).toContain('rel="prev"');
      const back = await follow(emptied.body.pagination.prev);
      expect(namesOf(back)).toEqual(['A']);
      expect(back.body.pagination.prev).toBeNull();
    },
  );

  it('keeps the row of the cursor on the way back when it still exists', async () => {
    const { ids, list } = await fourProducts('name');
    const first = await api.get(list);
    for (const id of ids.slice(2)) await remove(id);

    const emptied = await follow(first.body.pagination.next);
    const back = await follow(emptied.body.pagination.prev);

    expect(emptied.body.data).toEqual([]);
    expect(namesOf(back)).toEqual(['A', 'B']);
  });

  it('links forward from an empty page reached backward', async () => {
    const { ids, list } = await fourProducts('name');
    const second = await follow((await api.get(list)).body.pagination.next);
    for (const id of ids.slice(0, 2)) await remove(id);

    const emptied = await follow(second.body.pagination.prev);
    const forward = await follow(emptied.body.pagination.next);

    expect([emptied.body.data, emptied.body.pagination.prev]).toEqual([[], null]);
    expect(namesOf(forward)).toEqual(['C', 'D']);
  });
});

describe('the longest cursor', () => {
  it('is taken back: the longest names and categories of four-byte characters', async () => {
    // U+1F600 is one code point and four bytes of UTF-8, the most any allowed character
    // takes in a cursor's JSON (control characters, escaped six times longer, are refused)
    const category = '\u{1F600}'.repeat(100);
    const prefix = `long-${randomBytes(3).toString('hex')}`;
    for (let i = 0; i < 2; i++) {
      await createProduct(api, { sku: `${prefix}-${i}`, name: '\u{1F600}'.repeat(200), category });
    }
    const list = `/api/v1/products?q=${prefix}&sort=category,name,sku,price,createdAt,updatedAt&limit=1`;

    const first = await api.get(list);
    const next = first.body.pagination.next as string;
    const second = await follow(next);

    expect(new URL(next).searchParams.get('cursor')?.length).toBeGreaterThan(1800);
    expect([second.status, second.body.data.length]).toEqual([200, 1]);
    expect(second.body.data[0].sku).not.toBe(first.body.data[0].sku);
  });
});

describe('sorting', () => {
  it.each([
    ['colour'],
    ['name,-colour'],
    ['description'],
    ['constructor'],
    ['name,-toString'],
    ['id,colour'],
  ])('refuses the unknown sort field in sort=%s with 400 naming sort', async (sort) => {
    const response = await api.get(`/api/v1/products?sort=${sort}`);

    const problem = expectProblem(response, 400, 'bad_request');
    expect(fieldsOf(problem)).toEqual(['sort']);
  });

  it.each([['name,-name'], ['price,name,price'], ['id,id']])(
    'refuses sort=%s, which names a field twice, with 400 naming sort',
    async (sort) => {
      const response = await api.get(`/api/v1/products?sort=${sort}`);

      expect(fieldsOf(expectProblem(response, 400, 'bad_request'))).toEqual(['sort']);
    },
  );

  it.each([['name,,price'], ['name;drop'], ['--name']])(
    'refuses the malformed sort=%s with 400 naming sort',
    async (sort) => {
      const response = await api.get(`/api/v1/products?sort=${encodeURIComponent(sort)}`);

      expect(fieldsOf(expectProblem(response, 400, 'bad_request'))).toContain('sort');
    },
  );
});

describe('offset pages (v1 only)', () => {
  const path = (page: number) =>
    `/api/v1/products?category=${WALK_CATEGORY}&sort=name,-price&limit=10&page=${page}`;

  it('answers page=2&limit=10 with items 11 to 20 and page links to pages 1 and 3', async () => {
    const response = await api.get(path(2));

    const ids = expectPage(response, WALKED, 10);
    expect(ids).toEqual(EXPECTED['name,-price']().slice(10, 20));
    expect(response.body.pagination.page).toBe(2);
    const next = new URL(response.body.pagination.next);
    const prev = new URL(response.body.pagination.prev);
    expect(next.origin).toBe(api.baseUrl);
    expect(next.searchParams.get('page')).toBe('3');
    expect(prev.searchParams.get('page')).toBe('1');
    for (const url of [next, prev]) {
      expect(url.pathname).toBe('/api/v1/products');
      expect(url.searchParams.get('category')).toBe(WALK_CATEGORY);
      expect(url.searchParams.get('sort')).toBe('name,-price');
      expect(url.searchParams.get('limit')).toBe('10');
      expect(url.searchParams.has('cursor')).toBe(false);
    }
  });

  it('follows next from page 1 to page 5 and covers all 45 in order', async () => {
    const pages = [await api.get(path(1))];
    while (pages[pages.length - 1].body.pagination.next) {
      expect(pages.length).toBeLessThan(WALKED);
      pages.push(await follow(pages[pages.length - 1].body.pagination.next));
    }

    expect(pages.map((p) => p.body.pagination.page)).toEqual([1, 2, 3, 4, 5]);
    expect(pages.flatMap((p) => expectPage(p, WALKED, 10))).toEqual(EXPECTED['name,-price']());
    expect(pages[0].body.pagination.prev).toBeNull();
    expect(pages[4].body.pagination.next).toBeNull();
  });

  it.each([[6], [9]])(
    'answers page %s, past the end, with no items, no next, and the last page as prev',
    async (page) => {
      const response = await api.get(path(page));

      expect(expectPage(response, WALKED, 10)).toEqual([]);
      expect(response.body.pagination.next).toBeNull();
      expect(new URL(response.body.pagination.prev).searchParams.get('page')).toBe('5');
    },
  );

  it('answers a page past the end of an empty list with page 1 as prev', async () => {
    const response = await api.get(`/api/v1/products?category=none-${WALK_CATEGORY}&page=3`);

    expect(response.body.data).toEqual([]);
    expect(new URL(response.body.pagination.prev).searchParams.get('page')).toBe('1');
  });

  it.each([['0'], ['-1'], ['x'], ['0x2'], ['1e0'], ['%2B1'], ['1.0'], ['%201']])(
    'refuses page=%s with 400 naming page',
    async (page) => {
      const response = await api.get(`/api/v1/products?page=${page}`);

      expect(fieldsOf(expectProblem(response, 400, 'bad_request'))).toContain('page');
    },
  );

  // integers are decimal digits: what Number() would also read is not one
  it.each([['0x10'], ['0b11'], ['0o7'], ['1e1'], ['%2B5'], ['%205'], ['5%20'], ['5.0']])(
    'refuses limit=%s with 400 naming limit, on both versions',
    async (limit) => {
      for (const version of ['v1', 'v2']) {
        const response = await api.get(`/api/${version}/products?limit=${limit}`);
        expect(new Set(fieldsOf(expectProblem(response, 400, 'bad_request')))).toEqual(
          new Set(['limit']),
        );
      }
    },
  );

  it('takes limit with leading zeros as the decimal number it spells', async () => {
    const response = await api.get('/api/v2/products?limit=05');

    expect(response.status).toBe(200);
    expect(response.body.pagination.limit).toBe(5);
  });

  it.each([['/api/v2/products'], ['/api/v2/inventory']])(
    'refuses page on %s, which is cursor-only, with 400 naming page',
    async (collection) => {
      const response = await api.get(`${collection}?page=1`);

      expect(fieldsOf(expectProblem(response, 400, 'bad_request'))).toEqual(['page']);
    },
  );
});

describe('inventory collection', () => {
  it('walks every stock level once, ordered by sku, forward and back', async () => {
    const { forward, backward } = await walkBothWays('/api/v1/inventory?limit=10', 10);

    const total = forward[0].body.pagination.total as number;
    const forwardSkus = forward.flatMap((page) => expectPage(page, total, 10));
    const backwardSkus = backward.flatMap((page) => expectPage(page, total, 10));
    expect(total).toBeGreaterThanOrEqual(allSkus.length);
    expect(forwardSkus).toHaveLength(total);
    expect(new Set(forwardSkus).size).toBe(total);
    expect(forwardSkus).toEqual(expect.arrayContaining(allSkus));
    // every sku this file made is upper-case letters and digits: any collation agrees
    expect(forwardSkus.filter((sku) => allSkus.includes(sku))).toEqual([...allSkus].sort());
    expect(backwardSkus).toEqual(forwardSkus);
    expect(forward[0].body.pagination.prev).toBeNull();
    expect(forward[forward.length - 1].body.pagination.next).toBeNull();
  });
});

describe('product filters', () => {
  const names = (response: ApiResponse) => {
    expect(response.status).toBe(200);
    expect(response.body.pagination.total).toBe(response.body.data.length);
    return (response.body.data as { name: string }[]).map((p) => p.name).sort();
  };
  const list = (query: string) =>
    api.get(`/api/v1/products?category=${FILTER_CATEGORY}&limit=100&${query}`);

  it('category returns only that category', async () => {
    const response = await api.get(`/api/v1/products?category=${FILTER_CATEGORY}`);

    expect(names(response)).toEqual(
      ['Blue Widget', 'Green Gadget', 'Tiny widget', 'red WIDGET deluxe'].sort(),
    );
  });

  it('category with no products returns an empty page with total 0', async () => {
    const response = await api.get(`/api/v1/products?category=none-${RUN}`);

    expect(expectPage(response, 0, 20)).toEqual([]);
    expect(response.body.pagination).toMatchObject({ next: null, prev: null });
  });

  it('active=false returns only inactive products', async () => {
    expect(names(await list('active=false'))).toEqual(['Tiny widget', 'red WIDGET deluxe'].sort());
  });

  it('active=true returns only active products', async () => {
    expect(names(await list('active=true'))).toEqual(['Blue Widget', 'Green Gadget'].sort());
  });

  it.each([['widget'], ['WiDgEt']])(
    'q=%s matches a substring of the name whatever its case',
    async (q) => {
      expect(names(await list(`q=${q}`))).toEqual(
        ['Blue Widget', 'Tiny widget', 'red WIDGET deluxe'].sort(),
      );
    },
  );

  it.each([['%'], ['_']])('q=%s is a literal character, not a wildcard', async (q) => {
    expect(names(await list(`q=${encodeURIComponent(q)}`))).toEqual([]);
  });

  it('minPrice is inclusive and compares amounts as numbers', async () => {
    expect(names(await list('minPrice=10.00'))).toEqual(
      ['Blue Widget', 'Green Gadget', 'red WIDGET deluxe'].sort(),
    );
  });

  it('maxPrice is inclusive and compares amounts as numbers', async () => {
    expect(names(await list('maxPrice=25.50'))).toEqual(
      ['Blue Widget', 'Tiny widget', 'red WIDGET deluxe'].sort(),
    );
  });

  it('minPrice and maxPrice together bound the price on both sides', async () => {
    expect(names(await list('minPrice=6&maxPrice=30'))).toEqual(
      ['Blue Widget', 'red WIDGET deluxe'].sort(),
    );
  });

  it('filters combine and are kept in the next and prev links', async () => {
    const first = await api.get(
      `/api/v1/products?category=${FILTER_CATEGORY}&q=widget&active=false&limit=1&sort=name`,
    );
    const second = await follow(first.body.pagination.next);

    expect(first.body.pagination.total).toBe(2);
    expect(second.body.pagination.total).toBe(2);
    const seen = [...first.body.data, ...second.body.data].map((p: { name: string }) => p.name);
    // their relative order depends on the database collation ('T' and 'r'); the set does not
    expect(seen.sort()).toEqual(['Tiny widget', 'red WIDGET deluxe'].sort());
    for (const url of [first.body.pagination.next, second.body.pagination.prev]) {
      const params = new URL(url).searchParams;
      expect(params.get('q')).toBe('widget');
      expect(params.get('active')).toBe('false');
      expect(params.get('category')).toBe(FILTER_CATEGORY);
      expect(params.get('sort')).toBe('name');
    }
  });

  it.each([
    ['active=maybe', 'active'],
    ['minPrice=abc', 'minPrice'],
    ['maxPrice=-1', 'maxPrice'],
  ])('refuses the bad filter %s with 400 naming it', async (query, field) => {
    const response = await api.get(`/api/v1/products?${query}`);

    expect(fieldsOf(expectProblem(response, 400, 'bad_request'))).toContain(field);
  });
});

describe('round trips', () => {
  /** The statements about products the app sends while `work` runs. */
  async function productStatements(work: () => Promise<unknown>): Promise<string[]> {
    const runner = api.app.get(DataSource).createQueryRunner();
    const prototype = Object.getPrototypeOf(runner) as { query: (sql: string) => unknown };
    const query = jest.spyOn(prototype, 'query');
    await runner.release();
    try {
      await work();
      return query.mock.calls.map(([sql]) => String(sql)).filter((sql) => /\bproducts\b/.test(sql));
    } finally {
      query.mockRestore();
    }
  }

  it('reads a page and its total with one statement', async () => {
    let response: ApiResponse | undefined;

    const statements = await productStatements(async () => {
      response = await api.get(`/api/v2/products?category=${WALK_CATEGORY}&limit=10`);
    });

    expect(expectPage(response!, WALKED, 10)).toHaveLength(10);
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/COUNT\(\*\)/);
  });

  it('gives an empty page past the end the total of the list, counted on its own', async () => {
    let response: ApiResponse | undefined;

    const statements = await productStatements(async () => {
      response = await api.get(`/api/v1/products?category=${WALK_CATEGORY}&limit=20&page=4`);
    });

    expect(expectPage(response!, WALKED, 20)).toEqual([]);
    expect(response!.body.pagination).toMatchObject({ page: 4, next: null });
    expect(statements).toHaveLength(2);
  });
});
