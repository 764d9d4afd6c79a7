/**
 * The entropy meter and the label table. Both are drawn from `describe()`'s label rows, the
 * same thresholds the generator labels with, so the page cannot show a scale the API does not
 * use. The meter's colours per level are styles.css's palette.
 * @module
 */
import type { Description, Entropy, Generated, LabelRow, WordListSpec } from './description.ts';
import { byId, h } from './dom.ts';
import { passwordRuleWords } from './rule-words.ts';

export interface StrengthView {
  /** Shows the figure, label and explanation of a result; hides the meter for none. */
  show(result: Generated | undefined): void;
}

function bitsRange(row: LabelRow): string {
  if (row.minBits === 0 && row.maxBits !== null) return `under ${row.maxBits}`;
  if (row.maxBits === null) return `${row.minBits} or more`;
  return `${row.minBits} to under ${row.maxBits}`;
}

/** One table row per label, keyed by level. */
function buildLabelTable(labels: LabelRow[]): Map<number, HTMLTableRowElement> {
  const body = byId<HTMLTableElement>('levels').tBodies[0];
  const rows = new Map<number, HTMLTableRowElement>();
  for (const row of labels) {
    const tr = h(
      'tr',
      { 'data-level': row.level },
      h('td', {}, h('span', { class: 'level-name', 'data-level': row.level }, row.label)),
      h('td', {}, bitsRange(row)),
      h('td', { class: 'current-mark' }, ''),
    );
    rows.set(row.level, tr);
    body.append(tr);
  }
  return rows;
}

/** The meter's range and one segment per level. */
function buildMeter(labels: LabelRow[]): HTMLElement {
  const meter = byId('meter');
  const levels = labels.map((row) => row.level);
  meter.setAttribute('aria-valuemin', String(Math.min(...levels)));
  meter.setAttribute('aria-valuemax', String(Math.max(...levels)));
  meter.replaceChildren(...labels.map(() => h('span', { class: 'seg' })));
  return meter;
}

/** A passphrase result's rule in words: what was drawn from what. */
function passphraseRule(m: Generated['metadata'], d: Description): string {
  const list = d.modes.passphrase.wordLists[m.wordlistId ?? ''] as WordListSpec | undefined;
  const from = `${String(m.wordCount)} words from the ${m.wordlistSize?.toLocaleString('en') ?? ''} of the ${list?.name ?? m.wordlist ?? ''}`;
  const bounded = m.minLength !== undefined || m.maxLength !== undefined;
  // Within a length the words are not independent: the count is of the sequences that fit.
  const words = bounded
    ? `${from}, counting only the passphrases of ${lengthRange(m.minLength, m.maxLength)} (all equally likely)`
    : `${from} (${String(list?.bitsPerWord)} bits each)`;
  // describe() states no figure for the number (log2 of its 100 values), so it is written
  // here; tests/browser/home.integration.ts checks it against the API's entropy function.
  const number = m.addNumber ? ', plus a two-digit number (6.64 bits)' : '';
  const drawn = d.modes.passphrase.randomSeparators[m.separator ?? ''] as string | undefined;
  if (drawn === undefined) return `${words}${number}`;
  const gaps = (m.wordCount ?? 0) - 1 + (m.addNumber ? 1 : 0);
  return `${words}${number}, and a separator drawn from ${String(drawn.length)} in each of the ${String(gaps)} gaps (${Math.log2(drawn.length).toFixed(2)} bits each)`;
}

/** The rule a result was counted under, in words, from its metadata (rule-words.ts): no
 * policy name, no closing sentence. */
export function ruleOf(data: Generated, d: Description): string {
  return data.mode === 'password' ? passwordRuleWords(data.metadata) : passphraseRule(data.metadata, d);
}

/** The count behind the figure, in words: the rule that was counted (a named policy's, with its
 * name and description), and why every result of it is equally likely. */
function explain(data: Generated, d: Description): string {
  const m = data.metadata;
  const policy = d.policies.find((p) => p.name === m.policy);
  const named =
    m.policy === undefined
      ? ''
      : `Policy ${m.policy}${policy?.description == null ? '' : ` (${policy.description.replace(/\.$/, '')})`}: `;
  const rule = `${named}${ruleOf(data, d)}.`;
  if (data.mode === 'passphrase') {
    const drawn = d.modes.passphrase.randomSeparators[m.separator ?? ''] as string | undefined;
    const fixed = drawn === undefined;
    return `${rule} ${fixed ? 'Separator and capitals add nothing: they are fixed by the options.' : 'Capitals add nothing.'}`;
  }
  if (m.entropyMode === 'uniform-pattern')
    return `${rule} Every password the pattern matches at this length is equally likely, and the bits count exactly those.`;
  return m.entropyMode === 'uniform-rules'
    ? `${rule} Every password the rules allow is equally likely, and the bits count exactly those.`
    : `${rule} Every such password is equally likely, and the bits count exactly those.`;
}

/** `at most 20 characters`, `at least 30`, `18 to 20 characters`. */
function lengthRange(min: number | undefined, max: number | undefined): string {
  if (min === undefined) return `at most ${String(max)} characters`;
  if (max === undefined) return `at least ${String(min)} characters`;
  return `${String(min)} to ${String(max)} characters`;
}

/** Marks the table row of the current level (none for undefined). */
function markLevel(rows: Map<number, HTMLTableRowElement>, entropy: Entropy | undefined): void {
  for (const [level, tr] of rows) {
    const on = entropy?.level === level;
    tr.classList.toggle('current', on);
    if (on) tr.setAttribute('aria-current', 'true');
    else tr.removeAttribute('aria-current');
    tr.cells[2].replaceChildren(
      ...(on
        ? [h('span', { 'aria-hidden': 'true' }, '\u25C0 '), h('span', { class: 'mark-text' }, 'this result')]
        : []),
    );
  }
}

export function createStrengthView(d: Description): StrengthView {
  const strength = byId('strength');
  const bits = byId('bits');
  const label = byId('strength-label');
  const explanation = byId('strength-explain');
  const rows = buildLabelTable(d.entropy.labels);
  const meter = buildMeter(d.entropy.labels);
  return {
    show(result: Generated | undefined): void {
      const entropy = result?.entropy;
      strength.hidden = entropy === undefined;
      markLevel(rows, entropy);
      if (!result || !entropy) return;
      bits.textContent = entropy.bits.toFixed(2);
      label.textContent = entropy.label;
      label.dataset.level = String(entropy.level);
      meter.dataset.level = String(entropy.level);
      meter.setAttribute('aria-valuenow', String(entropy.level));
      meter.setAttribute('aria-valuetext', `${entropy.label}, ${entropy.bits.toFixed(2)} bits`);
      explanation.textContent = explain(result, d);
    },
  };
}
