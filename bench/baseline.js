'use strict';
/**
 * The yardstick of `npm run bench`: bare Fastify + `pg` answering the same queries as the
 * API's benchmarked routes, with none of the API's pipeline (no authentication, rate
 * limit, validation, ORM or problem mapping). The API's figures are read as ratios to
 * this server's, measured in the same run, so they hold on a noisy machine.
 *
 * Started by bench/run.js with DATABASE_URL and PORT; not part of the product.
 */
const { randomUUID } = require('node:crypto');
const Fastify = require('fastify');
const { Pool } = require('pg');

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = Fastify({ logger: false });

const PRODUCT_COLUMNS = `id, sku, name, description, category, price_minor, price_scale, currency,
  active, version, created_at, updated_at`;

const product = (row) => ({
  id: row.id,
  sku: row.sku,
  name: row.name,
  description: row.description,
  category: row.category,
  price: {
    amount: (Number(row.price_minor) / 10 ** row.price_scale).toFixed(row.price_scale),
    currency: row.currency,
  },
  active: row.active,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

const BY_ID = `SELECT ${PRODUCT_COLUMNS} FROM products WHERE id = $1 AND archived_at IS NULL`;

app.get('/products/:id', async (request, reply) => {
  const { rows } = await pool.query(BY_ID, [request.params.id]);
  if (rows.length === 0) return reply.code(404).send({ status: 404 });
  const etag = `"${rows[0].version}"`;
  reply.header('etag', etag);
  if (request.headers['if-none-match'] === etag) return reply.code(304).send();
  return product(rows[0]);
});

/** The keyset list by category under -createdAt, with `total`; `cursor` is "createdAt,id". */
app.get('/products', async (request) => {
  const { category, cursor, page } = request.query;
  const limit = 20;
  const values = [category];
  let where = 'category = $1 AND archived_at IS NULL';
  if (cursor) {
    const [createdAt, id] = Buffer.from(cursor, 'base64url').toString().split(',');
    values.push(createdAt, id);
    where += ' AND (created_at, id) < ($2, $3)';
  }
  const offset = page ? (Number(page) - 1) * limit : 0;
  const [count, list] = await Promise.all([
    pool.query(
      'SELECT count(*)::int AS total FROM products WHERE category = $1 AND archived_at IS NULL',
      [category],
    ),
    pool.query(
      `SELECT ${PRODUCT_COLUMNS} FROM products WHERE ${where}
       ORDER BY created_at DESC, id DESC LIMIT ${limit + 1} OFFSET ${offset}`,
      values,
    ),
  ]);
  const items = list.rows.slice(0, limit);
  const last = items[items.length - 1];
  return {
    data: items.map(product),
    pagination: {
      total: count.rows[0].total,
      limit,
      next:
        list.rows.length > limit
          ? Buffer.from(`${last.created_at.toISOString()},${last.id}`).toString('base64url')
          : null,
    },
  };
});

/** The same writes as the API's order creation, in one transaction, stock guarded. */
app.post('/orders', async (request, reply) => {
  const { lines, customerId, shippingAddress } = request.body;
  const sorted = [...lines].sort((a, b) => (a.sku < b.sku ? -1 : 1));
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows: products } = await client.query(
      'SELECT id, sku, name, price_minor, price_scale, currency FROM products WHERE sku = ANY($1) AND archived_at IS NULL AND active',
      [sorted.map((l) => l.sku)],
    );
    for (const line of sorted) {
      const { rowCount } = await client.query(
        `UPDATE inventory_items SET quantity_reserved = quantity_reserved + $2
         WHERE sku = $1 AND quantity_on_hand - quantity_reserved >= $2`,
        [line.sku, line.quantity],
      );
      if (rowCount === 0) {
        await client.query('ROLLBACK');
        return reply.code(409).send({ status: 409 });
      }
    }
    const id = randomUUID();
    const bySku = new Map(products.map((p) => [p.sku, p]));
    let total = 0;
    const lineRows = lines.map((l, i) => {
      const p = bySku.get(l.sku);
      total += Number(p.price_minor) * l.quantity;
      return [
        id,
        i + 1,
        l.sku,
        p.id,
        p.name,
        l.quantity,
        p.price_minor,
        Number(p.price_minor) * l.quantity,
      ];
    });
    await client.query(
      `INSERT INTO orders (id, customer_id, status, currency, total_minor, total_scale, shipping_address)
       VALUES ($1, $2, 'pending', $3, $4, $5, $6)`,
      [id, customerId, products[0].currency, total, products[0].price_scale, shippingAddress],
    );
    const placeholders = lineRows.map(
      (_, i) =>
        `($${i * 8 + 1}, $${i * 8 + 2}, $${i * 8 + 3}, $${i * 8 + 4}, $${i * 8 + 5}, $${i * 8 + 6}, $${i * 8 + 7}, $${i * 8 + 8})`,
    );
    await client.query(
      `INSERT INTO order_lines (order_id, line_no, sku, product_id, name, quantity, unit_price_minor, line_total_minor)
       VALUES ${placeholders.join(', ')}`,
      lineRows.flat(),
    );
    await client.query(
      `INSERT INTO order_status_history (order_id, order_version, to_status, actor) VALUES ($1, 1, 'pending', 'bench')`,
      [id],
    );
    const order = { id, customerId, status: 'pending', lines, shippingAddress, total };
    await client.query(
      `INSERT INTO events (id, type, resource_type, resource_id, payload) VALUES ($1, 'order.created', 'order', $2, $3)`,
      [randomUUID(), id, JSON.stringify(order)],
    );
    await client.query('COMMIT');
    return reply.code(201).send(order);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
});

app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' }).then(
  () => process.send?.('ready'),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
process.once(
  'SIGTERM',
  () =>
    void app
      .close()
      .then(() => pool.end())
      .then(() => process.exit(0)),
);
