/**
 * A strict reader of the Prometheus text exposition format (0.0.4), for the in-process tests
 * (the integration tests hand the same text to Debian's promtool and prometheus):
 *
 *   const families = parseExposition(text);  // throws on the first line that breaks the format
 *   sample(families, 'x_total', { mode: 'password' }); // the value, or undefined
 *
 * What it enforces: `# HELP` then `# TYPE` before a family's samples, each family in one block
 * and declared once, metric and label names of the format's alphabet, quoted label values with
 * only `\\`, `\"` and `\n` escapes, no series twice, values that parse as floats, counters
 * named `_total`, and for histograms the `_bucket` lines with increasing `le` ending in
 * `+Inf`, cumulative counts that never fall, `+Inf` equal to `_count`, and a `_sum`.
 */
import assert from 'node:assert/strict';

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Family {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  readonly samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)$`);
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)/;
const FLOAT = /^(?:[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]Inf|NaN)$/;

function parseLabels(text: string, line: number): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest !== '') {
    const m = LABEL.exec(rest);
    assert.ok(m !== null, `line ${line}: bad label list {${text}}`);
    assert.ok(!(m[1] in labels), `line ${line}: label ${m[1]} twice`);
    labels[m[1]] = m[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    rest = rest.slice(m[0].length);
  }
  return labels;
}

function parseValue(text: string, line: number): number {
  assert.match(text, FLOAT, `line ${line}: ${text} is not a float`);
  if (text.endsWith('Inf')) return text.startsWith('-') ? -Infinity : Infinity;
  return Number(text);
}

/** The family a sample name belongs to: itself, or for a histogram its base name. */
function familyOf(name: string, families: Map<string, Family>): Family | undefined {
  const direct = families.get(name);
  if (direct !== undefined) return direct;
  const base = /^(.*)_(bucket|sum|count)$/.exec(name)?.[1];
  const family = base === undefined ? undefined : families.get(base);
  return family?.type === 'histogram' ? family : undefined;
}

function checkHistogram(family: Family): void {
  const series = new Map<string, { buckets: [number, number][]; sum?: number; count?: number }>();
  for (const s of family.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const entry = series.get(key) ?? { buckets: [] };
    series.set(key, entry);
    if (s.name.endsWith('_bucket')) {
      assert.ok(le !== undefined, `${family.name}: a bucket without le`);
      entry.buckets.push([parseValue(le, 0), s.value]);
    } else if (s.name.endsWith('_sum')) entry.sum = s.value;
    else entry.count = s.value;
  }
  for (const [key, { buckets, sum, count }] of series) {
    assert.ok(buckets.length > 0 && sum !== undefined && count !== undefined, `${family.name} ${key}: incomplete`);
    assert.equal(buckets.at(-1)![0], Infinity, `${family.name} ${key}: the last bucket is +Inf`);
    assert.equal(buckets.at(-1)![1], count, `${family.name} ${key}: +Inf equals _count`);
    for (let i = 1; i < buckets.length; i++) {
      assert.ok(buckets[i][0] > buckets[i - 1][0], `${family.name} ${key}: le increases`);
      assert.ok(buckets[i][1] >= buckets[i - 1][1], `${family.name} ${key}: buckets are cumulative`);
    }
  }
}

export function parseExposition(text: string): Map<string, Family> {
  assert.ok(text.endsWith('\n'), 'the exposition ends with a line feed');
  const families = new Map<string, Family>();
  const seen = new Set<string>();
  let current: Family | null = null;
  let help: { name: string; text: string } | null = null;
  const lines = text.slice(0, -1).split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    const line = i + 1;
    const meta = /^# (HELP|TYPE) (\S+) (.*)$/.exec(raw);
    if (meta !== null && meta[1] === 'HELP') {
      assert.match(meta[2], new RegExp(`^${NAME}$`), `line ${line}: metric name`);
      assert.ok(!families.has(meta[2]), `line ${line}: ${meta[2]} declared twice`);
      help = { name: meta[2], text: meta[3] };
      continue;
    }
    if (meta !== null) {
      assert.ok(help !== null && meta[2] === help.name, `line ${line}: # TYPE follows the family's # HELP`);
      assert.match(meta[3], /^(counter|gauge|histogram|summary|untyped)$/, `line ${line}: type`);
      current = { name: meta[2], help: help.text, type: meta[3] as Family['type'], samples: [] };
      if (current.type === 'counter')
        assert.match(current.name, /_total$/, `${current.name}: a counter ends in _total`);
      families.set(current.name, current);
      help = null;
      continue;
    }
    assert.ok(!raw.startsWith('#'), `line ${line}: unexpected comment`);
    const m = SAMPLE.exec(raw);
    assert.ok(m !== null, `line ${line}: not a sample: ${JSON.stringify(raw)}`);
    const family = familyOf(m[1], families);
    assert.ok(family !== undefined && family === current, `line ${line}: ${m[1]} outside its family's block`);
    const sample = { name: m[1], labels: parseLabels(m[2] ?? '', line), value: parseValue(m[3], line) };
    const id = `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`;
    assert.ok(!seen.has(id), `line ${line}: series ${id} twice`);
    seen.add(id);
    family.samples.push(sample);
  }
  for (const family of families.values()) {
    assert.ok(family.samples.length > 0, `${family.name}: declared without samples`);
    if (family.type === 'histogram') checkHistogram(family);
  }
  return families;
}

/** The value of the sample `name` whose labels include `labels`; undefined if none, and an
 * error if several match. */
export function sample(
  families: Map<string, Family>,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const family = familyOf(name, families);
  const hits = (family?.samples ?? []).filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  assert.ok(hits.length <= 1, `${name} ${JSON.stringify(labels)} matches ${hits.length} series`);
  return hits[0]?.value;
}

/** Every label value of every sample (what a scan for secrets reads besides the values). */
export function labelValues(families: Map<string, Family>): string[] {
  return [...families.values()].flatMap((f) => f.samples.flatMap((s) => Object.values(s.labels)));
}
