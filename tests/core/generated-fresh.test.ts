import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildArtifacts, ROOT } from '../../spec/build.ts';

describe('generated files', () => {
  it('are fresh: rebuilding from spec/ and wordlist/ gives the committed bytes', async () => {
    const artifacts = await buildArtifacts();
    assert.ok(Object.keys(artifacts).length >= 3);
    for (const [rel, content] of Object.entries(artifacts)) {
      assert.equal(readFileSync(join(ROOT, rel), 'utf8'), content, `${rel} is stale: run npm run build`);
    }
  });

  it('leave no require, eval or new Function in the validator, and import nothing', () => {
    const code = readFileSync(join(ROOT, 'lib/generated/validator.generated.ts'), 'utf8');
    assert.doesNotMatch(code, /(^|[^"'\w.])require\s*\(/m);
    assert.doesNotMatch(code, /\beval\s*\(|new Function|\bFunction\s*\(/);
    assert.doesNotMatch(code, /^\s*import\s/m);
  });

  it('keep lib/core and lib/request free of node: imports (browser-safe)', () => {
    const files = ['lib/core', 'lib/request'].flatMap((dir) =>
      readdirSync(join(ROOT, dir))
        .filter((f) => f.endsWith('.ts'))
        .map((f) => join(dir, f)),
    );
    assert.ok(files.length >= 10);
    for (const file of files) {
      const code = readFileSync(join(ROOT, file), 'utf8');
      assert.doesNotMatch(code, /from\s+['"]node:|(^|[^"'\w.])require\s*\(/m, file);
    }
  });
});
