/**
 * The package's name and version as the single-file build carries them. Here it is null: from
 * the sources or dist/, lib/server/build-info.ts reads package.json. The Rollup build of
 * dist/credential-generator.mjs (deploy/rollup.config.mjs) replaces this module with one that
 * holds them, so the bundle needs no package.json beside it.
 * @module
 */
export const BUNDLED_PACKAGE: Readonly<{ name: string; version: string }> | null = null;
