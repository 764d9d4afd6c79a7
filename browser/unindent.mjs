/**
 * A Rollup plugin shared by the browser bundles and the single-file server build.
 * @module
 */

/**
 * The request validators (lib/generated/*validator.generated.ts, as tsc emitted them) without
 * their lines' leading blanks. ajv nests each check one level inside the one before it (one
 * error at a time) and tsc indents every level by 4 spaces, so each option added deepens all
 * the code after it: with the password constraints, indentation alone was over 100 KB of
 * service-api.js and of the single file (deploy/rollup.config.mjs). Only layout changes: JS
 * strings cannot span lines, and a template literal (which can) stops the build.
 * @returns {import('@rollup/wasm-node').Plugin} */
export function unindentValidators() {
  return {
    name: 'unindent-validators',
    transform(code, id) {
      if (!/validator\.generated\.js$/.test(id)) return null;
      // Line comments aside (the generated header quotes a command in backticks).
      if (code.replace(/^\s*\/\/.*$/gm, '').includes('`'))
        throw new Error(`${id} holds a template literal: unindenting it is not safe`);
      return { code: code.replace(/^[ \t]+/gm, ''), map: null };
    },
  };
}
