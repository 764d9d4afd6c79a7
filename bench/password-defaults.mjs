// What the two contract peers (bench/lean-server.mjs, bench/fastify-peer.mjs) read of the
// request schema: the schema itself, and the defaults of the seven options of mode password
// both of them serve, from the schema's own `default`s (one source of truth).
import { readFileSync } from 'node:fs';

/** spec/generate-request.schema.json as parsed. */
export const REQUEST_SCHEMA = JSON.parse(
  readFileSync(new URL('../spec/generate-request.schema.json', import.meta.url), 'utf8'),
);

const BASIC_OPTIONS = [
  'length',
  'includeLowercase',
  'includeUppercase',
  'includeNumbers',
  'includeSymbols',
  'avoidAmbiguous',
  'excludedCharacters',
];

/** `{ length: 24, includeLowercase: true, ... }`: each basic option and its schema default. */
export const PASSWORD_DEFAULTS = Object.freeze(
  Object.fromEntries(
    BASIC_OPTIONS.map((name) => [name, REQUEST_SCHEMA.$defs.PasswordOptions.properties[name].default]),
  ),
);
