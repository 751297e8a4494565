// The soak test's verdict: what the database holds against what the API acknowledged, what
// the receiver got against the outbox, and how the API answered in each fault window.
const { Client } = require('pg');
const { formatMinor, latencySummary } = require('./util');

/** Answers from these loops are judged separately (they probe limits on purpose). */
const isThrottle = (e) => e.loop.startsWith('throttle:');
const isApi = (e) => e.route.split(' ')[1].startsWith('/api/');

function check(name, ok, details = {}) {
  return { name, ok: Boolean(ok), ...details };
}

function countBy(list, keyOf) {
  const counts = {};
  for (const item of list) {
    const key = keyOf(item);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/**
 * How the API answered while PostgreSQL was down: every /api answer to a request made
 * after the server had stopped and finished before it was started again must be a 503
 * problem with Retry-After, and quick; nothing may hang.
 */
function judgePostgresWindow(entries, window, maxLatencyMs) {
  const during = entries.filter((e) => e.t0 >= window.stopped && e.t1 <= window.startIssued);
  const api = during.filter(isApi);
  const bad = api.filter(
    (e) =>
      e.status !== 503 ||
      !e.problem ||
      !(Number(e.retryAfter) > 0) ||
      e.code !== 'service_unavailable',
  );
  // everything started between the stop command and the start command, to catch hangs
  const around = entries.filter((e) => e.t0 >= window.stopIssued && e.t0 <= window.startIssued);
  const latency = latencySummary(around.map((e) => e.ms));
  const health = during.filter((e) => e.route === 'GET /health/ready');
  return {
    window: {
      stopIssuedAtS: round1(window.stopIssued / 1000),
      stoppedAtS: round1(window.stopped / 1000),
      startIssuedAtS: round1(window.startIssued / 1000),
      readyAtS: round1(window.started / 1000),
      downSeconds: round1((window.started - window.stopped) / 1000),
    },
    apiRequestsWhileDown: api.length,
    answersWhileDown: countBy(api, (e) => `${e.status}${e.code ? ` ${e.code}` : ''}`),
    badAnswers: bad.length,
    badSamples: bad.slice(0, 5),
    readinessWhileDown: countBy(health, (e) => e.status),
    latencyOfEverythingStartedInTheWindowMs: latency,
    maxLatencyMs: latency.max,
    maxLatencyAllowedMs: maxLatencyMs,
    ok:
      api.length > 0 &&
      bad.length === 0 &&
      (latency.max ?? 0) <= maxLatencyMs &&
      health.every((e) => e.status === 503),
  };
}

/** While Redis was down: requests are served, readiness says degraded (still 200). */
function judgeRedisWindow(entries, health, window) {
  const graceMs = 2000;
  const during = entries.filter(
    (e) =>
      e.t0 >= window.stopped + graceMs && e.t1 <= window.startIssued && !isThrottle(e) && isApi(e),
  );
  const served = during.filter((e) => e.status >= 200 && e.status < 400);
  const failed = during.filter((e) => e.status >= 500 || e.status === 0 || e.status === 429);
  const probes = health.filter((h) => h.t >= window.stopped + graceMs && h.t <= window.startIssued);
  const degraded = probes.filter((h) => h.status === 200 && h.redis === 'degraded');
  return {
    window: {
      stoppedAtS: round1(window.stopped / 1000),
      startIssuedAtS: round1(window.startIssued / 1000),
      downSeconds: round1((window.startIssued - window.stopped) / 1000),
    },
    apiRequestsWhileDown: during.length,
    served: served.length,
    failed: failed.length,
    failedSamples: failed.slice(0, 5),
    answers: countBy(during, (e) => e.status),
    latencyMs: latencySummary(during.map((e) => e.ms)),
    readinessProbes: probes.length,
    readinessDegraded200: degraded.length,
    readinessSamples: probes.slice(0, 3),
    ok:
      served.length > 0 &&
      failed.length === 0 &&
      probes.length > 0 &&
      degraded.length === probes.length,
  };
}

function round1(v) {
  return Math.round(v * 10) / 10;
}

const money = (minor, scale) => formatMinor(minor, Number(scale));

/** Everything the database must agree with. */
async function verifyDatabase(url, world, receiver, endpointId) {
  const db = new Client({ connectionString: url });
  await db.connect();
  const q = async (sql, params) => (await db.query(sql, params)).rows;
  const checks = [];
  try {
    // --- orders: every acknowledged one, with its acknowledged data and last status
    const orderRows = await q(
      `SELECT o.id, o.customer_id, o.status, o.currency, o.total_minor, o.total_scale, o.notes,
              json_agg(json_build_object('sku', l.sku, 'quantity', l.quantity) ORDER BY l.sku) AS lines
         FROM orders o JOIN order_lines l ON l.order_id = o.id GROUP BY o.id`,
    );
    const ordersById = new Map(orderRows.map((r) => [r.id, r]));
    const orderProblems = [];
    let statusChecked = 0;
    for (const order of world.orders.values()) {
      const row = ordersById.get(order.id);
      if (!row) {
        orderProblems.push({ id: order.id, problem: 'missing' });
        continue;
      }
      const lines = [...order.lines].sort((a, b) => a.sku.localeCompare(b.sku));
      const sameLines =
        lines.length === row.lines.length &&
        lines.every((l, i) => l.sku === row.lines[i].sku && l.quantity === row.lines[i].quantity);
      const same =
        row.customer_id === order.customerId &&
        row.currency === order.currency &&
        money(row.total_minor, row.total_scale) === order.total &&
        row.notes === `soak ${order.key}` &&
        sameLines;
      if (!same) {
        orderProblems.push({ id: order.id, problem: 'data differs', row, acknowledged: order });
      }
      if (!order.uncertain) {
        statusChecked += 1;
        if (row.status !== order.status) {
          orderProblems.push({
            id: order.id,
            problem: `status ${row.status}, acknowledged ${order.status}`,
          });
        }
      }
    }
    checks.push(
      check(
        'every acknowledged order is stored with its acknowledged data and status',
        orderProblems.length === 0,
        {
          acknowledged: world.orders.size,
          statusChecked,
          problems: orderProblems.slice(0, 10),
          problemCount: orderProblems.length,
        },
      ),
    );

    const duplicates = await q(
      `SELECT notes, count(*)::int AS n FROM orders WHERE notes LIKE 'soak %' GROUP BY notes HAVING count(*) > 1`,
    );
    const ackedKeys = new Set([...world.orders.values()].map((o) => `soak ${o.key}`));
    const unacknowledged = orderRows.filter((r) => !ackedKeys.has(r.notes));
    checks.push(
      check('no Idempotency-Key produced more than one order', duplicates.length === 0, {
        ordersInDatabase: orderRows.length,
        duplicateKeys: duplicates.slice(0, 10),
        ordersWithoutAcknowledgement: unacknowledged.length,
      }),
    );

    // --- invoices: stored as acknowledged; numbers unique and without gaps
    const invoiceRows = await q(
      `SELECT id, number, order_id, status, total_minor, total_scale, currency, paid_at FROM invoices`,
    );
    const invoicesById = new Map(invoiceRows.map((r) => [r.id, r]));
    const invoiceProblems = [];
    for (const invoice of world.invoices.values()) {
      const row = invoicesById.get(invoice.id);
      if (!row) {
        invoiceProblems.push({ id: invoice.id, problem: 'missing' });
        continue;
      }
      const order = world.orders.get(invoice.orderId);
      if (
        row.number !== invoice.number ||
        row.order_id !== invoice.orderId ||
        money(row.total_minor, row.total_scale) !== invoice.total ||
        invoice.total !== order.total
      ) {
        invoiceProblems.push({
          id: invoice.id,
          problem: 'data differs',
          row,
          acknowledged: invoice,
        });
      }
      if (!order.uncertain && row.status !== invoice.status) {
        invoiceProblems.push({
          id: invoice.id,
          problem: `status ${row.status}, acknowledged ${invoice.status}`,
        });
      }
      if ((row.status === 'paid') !== (row.paid_at !== null)) {
        invoiceProblems.push({ id: invoice.id, problem: 'paidAt does not match status' });
      }
    }
    const byYear = {};
    for (const row of invoiceRows) {
      const [, year, seq] = /^INV-(\d{4})-(\d+)$/.exec(row.number) ?? [];
      (byYear[year] ??= []).push(Number(seq));
    }
    const gaps = Object.entries(byYear).filter(([, seqs]) => {
      seqs.sort((a, b) => a - b);
      return seqs.some((s, i) => s !== i + 1);
    });
    checks.push(
      check(
        'every acknowledged invoice is stored as acknowledged; numbers have no gaps',
        invoiceProblems.length === 0 && gaps.length === 0,
        {
          acknowledged: world.invoices.size,
          inDatabase: invoiceRows.length,
          problems: invoiceProblems.slice(0, 10),
          problemCount: invoiceProblems.length,
          yearsWithGaps: gaps.map(([year]) => year),
        },
      ),
    );

    const shipmentRows = await q(`SELECT id, order_id, status FROM shipments`);
    const shipmentsById = new Map(shipmentRows.map((r) => [r.id, r]));
    const shipmentProblems = [];
    for (const shipment of world.shipments.values()) {
      const row = shipmentsById.get(shipment.id);
      const order = world.orders.get(shipment.orderId);
      if (!row) shipmentProblems.push({ id: shipment.id, problem: 'missing' });
      else if (row.order_id !== shipment.orderId) {
        shipmentProblems.push({ id: shipment.id, problem: 'order differs' });
      } else if (!order.uncertain && row.status !== shipment.status) {
        shipmentProblems.push({
          id: shipment.id,
          problem: `status ${row.status}, acknowledged ${shipment.status}`,
        });
      }
    }
    checks.push(
      check(
        'every acknowledged shipment is stored as acknowledged',
        shipmentProblems.length === 0,
        {
          acknowledged: world.shipments.size,
          inDatabase: shipmentRows.length,
          problems: shipmentProblems.slice(0, 10),
        },
      ),
    );

    // --- stock: never negative, reserved within on hand, on hand = its ledger, reserved =
    // the open orders' lines
    const stock = await q(
      `SELECT i.sku, i.quantity_on_hand AS on_hand, i.quantity_reserved AS reserved,
              coalesce((SELECT sum(a.delta) FROM inventory_adjustments a WHERE a.sku = i.sku), 0)::int AS ledger,
              coalesce((SELECT sum(l.quantity) FROM order_lines l JOIN orders o ON o.id = l.order_id
                         WHERE l.sku = i.sku AND o.status IN ('pending', 'confirmed')), 0)::int AS open_lines
         FROM inventory_items i`,
    );
    const stockProblems = stock.filter(
      (s) =>
        s.on_hand < 0 ||
        s.reserved < 0 ||
        s.reserved > s.on_hand ||
        s.on_hand !== s.ledger ||
        s.reserved !== s.open_lines,
    );
    const adjustmentIds = new Set(
      (await q(`SELECT id FROM inventory_adjustments`)).map((r) => r.id),
    );
    const missingAdjustments = world.adjustments.filter((a) => !adjustmentIds.has(a.id));
    checks.push(
      check(
        'stock: never negative, reserved <= on hand, on hand = ledger, reserved = open orders; acknowledged adjustments stored',
        stockProblems.length === 0 && missingAdjustments.length === 0,
        {
          skus: stock.length,
          unitsOnHand: stock.reduce((s, r) => s + r.on_hand, 0),
          unitsReserved: stock.reduce((s, r) => s + r.reserved, 0),
          problems: stockProblems.slice(0, 10),
          acknowledgedAdjustments: world.adjustments.length,
          missingAdjustments: missingAdjustments.slice(0, 10),
        },
      ),
    );

    // --- outbox: every committed change has its event
    const events = await q(`SELECT id, type, resource_id, fanned_out_at FROM events`);
    const eventsOf = new Map();
    for (const e of events) {
      const key = `${e.type} ${e.resource_id}`;
      eventsOf.set(key, (eventsOf.get(key) ?? 0) + 1);
    }
    const missingCreated = [
      ...[...world.orders.keys()].map((id) => `order.created ${id}`),
      ...[...world.invoices.keys()].map((id) => `invoice.created ${id}`),
      ...[...world.shipments.keys()].map((id) => `shipment.created ${id}`),
    ].filter((key) => !eventsOf.get(key));
    const historyMismatch = await q(
      `SELECT o.id,
              (SELECT count(*) FROM order_status_history h WHERE h.order_id = o.id AND h.from_status IS NOT NULL)::int AS changes,
              (SELECT count(*) FROM events e WHERE e.resource_id = o.id::text AND e.type = 'order.status_changed')::int AS events
         FROM orders o
        WHERE (SELECT count(*) FROM order_status_history h WHERE h.order_id = o.id AND h.from_status IS NOT NULL)
           <> (SELECT count(*) FROM events e WHERE e.resource_id = o.id::text AND e.type = 'order.status_changed')`,
    );
    const paid = await q(
      `SELECT (SELECT count(*) FROM invoices WHERE status = 'paid')::int AS paid,
              (SELECT count(*) FROM events WHERE type = 'invoice.paid')::int AS events`,
    );
    checks.push(
      check(
        'outbox: every acknowledged create and every status change has its event',
        missingCreated.length === 0 &&
          historyMismatch.length === 0 &&
          paid[0].paid === paid[0].events,
        {
          events: events.length,
          eventsByType: countBy(events, (e) => e.type),
          missingCreatedEvents: missingCreated.slice(0, 10),
          ordersWhoseStatusChangesAndEventsDiffer: historyMismatch.slice(0, 10),
          paidInvoices: paid[0].paid,
          invoicePaidEvents: paid[0].events,
        },
      ),
    );

    // --- webhooks: every event delivered to the receiver, signed
    const notFannedOut = events.filter((e) => !e.fanned_out_at).length;
    const deliveries = await q(
      `SELECT status, count(*)::int AS n, max(attempt_count)::int AS max_attempts,
              sum(attempt_count)::int AS attempts
         FROM webhook_deliveries WHERE endpoint_id = $1 GROUP BY status`,
      [endpointId],
    );
    const deliveryRows = (
      await q(`SELECT event_id FROM webhook_deliveries WHERE endpoint_id = $1`, [endpointId])
    ).map((r) => r.event_id);
    const withDelivery = new Set(deliveryRows);
    const delivered = receiver.deliveredIds();
    const eventIds = new Set(events.map((e) => e.id));
    const notDelivered = events.filter((e) => !delivered.has(e.id));
    const withoutDelivery = events.filter((e) => !withDelivery.has(e.id));
    const unknownAtReceiver = [...receiver.events.keys()].filter((id) => !eventIds.has(id));
    const idMismatch = [...receiver.events.values()].filter((e) => !e.bodyIdMatches).length;
    const unfinished = deliveries.filter((d) => d.status !== 'succeeded');
    const endpoint = (
      await q(`SELECT enabled, disabled_reason FROM webhook_endpoints WHERE id = $1`, [endpointId])
    )[0];
    const stats = receiver.stats();
    checks.push(
      check(
        'webhooks: every event delivered (2xx) to the receiver, correctly signed; no delivery left pending, failed or dead',
        notFannedOut === 0 &&
          notDelivered.length === 0 &&
          withoutDelivery.length === 0 &&
          unfinished.length === 0 &&
          stats.badSignatures === 0 &&
          unknownAtReceiver.length === 0 &&
          idMismatch === 0 &&
          endpoint?.enabled === true,
        {
          events: events.length,
          notFannedOut,
          eventsWithoutDeliveryRow: withoutDelivery.length,
          deliveriesByStatus: deliveries,
          eventsNotDeliveredToReceiver: notDelivered.length,
          notDeliveredSamples: notDelivered.slice(0, 5).map((e) => ({ id: e.id, type: e.type })),
          receivedIdsUnknownToDatabase: unknownAtReceiver.length,
          bodyIdDiffersFromWebhookId: idMismatch,
          endpointEnabled: endpoint?.enabled ?? null,
          endpointDisabledReason: endpoint?.disabled_reason ?? null,
          receiver: stats,
        },
      ),
    );
  } finally {
    await db.end();
  }
  return checks;
}

/** Counts the outbox and deliveries still to go, for the drain wait. */
async function outstandingDeliveries(url, endpointId) {
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const rows = (
      await db.query(
        `SELECT (SELECT count(*) FROM events WHERE fanned_out_at IS NULL)::int AS unfanned,
                (SELECT count(*) FROM webhook_deliveries
                  WHERE endpoint_id = $1 AND status IN ('pending', 'failed'))::int AS outstanding,
                (SELECT count(*) FROM events)::int AS events`,
        [endpointId],
      )
    ).rows;
    return rows[0];
  } finally {
    await db.end();
  }
}

module.exports = {
  check,
  countBy,
  judgePostgresWindow,
  judgeRedisWindow,
  verifyDatabase,
  outstandingDeliveries,
  isThrottle,
  isApi,
};
