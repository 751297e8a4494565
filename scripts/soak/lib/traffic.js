// The soak test's mixed traffic: a few sequential loops, each with an API key of its own,
// that create products and stock, place orders, move them through confirmation, invoicing,
// payment and shipping, and read pages. Every acknowledged create (201) is recorded with
// its id and acknowledged data, for the checks at the end.
const { randomUUID } = require('node:crypto');
const { Api, postIdempotent, retryable, retryDelayMs } = require('./client');
const { elapsed, log, pick, randomInt, sleep } = require('./util');

/** How long a create or a transition keeps retrying before its outcome counts as unknown. */
const RETRY_DEADLINE_MS = 200_000;
const CURRENCY = 'EUR';
const CUSTOMERS = Array.from(
  { length: 40 },
  (_, i) => `soak-customer-${String(i).padStart(2, '0')}`,
);

/**
 * What each order goes through after it is placed, with weights. Orders, invoices and
 * shipments move each other (docs/orders.md): shipping moves the order to shipped,
 * delivering the shipment to delivered, cancelling the shipment back to confirmed.
 */
const PLANS = [
  [10, []],
  [10, ['cancel']],
  [10, ['confirm']],
  [15, ['confirm', 'invoice', 'open', 'pay']],
  [8, ['confirm', 'invoice', 'void']],
  [15, ['confirm', 'ship', 'in_transit', 'deliver']],
  [22, ['confirm', 'invoice', 'open', 'pay', 'ship', 'in_transit', 'deliver']],
  [10, ['confirm', 'ship', 'cancel_shipment', 'cancel']],
];
const PLAN_WEIGHT = PLANS.reduce((sum, [w]) => sum + w, 0);

function pickPlan() {
  let r = Math.random() * PLAN_WEIGHT;
  for (const [weight, steps] of PLANS) {
    if ((r -= weight) < 0) return [...steps];
  }
  return [];
}

/** Everything the loops learned, for the checks at the end. */
class World {
  constructor(runId) {
    this.runId = runId;
    this.stopping = false;
    this.products = [];
    /** acknowledged adjustment ids by sku */
    this.adjustments = [];
    this.orders = new Map();
    this.invoices = new Map();
    this.shipments = new Map();
    /** orders with steps left, oldest first */
    this.active = [];
    /** creates and transitions whose outcome stayed unknown at their deadline */
    this.unresolved = [];
    /** answers no loop expected (a 4xx that should not happen, a 500, ...) */
    this.unexpected = [];
    this.counts = {
      productsCreated: 0,
      adjustmentsApplied: 0,
      adjustmentsRefused: 0,
      ordersCreated: 0,
      ordersRefusedInsufficientStock: 0,
      invoicesCreated: 0,
      shipmentsCreated: 0,
      transitions: 0,
      transitionsObservedAfterAmbiguousAnswer: 0,
      createsRetried: 0,
      createsReplayed: 0,
      reads: 0,
      notModified: 0,
    };
    this.health = [];
    /** creates that needed retries: how long until their final answer (ms) */
    this.retriedCreates = [];
  }

  noteCreate(path, result, startedMs) {
    if (result.attempts > 1) {
      this.counts.createsRetried += 1;
      this.retriedCreates.push({
        path: path.replace(/\/inventory\/[^/]+\//, '/inventory/:sku/'),
        attempts: result.attempts,
        ms: Math.round(performance.now() - startedMs),
        status: result.response.status,
      });
    }
    if (result.response.headers.get('idempotent-replayed') === 'true') {
      this.counts.createsReplayed += 1;
    }
  }

  unexpectedAnswer(loop, what, response) {
    const entry = {
      t: Math.round(elapsed()),
      loop,
      what,
      status: response.status,
      code: response.body?.code ?? null,
      detail: response.body?.detail ?? response.error ?? null,
    };
    this.unexpected.push(entry);
    if (this.unexpected.length <= 20) {
      log(
        `unexpected answer in ${loop}: ${what} -> ${entry.status} ${entry.code ?? ''} ${entry.detail ?? ''}`,
      );
    }
  }
}

/**
 * Spaces the requests of one sequential loop so that its key stays under the rate limit:
 * the soak is throttled only where it tests throttling.
 */
class PacedApi extends Api {
  constructor(options) {
    super(options);
    this.minGapMs = 1000 / options.maxRps;
    this.lastStart = 0;
  }

  async request(method, path, options) {
    const wait = this.lastStart + this.minGapMs - performance.now();
    if (wait > 0) await sleep(wait);
    this.lastStart = performance.now();
    return super.request(method, path, options);
  }
}

function money(cents) {
  return (cents / 100).toFixed(2);
}

/** A POST with an Idempotency-Key that keeps its key across retries; counts the retries. */
async function create(world, api, path, body) {
  const started = performance.now();
  const result = await postIdempotent(api, path, body, {
    deadlineMs: Date.now() + RETRY_DEADLINE_MS,
  });
  world.noteCreate(path, result, started);
  if (retryable(result.response)) {
    world.unresolved.push({
      kind: 'create',
      path,
      key: result.key,
      status: result.response.status,
    });
  }
  return result;
}

/**
 * A status change (PATCH, not idempotent). After an ambiguous answer (network error, 5xx,
 * 429) the resource is read back: when it already has the target status the change was
 * made. Returns 'ok', or a reason.
 */
async function transition(
  world,
  api,
  { path, body, readPath, target, statusOf = (b) => b.status },
) {
  const deadline = Date.now() + RETRY_DEADLINE_MS;
  for (let attempt = 1; ; attempt++) {
    const response = await api.request('PATCH', path, { body });
    if (response.status === 200) return { ok: true, body: response.body };
    const ambiguous = retryable(response);
    if (!ambiguous && response.status !== 409) return { ok: false, response };
    if (ambiguous) await sleep(retryDelayMs(response, attempt));
    const current = await api.get(readPath);
    if (current.status === 200 && statusOf(current.body) === target) {
      world.counts.transitionsObservedAfterAmbiguousAnswer += 1;
      return { ok: true, body: current.body };
    }
    if (!ambiguous) return { ok: false, response };
    if (Date.now() >= deadline) {
      world.unresolved.push({ kind: 'transition', path, target, status: response.status });
      return { ok: false, response, unresolved: true };
    }
  }
}

// ---------------------------------------------------------------------------------------
// catalog: products, stock (adjustments only, so on-hand stock equals its ledger), reads

async function catalogStep(world, api) {
  const r = Math.random();
  if (world.products.length < 15 || (world.products.length < 300 && r < 0.25)) {
    const n = world.products.length + 1;
    const price = randomInt(100, 9999);
    const body = {
      sku: `SOAK-${world.runId}-${n}`,
      name: `Soak product ${n}`,
      category: pick(['apparel', 'books', 'garden', 'kitchen']),
      price: money(price),
      currency: CURRENCY,
    };
    const { response } = await create(world, api, '/api/v1/products', body);
    if (response.status !== 201) {
      if (!retryable(response)) world.unexpectedAnswer('catalog', 'POST /products', response);
      return;
    }
    world.counts.productsCreated += 1;
    const product = { id: response.body.id, sku: response.body.sku, price: response.body.price };
    await adjust(world, api, product.sku, randomInt(10, 40), 'soak: initial stock');
    world.products.push(product);
    return;
  }
  if (r < 0.55) {
    await adjust(world, api, pick(hotProducts(world)).sku, randomInt(2, 12), 'soak: restock');
    return;
  }
  if (r < 0.6) {
    // a write-off that may be refused when the units are reserved: stock never goes negative
    await adjust(world, api, pick(world.products).sku, -randomInt(1, 3), 'soak: write-off');
    return;
  }
  const product = pick(world.products);
  const read = await api.get(`/api/v1/products/${product.id}`);
  await countRead(world, 'catalog', read, `GET /products/${product.id}`);
  if (read.status === 200 && read.headers.get('etag')) {
    const again = await api.get(`/api/v1/products/${product.id}`, {
      headers: { 'if-none-match': read.headers.get('etag') },
    });
    await countRead(world, 'catalog', again, 'GET /products/:id If-None-Match');
  }
  const inventory = await api.get(`/api/v2/inventory/${product.sku}`);
  await countRead(world, 'catalog', inventory, 'GET /inventory/:sku');
  if (inventory.status === 200) {
    const { quantityOnHand, quantityReserved, quantityAvailable } = inventory.body;
    if (
      quantityAvailable !== quantityOnHand - quantityReserved ||
      quantityAvailable < 0 ||
      quantityReserved < 0
    ) {
      world.unexpectedAnswer('catalog', `inconsistent stock of ${product.sku}`, inventory);
    }
  }
  await readPages(world, api, 'catalog', '/api/v2/products?limit=20&sort=-createdAt', 2);
}

async function adjust(world, api, sku, delta, reason) {
  const { response } = await create(world, api, `/api/v1/inventory/${sku}/adjustments`, {
    delta,
    reason,
  });
  if (response.status === 201) {
    world.counts.adjustmentsApplied += 1;
    world.adjustments.push({ id: response.body.id, sku, delta });
  } else if (delta < 0 && (response.status === 409 || response.status === 422)) {
    world.counts.adjustmentsRefused += 1;
  } else if (!retryable(response)) {
    world.unexpectedAnswer('catalog', `POST /inventory/${sku}/adjustments ${delta}`, response);
  }
}

/** Orders mostly go to the newest products, so stock runs short and reservations contend. */
function hotProducts(world) {
  return Math.random() < 0.7 ? world.products.slice(-25) : world.products;
}

// ---------------------------------------------------------------------------------------
// orders: placed with an Idempotency-Key, retried with the same key; then read back

async function orderStep(world, api, loop) {
  if (world.products.length < 5) return sleep(200);
  const pool = hotProducts(world);
  const chosen = new Map();
  const lines = randomInt(1, 3);
  for (let i = 0; i < lines; i++) {
    const product = pick(pool);
    chosen.set(product.sku, randomInt(1, 3));
  }
  const key = randomUUID();
  const body = {
    customerId: pick(CUSTOMERS),
    lines: [...chosen].map(([sku, quantity]) => ({ sku, quantity })),
    shippingAddress: {
      name: 'Soak Tester',
      line1: '1 Loopback Lane',
      city: 'Berlin',
      postalCode: '10115',
      country: 'DE',
    },
    // the key in the order itself: duplicates for one key are found in the database
    notes: `soak ${key}`,
  };
  const started = performance.now();
  const result = await postIdempotent(api, '/api/v1/orders', body, {
    deadlineMs: Date.now() + RETRY_DEADLINE_MS,
    key,
  });
  const { response } = result;
  world.noteCreate('/api/v1/orders', result, started);
  if (response.status === 409 && response.body?.code === 'insufficient_stock') {
    world.counts.ordersRefusedInsufficientStock += 1;
    return;
  }
  if (response.status !== 201) {
    if (retryable(response)) {
      world.unresolved.push({
        kind: 'create',
        path: '/api/v1/orders',
        key,
        status: response.status,
      });
    } else {
      world.unexpectedAnswer(loop, 'POST /orders', response);
    }
    return;
  }
  world.counts.ordersCreated += 1;
  const order = {
    id: response.body.id,
    key,
    ackedAt: Math.round(elapsed()),
    customerId: response.body.customerId,
    total: response.body.total,
    currency: response.body.currency,
    lines: response.body.lines.map((l) => ({
      sku: l.sku,
      quantity: l.quantity,
      unitPrice: l.unitPrice,
    })),
    status: 'pending',
    plan: pickPlan(),
    uncertain: null,
    invoiceId: null,
    shipmentId: null,
  };
  if (order.customerId !== body.customerId || order.lines.length !== body.lines.length) {
    world.unexpectedAnswer(loop, 'POST /orders answered other data than sent', response);
  }
  world.orders.set(order.id, order);
  if (order.plan.length) world.active.push(order);

  const v = Math.random() < 0.5 ? 'v1' : 'v2';
  const read = await api.get(`/api/${v}/orders/${order.id}`);
  await countRead(world, loop, read, 'GET /orders/:id');
  if (Math.random() < 0.3) {
    await readPages(
      world,
      api,
      loop,
      `/api/v1/orders?status=pending&customerId=${body.customerId}&limit=10`,
      2,
    );
  }
}

// ---------------------------------------------------------------------------------------
// fulfilment: the next step of an order's plan

async function fulfilmentStep(world, api) {
  const now = elapsed();
  const index = world.active.findIndex((o) => now - o.ackedAt > 300);
  if (index < 0) return sleep(100);
  const [order] = world.active.splice(index, 1);
  const step = order.plan.shift();
  const ok = await runStep(world, api, order, step);
  if (ok && order.plan.length) world.active.push(order);
}

async function runStep(world, api, order, step) {
  const orderChange = (target) =>
    transition(world, api, {
      path: `/api/v1/orders/${order.id}/status`,
      body: { status: target },
      readPath: `/api/v1/orders/${order.id}`,
      target,
    });
  const invoiceChange = (target) =>
    transition(world, api, {
      path: `/api/v1/invoices/${order.invoiceId}/status`,
      body: { status: target },
      readPath: `/api/v1/invoices/${order.invoiceId}`,
      target,
    });
  const shipmentChange = (target) =>
    transition(world, api, {
      path: `/api/v1/shipments/${order.shipmentId}`,
      body: { status: target },
      readPath: `/api/v1/shipments/${order.shipmentId}`,
      target,
    });
  const settle = (result, apply) => {
    if (result.ok) {
      world.counts.transitions += 1;
      apply();
      return true;
    }
    order.uncertain = `${step}: ${result.response?.status} ${result.response?.body?.code ?? ''}`;
    if (!result.unresolved) {
      world.unexpectedAnswer('fulfilment', `${step} of order ${order.id}`, result.response);
    }
    return false;
  };

  switch (step) {
    case 'confirm':
      return settle(await orderChange('confirmed'), () => (order.status = 'confirmed'));
    case 'cancel':
      return settle(await orderChange('cancelled'), () => (order.status = 'cancelled'));
    case 'invoice': {
      const { response } = await create(world, api, '/api/v1/invoices', { orderId: order.id });
      if (response.status !== 201) {
        order.uncertain = `invoice: ${response.status}`;
        if (!retryable(response)) {
          world.unexpectedAnswer('fulfilment', `invoice order ${order.id}`, response);
        }
        return false;
      }
      world.counts.invoicesCreated += 1;
      order.invoiceId = response.body.id;
      world.invoices.set(response.body.id, {
        id: response.body.id,
        number: response.body.number,
        orderId: order.id,
        total: response.body.total,
        currency: response.body.currency,
        status: response.body.status,
      });
      return true;
    }
    case 'open':
    case 'pay':
    case 'void': {
      const target = { open: 'open', pay: 'paid', void: 'void' }[step];
      const invoice = world.invoices.get(order.invoiceId);
      return settle(await invoiceChange(target), () => (invoice.status = target));
    }
    case 'ship': {
      const { response } = await create(world, api, '/api/v1/shipments', {
        orderId: order.id,
        carrier: pick(['DHL', 'UPS', 'DPD']),
        trackingNumber: `TRK${randomInt(100000, 999999)}`,
      });
      if (response.status !== 201) {
        order.uncertain = `ship: ${response.status}`;
        if (!retryable(response)) {
          world.unexpectedAnswer('fulfilment', `ship order ${order.id}`, response);
        }
        return false;
      }
      world.counts.shipmentsCreated += 1;
      order.shipmentId = response.body.id;
      order.status = 'shipped';
      world.shipments.set(response.body.id, {
        id: response.body.id,
        orderId: order.id,
        status: response.body.status,
      });
      return true;
    }
    case 'in_transit':
    case 'deliver':
    case 'cancel_shipment': {
      const target = {
        in_transit: 'in_transit',
        deliver: 'delivered',
        cancel_shipment: 'cancelled',
      }[step];
      const shipment = world.shipments.get(order.shipmentId);
      return settle(await shipmentChange(target), () => {
        shipment.status = target;
        if (target === 'delivered') order.status = 'delivered';
        if (target === 'cancelled') order.status = 'confirmed';
      });
    }
    default:
      throw new Error(`unknown step ${step}`);
  }
}

// ---------------------------------------------------------------------------------------
// reader: pages of every collection, conditional GETs

const READS = [
  '/api/v1/orders?limit=50&sort=-createdAt',
  '/api/v2/orders?limit=20&status=confirmed',
  '/api/v1/orders?page=2&limit=20',
  '/api/v2/invoices?limit=20&status=paid',
  '/api/v1/invoices?limit=20&sort=-number',
  '/api/v1/shipments?limit=20&status=in_transit',
  '/api/v1/events?limit=50&sort=-createdAt',
  '/api/v2/inventory?limit=50&belowReorderLevel=false',
  '/api/v1/products?limit=20&category=books&sort=price',
];

async function readerStep(world, api) {
  await readPages(world, api, 'reader', pick(READS), 3);
  const ids = [...world.orders.keys()];
  if (ids.length) {
    const first = await api.get(`/api/v1/orders/${pick(ids)}/status`);
    await countRead(world, 'reader', first, 'GET /orders/:id/status');
  }
}

/** A list and up to `pages - 1` of its next pages (pagination.next is absolute). */
async function readPages(world, api, loop, path, pages) {
  let next = path;
  for (let i = 0; i < pages && next; i++) {
    const response = await api.get(next);
    await countRead(world, loop, response, `GET ${path.split('?')[0]} page ${i + 1}`);
    if (response.status !== 200) return;
    next = response.body?.pagination?.next ?? null;
  }
}

async function countRead(world, loop, response, what) {
  if (response.status === 200) world.counts.reads += 1;
  else if (response.status === 304) world.counts.notModified += 1;
  else if (!retryable(response)) world.unexpectedAnswer(loop, what, response);
  else if (response.status === 503) await sleep(100);
}

// ---------------------------------------------------------------------------------------
// probe: readiness and one cheap API read, several times a second, for the fault windows

async function probeStep(world, api, healthApi, index) {
  const ready = await healthApi.get('/health/ready', { instance: index % 2 });
  world.health.push({
    t: Math.round(ready.entry.t0),
    instance: index % 2,
    status: ready.status,
    ms: ready.entry.ms,
    overall: ready.body?.status ?? null,
    database: ready.body?.details?.database?.status ?? null,
    redis: ready.body?.details?.redis?.status ?? null,
  });
  const read = await api.get('/api/v1/products?limit=1', { instance: index % 2 });
  await countRead(world, 'probe', read, 'GET /products?limit=1');
}

// ---------------------------------------------------------------------------------------

/**
 * Starts the loops; returns `stop()`, which ends them after their current step (creates
 * still retrying finish first, so their outcome is known).
 */
function startTraffic({ world, bases, keys, recorder, maxRps }) {
  const make = (loop, key, rps = maxRps) =>
    new PacedApi({ bases, key, recorder, loop, maxRps: rps });
  const loops = [
    ['catalog', make('catalog', keys.catalog), catalogStep],
    ['orders-1', make('orders-1', keys.orders1), (w, a) => orderStep(w, a, 'orders-1')],
    ['orders-2', make('orders-2', keys.orders2), (w, a) => orderStep(w, a, 'orders-2')],
    ['fulfilment', make('fulfilment', keys.fulfilment), fulfilmentStep],
    ['reader', make('reader', keys.reader), readerStep],
  ];
  const probeApi = make('probe', keys.probe, 10);
  const healthApi = new Api({ bases, key: null, recorder, loop: 'probe', timeoutMs: 10_000 });
  let probes = 0;
  loops.push(['probe', probeApi, (w, a) => probeStep(w, a, healthApi, probes++)]);

  const running = loops.map(async ([name, api, step]) => {
    while (!world.stopping) {
      try {
        await step(world, api);
      } catch (error) {
        world.unexpected.push({
          t: Math.round(elapsed()),
          loop: name,
          what: 'loop threw',
          detail: String(error?.stack ?? error),
        });
        log(`loop ${name} threw: ${error?.stack ?? error}`);
        await sleep(500);
      }
    }
  });
  return async () => {
    world.stopping = true;
    await Promise.all(running);
  };
}

/**
 * Rate-limit check: `n` quick GETs with one fresh key, spread over the instances. With
 * Redis every instance shares one budget, so exactly `limit` are served; without it each
 * instance counts on its own (up to `limit` each).
 */
async function throttleBurst({ bases, key, recorder, n, concurrency = 8, label }) {
  const api = new Api({ bases, key, recorder, loop: `throttle:${label}` });
  const counts = {
    label,
    sent: 0,
    served: 0,
    limited: 0,
    limitedWithRetryAfter: 0,
    limitedAsProblem: 0,
    other: 0,
    otherStatuses: {},
  };
  const started = elapsed();
  let next = 0;
  const lane = async () => {
    while (next < n) {
      const i = next++;
      const response = await api.get('/api/v1/products?limit=1', { instance: i % bases.length });
      counts.sent += 1;
      if (response.status === 200) counts.served += 1;
      else if (response.status === 429) {
        counts.limited += 1;
        if (Number(response.headers.get('retry-after')) > 0) counts.limitedWithRetryAfter += 1;
        if (response.entry.problem && response.body?.code === 'rate_limited') {
          counts.limitedAsProblem += 1;
        }
      } else {
        counts.other += 1;
        counts.otherStatuses[response.status] = (counts.otherStatuses[response.status] ?? 0) + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  counts.seconds = Math.round((elapsed() - started) / 100) / 10;
  return counts;
}

module.exports = { World, startTraffic, throttleBurst, PLANS };
