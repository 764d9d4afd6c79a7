/**
 * The exposition format as lib/metrics/registry.ts writes it, read back by a strict reader of
 * the format (tests/helpers/exposition.ts); Debian's promtool and a real Prometheus read it in
 * tests/metrics/prometheus.integration.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  Counter,
  escapeLabelValue,
  formatValue,
  Gauge,
  Histogram,
  HistogramChild,
  Registry,
} from '../../lib/metrics/registry.ts';
import { parseExposition, sample } from '../helpers/exposition.ts';

describe('metrics registry', () => {
  it('writes HELP, TYPE and one line per series, families in registration order, empty ones left out', () => {
    const r = new Registry();
    const requests = r.register(new Counter('app_requests_total', 'Requests.', ['route', 'code']));
    r.register(new Counter('app_unused_total', 'Never touched.', ['x']));
    const temperature = r.register(new Gauge('app_temperature_celsius', 'A gauge without labels.'));
    requests.inc(['/a', '200']);
    requests.inc(['/a', '200'], 2);
    requests.child('/b', '404').value++;
    temperature.set([], -1.5);
    assert.equal(
      r.render(),
      [
        '# HELP app_requests_total Requests.',
        '# TYPE app_requests_total counter',
        'app_requests_total{route="/a",code="200"} 3',
        'app_requests_total{route="/b",code="404"} 1',
        '# HELP app_temperature_celsius A gauge without labels.',
        '# TYPE app_temperature_celsius gauge',
        'app_temperature_celsius -1.5',
        '',
      ].join('\n'),
    );
    const parsed = parseExposition(r.render());
    assert.deepEqual([...parsed.keys()], ['app_requests_total', 'app_temperature_celsius']);
    assert.equal(new Registry().render(), '', 'nothing to say: an empty exposition');
  });

  it('escapes label values and help text as the format says, and reads back the same strings', () => {
    const r = new Registry();
    const odd = 'a "quoted" \\ back\nslash';
    r.register(new Gauge('app_odd', 'Help with \\ and\na line feed "kept".', ['v'])).set([odd], 1);
    const text = r.render();
    assert.match(text, /^# HELP app_odd Help with \\\\ and\\na line feed "kept"\.$/m);
    assert.match(text, /^app_odd\{v="a \\"quoted\\" \\\\ back\\nslash"\} 1$/m);
    assert.equal(text.split('\n').length, 4, 'the line feeds are escaped: three lines');
    assert.equal(sample(parseExposition(text), 'app_odd', { v: odd }), 1);
    assert.equal(escapeLabelValue('plain'), 'plain');
  });

  it('writes histograms with cumulative buckets, +Inf equal to the count, sum and count', () => {
    const r = new Registry();
    const h = r.register(new Histogram('app_duration_seconds', 'Durations.', ['route'], [0.001, 0.01, 0.1]));
    for (const v of [0.0005, 0.001, 0.002, 0.05, 0.05, 3]) h.child('/x').observe(v);
    const families = parseExposition(r.render());
    const bucket = (le: string) => sample(families, 'app_duration_seconds_bucket', { route: '/x', le });
    assert.deepEqual(
      ['0.001', '0.01', '0.1', '+Inf'].map(bucket),
      [2, 3, 5, 6],
      'le is inclusive: 0.001 falls in the 0.001 bucket',
    );
    assert.equal(sample(families, 'app_duration_seconds_count', { route: '/x' }), 6);
    assert.ok(Math.abs(sample(families, 'app_duration_seconds_sum', { route: '/x' })! - 3.1035) < 1e-12);
    const child = new HistogramChild([1, 2]);
    child.observe(Infinity);
    assert.deepEqual([...child.counts, child.count], [0, 0, 1], 'past every bound: only +Inf counts it');
  });

  it('formats values the way the format spells them', () => {
    assert.deepEqual([3, 0.25, 1e-7, Infinity, -Infinity, Number.NaN].map(formatValue), [
      '3',
      '0.25',
      '1e-7',
      '+Inf',
      '-Inf',
      'NaN',
    ]);
  });

  it('refuses what the format or its conventions forbid', () => {
    assert.throws(() => new Counter('requests', 'x'), /_total/);
    assert.throws(() => new Gauge('2bad', 'x'), /metric name/);
    assert.throws(() => new Gauge('ok', 'x', ['bad-label']), /label name/);
    assert.throws(() => new Gauge('ok', 'x', ['__reserved']), /label name/);
    assert.throws(() => new Histogram('h', 'x', ['le'], [1]), /label name/);
    assert.throws(() => new Histogram('h', 'x', [], [1, 1]), /increase/);
    const g = new Gauge('g', 'x', ['a', 'b']);
    assert.throws(() => g.child('only one'), /takes 2 label values, got 1/);
    const r = new Registry();
    r.register(new Gauge('twice', 'x'));
    assert.throws(() => r.register(new Gauge('twice', 'x')), /registered twice/);
  });

  it('the reader refuses a malformed exposition (it can fail)', () => {
    const bad = [
      'x 1\n', // no HELP/TYPE
      '# HELP x h\n# TYPE x gauge\nx{a="1} 1\n', // unterminated label value
      '# HELP x h\n# TYPE x gauge\nx one\n', // not a float
      '# HELP x_total h\n# TYPE x_total counter\nx_total 1\nx_total 2\n', // series twice
      '# HELP x h\n# TYPE x counter\nx 1\n', // counter without _total
      '# HELP h h\n# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n', // falls
      '# HELP h h\n# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 1\nh_count 1\n', // no +Inf
      '# HELP x h\n# TYPE x gauge\nx 1', // no final line feed
    ];
    for (const text of bad) assert.throws(() => parseExposition(text), assert.AssertionError, JSON.stringify(text));
  });
});
