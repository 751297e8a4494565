import { randomUUID } from 'node:crypto';
import {
  confirmedOrder,
  createInvoice,
  eventsFor,
  setInvoiceStatus,
} from './support/fulfilment-factories';
import { adminSubject, createApiKey, ORDER_TEST_ENV } from './support/order-factories';
import { expectProblem, fieldsOf } from './support/problem';
import { ADMIN_KEY, startTestApp, TestApp } from './support/test-app';

/** API.md §3 invoice status: the machine, its effects, history and events, over HTTP. */

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const STATUSES = ['draft', 'open', 'paid', 'void'] as const;
type Status = (typeof STATUSES)[number];

/** The allowed transitions of the contract, and the path from creation to each status. */
const ALLOWED = new Set(['draft→open', 'draft→void', 'open→paid', 'open→void']);
const PATH_TO: Record<Status, Status[]> = {
  draft: [],
  open: ['open'],
  paid: ['open', 'paid'],
  void: ['void'],
};

const PAIRS: [Status, Status][] = STATUSES.flatMap((from) =>
  STATUSES.map((to) => [from, to] as [Status, Status]),
);

let api: TestApp;
let admin: string;

beforeAll(async () => {
  api = await startTestApp(ORDER_TEST_ENV);
  admin = await adminSubject(api, ADMIN_KEY);
});

afterAll(async () => {
  await api?.close();
});

const invoicePath = (id: string, version = 1) => `/api/v${version}/invoices/${id}`;
const statusPath = (id: string, version = 1) => `${invoicePath(id, version)}/status`;

/** A fresh invoice (of a confirmed order for 3 × 12.50 EUR), moved along the path to `status`. */
async function invoiceIn(status: Status) {
  const { order } = await confirmedOrder(api);
  const invoice = await createInvoice(api, order.id);
  for (const step of PATH_TO[status]) {
    const response = await setInvoiceStatus(api, invoice.id, step);
    if (response.status !== 200) throw new Error(`${step}: ${response.status} ${response.text}`);
  }
  return invoice;
}

describe('GET /api/v1/invoices/{id}/status', () => {
  it('starts with one history entry: from null to draft, by the creator', async () => {
    const invoice = await invoiceIn('draft');

    const response = await api.get(statusPath(invoice.id));

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      status: 'draft',
      history: [{ from: null, to: 'draft', at: invoice.createdAt, actor: admin }],
    });
    expect(response.headers.get('etag')).toBe('"1"');
  });

  it('is tagged with the invoice version: If-None-Match answers 304', async () => {
    const invoice = await invoiceIn('open');

    const response = await api.get(statusPath(invoice.id), {
      headers: { 'If-None-Match': '"2"' },
    });

    expect(response.status).toBe(304);
  });

  it('is the same in /api/v2', async () => {
    const invoice = await invoiceIn('paid');

    const [v1, v2] = await Promise.all([
      api.get(statusPath(invoice.id)),
      api.get(statusPath(invoice.id, 2)),
    ]);

    expect(v2.status).toBe(200);
    expect(v2.body).toEqual(v1.body);
  });

  it('answers 404 for an unknown invoice', async () => {
    expectProblem(await api.get(statusPath(randomUUID())), 404, 'not_found');
  });
});

describe('PATCH /api/v1/invoices/{id}/status', () => {
  it('tries all 16 pairs: 4 allowed, 12 refused', () => {
    expect(PAIRS).toHaveLength(16);
    expect(PAIRS.filter(([from, to]) => ALLOWED.has(`${from}→${to}`))).toHaveLength(4);
  });

  it.each(PAIRS.filter(([from, to]) => ALLOWED.has(`${from}→${to}`)))(
    '%s → %s is allowed: 200, a history entry, the version bumped, invoice.updated recorded',
    async (from, to) => {
      const invoice = await invoiceIn(from);
      const before = (await api.get(invoicePath(invoice.id))).body;
      const eventsBefore = await eventsFor(api, invoice.id);

      const response = await setInvoiceStatus(api, invoice.id, to);

      expect(response.status).toBe(200);
      expect(response.headers.get('etag')).toBe(`"${before.version + 1}"`);
      expect(response.body.status).toBe(to);
      expect(response.body.history.at(-1)).toEqual({
        from,
        to,
        at: expect.stringMatching(RFC3339_UTC),
        actor: admin,
      });
      expect(response.body.history).toHaveLength(PATH_TO[from].length + 2);
      const after = (await api.get(invoicePath(invoice.id))).body;
      expect(after).toMatchObject({ status: to, version: before.version + 1 });
      expect((await api.get(statusPath(invoice.id))).body).toEqual(response.body);
      const events = (await eventsFor(api, invoice.id)).slice(eventsBefore.length);
      expect(events.map((e) => e.type)).toEqual(
        to === 'paid' ? ['invoice.updated', 'invoice.paid'] : ['invoice.updated'],
      );
      for (const event of events) expect(event.payload).toEqual(after);
    },
  );

  it.each(PAIRS.filter(([from, to]) => !ALLOWED.has(`${from}→${to}`)))(
    '%s → %s is 409 invalid_status_transition and changes nothing',
    async (from, to) => {
      const invoice = await invoiceIn(from);
      const before = (await api.get(invoicePath(invoice.id))).body;
      const history = (await api.get(statusPath(invoice.id))).body;
      const events = await eventsFor(api, invoice.id);

      const response = await setInvoiceStatus(api, invoice.id, to);

      const problem = expectProblem(response, 409, 'invalid_status_transition');
      expect(problem.detail).toContain(`${from} to ${to}`);
      expect(fieldsOf(problem)).toEqual(['status']);
      expect((await api.get(invoicePath(invoice.id))).body).toEqual(before);
      expect((await api.get(statusPath(invoice.id))).body).toEqual(history);
      expect(await eventsFor(api, invoice.id)).toEqual(events);
    },
  );

  it('opening issues the invoice: issuedAt is the time of the change, amount due stays', async () => {
    const invoice = await invoiceIn('draft');

    const response = await setInvoiceStatus(api, invoice.id, 'open');

    const opened = (await api.get(invoicePath(invoice.id))).body;
    expect(opened).toMatchObject({
      status: 'open',
      issuedAt: response.body.history.at(-1).at,
      paidAt: null,
      total: '37.50',
      amountDue: '37.50',
    });
    expect(opened.issuedAt).toBe(opened.updatedAt);
  });

  it('paying sets paidAt and amount due to zero, keeps issuedAt, in v2 too', async () => {
    const invoice = await invoiceIn('open');
    const open = (await api.get(invoicePath(invoice.id))).body;

    const response = await setInvoiceStatus(api, invoice.id, 'paid');

    const paid = (await api.get(invoicePath(invoice.id))).body;
    expect(paid).toMatchObject({
      status: 'paid',
      issuedAt: open.issuedAt,
      paidAt: response.body.history.at(-1).at,
      total: '37.50',
      amountDue: '0.00',
    });
    const v2 = (await api.get(invoicePath(invoice.id, 2))).body;
    expect(v2.amountDue).toEqual({ amount: '0.00', currency: 'EUR' });
    expect(v2.total).toEqual({ amount: '37.50', currency: 'EUR' });
  });

  it.each([
    ['draft', null],
    ['open', 'issued'],
  ])('voiding a %s invoice leaves nothing due and no paidAt', async (from, issued) => {
    const invoice = await invoiceIn(from as Status);

    await setInvoiceStatus(api, invoice.id, 'void');

    const voided = (await api.get(invoicePath(invoice.id))).body;
    expect(voided).toMatchObject({ status: 'void', paidAt: null, amountDue: '0.00' });
    expect(voided.issuedAt === null).toBe(issued === null);
  });

  it('keeps the whole history in order: draft, open, paid', async () => {
    const invoice = await invoiceIn('paid');

    const response = await api.get(statusPath(invoice.id));

    expect(
      response.body.history.map((h: { from: string | null; to: string }) => [h.from, h.to]),
    ).toEqual([
      [null, 'draft'],
      ['draft', 'open'],
      ['open', 'paid'],
    ]);
  });

  it('records who made each change', async () => {
    const finance = await createApiKey(api, 'finance');
    const invoice = await invoiceIn('draft');

    const response = await api.request('PATCH', statusPath(invoice.id), {
      body: { status: 'open' },
      ...finance.as,
    });

    expect(response.body.history.map((h: { actor: string }) => h.actor)).toEqual([
      admin,
      finance.subject,
    ]);
  });

  it('honours If-Match: a stale tag is 412 and changes nothing; the current one applies', async () => {
    const invoice = await invoiceIn('draft');

    const stale = await api.request('PATCH', statusPath(invoice.id), {
      body: { status: 'open' },
      headers: { 'If-Match': '"5"' },
    });
    const unchanged = (await api.get(statusPath(invoice.id))).body.status;
    const current = await api.request('PATCH', statusPath(invoice.id), {
      body: { status: 'open' },
      headers: { 'If-Match': '"1"' },
    });

    expectProblem(stale, 412, 'precondition_failed');
    expect(unchanged).toBe('draft');
    expect(current.status).toBe(200);
  });

  it.each([
    ['an unknown status', { status: 'overdue' }],
    ['no status', {}],
    ['an extra field', { status: 'open', paidAt: '2026-01-01T00:00:00Z' }],
  ])('answers 422 for %s', async (_case, body) => {
    const invoice = await invoiceIn('draft');

    const response = await api.request('PATCH', statusPath(invoice.id), { body });

    expectProblem(response, 422, 'validation_failed');
    expect((await api.get(statusPath(invoice.id))).body.status).toBe('draft');
  });

  it('answers 403 for roles without invoices:write and 404 for an unknown invoice', async () => {
    const invoice = await invoiceIn('draft');
    const analyst = await createApiKey(api, 'analyst');
    const customer = await createApiKey(api, 'customer', invoice.customerId);

    for (const key of [analyst, customer]) {
      expectProblem(
        await api.request('PATCH', statusPath(invoice.id), { body: { status: 'open' }, ...key.as }),
        403,
        'forbidden',
      );
    }
    expectProblem(await setInvoiceStatus(api, randomUUID(), 'open'), 404, 'not_found');
    expect((await api.get(statusPath(invoice.id))).body.status).toBe('draft');
  });

  it('names where the invoice may go next', async () => {
    const invoice = await invoiceIn('open');

    const problem = expectProblem(
      await setInvoiceStatus(api, invoice.id, 'draft'),
      409,
      'invalid_status_transition',
    );

    expect(problem.detail).toContain('paid or void');
  });
});
