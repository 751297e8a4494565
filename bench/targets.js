'use strict';
/** The performance targets of the benchmark (README, "Performance"), checked against one report. */
function checkTargets(report) {
  const by = (prefix) => report.results.find((r) => r.scenario.startsWith(prefix));
  const byId = by('product by id');
  const page1 = by('list page 1');
  const deep = by('list cursor');
  const orders = by('create order');
  const target = (name, value, met) => ({ target: name, value, met });
  // BENCH_SCENARIOS may leave scenarios out: only the targets of those that ran are checked
  const ran = (...results) => results.every(Boolean);
  return [
    ran(byId) && target('GET by id req/s >= 0.8 x baseline', byId.ratio.rps, byId.ratio.rps >= 0.8),
    ran(byId) && target('GET by id p99 < 25 ms at 50 connections', byId.api.p99, byId.api.p99 < 25),
    ran(deep, page1) &&
      target(
        'cursor page 50,000 deep p50 <= 1.3 x page 1 p50',
        Math.round((deep.api.p50 / page1.api.p50) * 100) / 100,
        deep.api.p50 <= 1.3 * page1.api.p50,
      ),
    ran(page1) && target('list with total p50 < 50 ms', page1.api.p50, page1.api.p50 < 50),
    ran(orders) && target('orders/s >= 1000', orders.api.rps, orders.api.rps >= 1000),
    target('no oversell', report.stock.ok, report.stock.ok),
    // After the run: once the API is idle (run.js, residentAfterRun); the figure at the
    // end of the load is reported beside it.
    target(
      'API RSS < 300 MB after the run (idle)',
      report.apiRss.settledMb,
      report.apiRss.settledMb < 300,
    ),
  ].filter(Boolean);
}

module.exports = { checkTargets };
