/**
 * The served files as the single-file build carries them (file path relative to the project
 * root -> text). Here it is null: the server reads the files from the checkout. The Rollup
 * build of dist/credential-generator.mjs (deploy/rollup.config.mjs) replaces this module with
 * one that holds every file of ASSET_SOURCES, so the bundle needs nothing beside it.
 * @module
 */
export const EMBEDDED_ASSETS: Readonly<Record<string, string>> | null = null;
