/**
 * Seeded generator of `passwordrules` strings for the fuzz test: rules assembled from the
 * grammar's tokens with near misses (wrong names, bad numbers, broken classes, stray
 * punctuation), real corpus rules with random edits, and raw strings (any UTF-16 code unit,
 * lone surrogates, control characters, lengths around the 1,024-character limit).
 * Deterministic for a seed: a failure replays with FUZZ_SEED.
 */
import corpus from '../fixtures/password-rules/password-rules.json' with { type: 'json' };
import { seededFill } from './seeded.ts';

const CORPUS = Object.values(corpus as Record<string, { 'password-rules': string }>).map((v) => v['password-rules']);

const NAMES = ['required', 'allowed', 'max-consecutive', 'max-repeating', 'max-sequential', 'minlength', 'maxlength'];
const BAD_NAMES = [
  'Required',
  'require',
  'min-length',
  'maxLength',
  'max_consecutive',
  'allow',
  'foo',
  '',
  '-',
  'required-',
  'max-sequence',
  'max_repeating',
  'Max-Sequential',
  'max-repeat',
];
const IDENTIFIERS = ['upper', 'lower', 'digit', 'special', 'ascii-printable', 'unicode', 'UPPER', 'Lower'];
const BAD_IDENTIFIERS = ['uper', 'ascii', 'printable', 'digits', 'letters', '-', 'unicode-', 'lower-upper', '"lower"'];
const NUMBERS = [
  '0',
  '1',
  '2',
  '3',
  '6',
  '8',
  '12',
  '16',
  '24',
  '64',
  '128',
  '129',
  '200',
  '9999',
  '08',
  '0000000000008',
];
const BAD_NUMBERS = [
  '10000',
  '-1',
  '+8',
  '1e3',
  '8.0',
  '0x10',
  '',
  'eight',
  '99999999999999999999999',
  '8 8',
  '\u0038\u0308',
];
const PUNCTUATION = [':', ';', ',', '[', ']', ' ', '\t', '\n', '\r', '\f', ';;', ', ,', ': :'];
const WHITESPACE = ['', '', '', ' ', ' ', '  ', '\t', '\n', '\r\n', '\f'];

export interface RulesFuzzInput {
  readonly kind: 'grammar' | 'soup' | 'corpus-edit' | 'raw';
  readonly text: string;
}

export function rulesFuzzer(seed: number) {
  const fill = seededFill(seed);
  const word = new Uint32Array(1);
  const below = (n: number) => {
    fill(word);
    return word[0] % n; // test-input selection only: a slight bias is harmless here
  };
  const pick = <T>(xs: readonly T[]): T => xs[below(xs.length)];
  const chance = (p: number) => below(1_000_000) < p * 1_000_000;

  const printable = () => String.fromCharCode(32 + below(95));
  const anyUnit = () =>
    pick([
      () => String.fromCharCode(below(0x10000)),
      () => String.fromCharCode(below(32)),
      () => String.fromCharCode(0xd800 + below(0x800)),
      () => '\ud83d\ude00',
      () => String.fromCharCode(0x80 + below(0x780)),
      printable,
    ])();

  // `clean` generation makes well-formed rules (which may still be unsatisfiable); otherwise
  // each piece has a small chance of being a near miss.
  let clean = false;
  const miss = (p: number) => !clean && chance(p);

  function customClass(): string {
    const n = below(8);
    let inner = '';
    for (let i = 0; i < n; i++)
      inner += miss(0.05) ? anyUnit() : clean ? printable().replace(/[-\]]/, '!') : printable();
    if (chance(0.15)) inner = '-' + inner;
    if (chance(0.1)) inner += ']';
    if (inner === '' && clean) inner = 'x';
    if (miss(0.03)) return '[' + inner; // unterminated
    return `[${inner}]`;
  }

  function item(): string {
    if (chance(0.45)) return customClass();
    return miss(0.07) ? pick(BAD_IDENTIFIERS) : pick(IDENTIFIERS);
  }

  function property(): string {
    const name = miss(0.05) ? pick(BAD_NAMES) : pick(NAMES);
    const colon = miss(0.03) ? pick([' :', '', '=']) : ':';
    let value: string;
    if (name === 'required' || name === 'allowed' || miss(0.05)) {
      const items = [item()];
      for (let n = below(4); n > 0; n--) items.push(item());
      value = items.join(`${pick(WHITESPACE)},${pick(WHITESPACE)}`);
    } else {
      value = miss(0.08) ? pick(BAD_NUMBERS) : pick(NUMBERS);
    }
    return `${name}${colon}${pick(WHITESPACE)}${value}`;
  }

  function grammar(): string {
    clean = chance(0.5);
    const parts: string[] = [];
    for (let n = 1 + below(7); n > 0; n--) parts.push(property());
    let text = parts.join(`${pick(WHITESPACE)};${pick(WHITESPACE)}`);
    if (chance(0.6)) text += ';';
    if (chance(0.1)) text = pick(WHITESPACE) + text + pick(WHITESPACE);
    return text;
  }

  function soup(): string {
    let text = '';
    for (let n = below(20); n > 0; n--) {
      text += pick([
        () => pick(NAMES),
        () => pick(BAD_NAMES),
        () => pick(IDENTIFIERS),
        () => pick(BAD_IDENTIFIERS),
        () => pick(NUMBERS),
        () => pick(BAD_NUMBERS),
        () => pick(PUNCTUATION),
        customClass,
        anyUnit,
      ])();
    }
    return text;
  }

  function corpusEdit(): string {
    let text = pick(CORPUS);
    for (let n = 1 + below(4); n > 0; n--) {
      const at = below(text.length + 1);
      text = pick([
        () => text.slice(0, at) + text.slice(at + 1), // delete
        () => text.slice(0, at) + (chance(0.5) ? printable() : anyUnit()) + text.slice(at), // insert
        () => text.slice(0, at) + pick([...PUNCTUATION, ...NUMBERS, ...IDENTIFIERS]) + text.slice(at + 1), // replace
        () => text.slice(0, at), // truncate
        () => text + text.slice(at), // duplicate a tail
        () => text.replace(/\d+/, pick([...NUMBERS, ...BAD_NUMBERS])),
      ])();
    }
    return text;
  }

  function raw(): string {
    const mode = below(4);
    if (mode === 0) {
      let text = '';
      for (let n = below(64); n > 0; n--) text += anyUnit();
      return text;
    }
    if (mode === 1) {
      let text = '';
      for (let n = below(64); n > 0; n--) text += printable();
      return text;
    }
    if (mode === 2) {
      // Around the length limit: a valid start padded to 1,000-1,100 characters.
      const base = pick(CORPUS);
      const pad = pick([' ', ';', 'a', '[', '\ud83d\ude00']);
      return base + pad.repeat(Math.max(0, 1000 + below(100) - base.length));
    }
    // Many small required sets (the exact sampler's ground), or up to ~90 lines, the most
    // that fit in 1,024 characters.
    const lines: string[] = [];
    for (let n = 1 + below(chance(0.7) ? 9 : 90); n > 0; n--) {
      let set = '';
      for (let k = 1 + below(3); k > 0; k--) set += printable().replace(/[-\]]/, 'a');
      lines.push(`required: [${set}]`);
    }
    if (chance(0.5)) lines.push(`allowed: ${pick(IDENTIFIERS)}`);
    if (chance(0.5)) lines.push(`${pick(['max-consecutive', 'max-repeating', 'max-sequential'])}: ${1 + below(4)}`);
    if (chance(0.3)) lines.push(`max-sequential: ${1 + below(3)}`);
    if (chance(0.5)) lines.push(`minlength: ${8 + below(121)}`);
    return lines.join(';');
  }

  return (): RulesFuzzInput => {
    const r = below(100);
    if (r < 45) return { kind: 'grammar', text: grammar() };
    if (r < 65) return { kind: 'corpus-edit', text: corpusEdit() };
    if (r < 85) return { kind: 'soup', text: soup() };
    return { kind: 'raw', text: raw() };
  };
}
