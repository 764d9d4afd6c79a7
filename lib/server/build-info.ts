/**
 * What is running (docs/deploy.md, Build and verify): the package version and, for the single
 * file, the SHA-256 of the file itself, computed when it starts from the very file node runs.
 * It is what the build printed and wrote to credential-generator.mjs.sha256, unless the file
 * was changed since. `--version`, the start line, GET /health and the build-info metric all
 * show this one value. From the sources (or dist/server.js) there is no single file to hash,
 * and they say so instead.
 * @module
 */
import { hash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectRoot } from '../http/assets.ts';
import type { BuildIdentity } from '../metrics/service-metrics.ts';
import { BUNDLED_PACKAGE } from './bundled-package.ts';

export interface Build extends BuildIdentity {
  readonly name: string;
}

/** The build `entry` (the import.meta.url of the running program) belongs to. */
export function buildOf(entry: string, bundled: typeof BUNDLED_PACKAGE = BUNDLED_PACKAGE): Build {
  if (bundled !== null) {
    return { ...bundled, sha256: hash('sha256', readFileSync(fileURLToPath(entry)), 'hex') };
  }
  const pkg = JSON.parse(readFileSync(join(projectRoot(entry), 'package.json'), 'utf8')) as Build;
  return { name: pkg.name, version: pkg.version, sha256: null };
}

/** What `--version` prints. */
export function versionLine(build: Build): string {
  return build.sha256 === null
    ? `${build.name} ${build.version} (run from sources: no single file, no SHA-256)`
    : `${build.name} ${build.version} sha256 ${build.sha256}`;
}
