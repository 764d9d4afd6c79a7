// What the two contract peers (bench/lean-server.mjs, bench/fastify-peer.mjs) read of the
// request schema: the schema itself, and the defaults of the seven options of mode password
// both of them serve, from the schema's own `default`s (one source of truth).
import { readFileSync } from 'node:fs';

/** spec/generate-request.schema.json as parsed. */
export const REQUEST_SCHEMA = JSON.parse(
  readFileSync(new URL('../spec/generate-request.schema.json', import.meta.url), 'utf8'),
);

/** `{ length: 24, includeLowercase: true, ... }`: the options of mode password that carry a
 * schema default (the seven basic ones; the rules, limits and patterns have none), each with it. */
export const PASSWORD_DEFAULTS = Object.freeze(
  Object.fromEntries(
    Object.entries(REQUEST_SCHEMA.$defs.PasswordOptions.properties)
      .filter(([, option]) => 'default' in option)
      .map(([name, option]) => [name, option.default]),
  ),
);
