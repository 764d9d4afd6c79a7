/**
 * What deploy/prometheus/rules.yml says of itself is true (issue 41: its header said the
 * dashboard's panels build on the recording rules, and none did): which of the shipped files
 * use the recorded series is read from those files, and the header must say the same.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../helpers/server.ts';

const read = (...path: string[]): string => readFileSync(join(ROOT, ...path), 'utf8');

describe('deploy/prometheus/rules.yml, its header', () => {
  it('says which files use its recorded series, as they do', () => {
    const rules = read('deploy', 'prometheus', 'rules.yml');
    const header = rules
      .split('\n')
      .filter((l) => l.startsWith('#'))
      .map((l) => l.slice(1).trim())
      .join(' ');
    const records = [...rules.matchAll(/^\s*- record: (\S+)$/gm)].map((m) => m[1]);
    assert.ok(records.length > 0);
    const uses = (text: string): boolean => records.some((r) => text.includes(r));
    const dashboard = uses(read('deploy', 'grafana', 'dashboard.json'));
    const alerts = uses(read('deploy', 'prometheus', 'alerts.yml'));
    assert.equal(/alerts in alerts\.yml build on (some of )?them/.test(header), alerts, `alerts: ${header}`);
    assert.equal(/dashboard\.json\) (also )?uses? (some of )?them/.test(header), dashboard, `dashboard: ${header}`);
    if (!dashboard) assert.match(header, /dashboard\.json\) queries the metrics themselves/);
  });
});
