/**
 * The home page's generator UI. It owns no rules: every bound, default and enum comes from
 * `ServiceAPI.describe()` (which reads the request schema), and every result or error comes
 * from `ServiceAPI.generate()`, so the page shows exactly what the HTTP API would answer.
 * The only things defined here are words for people (labels, hints) and layout.
 *
 * Runs after service-api.js (both `defer`, in order). Nothing here touches the network; the
 * page's CSP (`connect-src 'none'`) would block it anyway. No inline styles either: state is
 * expressed with classes, `hidden` and `data-*` attributes that styles.css reads.
 * @module
 */
import type { GenerateResult, ServiceApi } from './entry.ts';

// ---------------------------------------------------------------------------------------------
// The shape of describe() this page reads (a subset; see lib/core/describe.ts).

interface FieldSpec {
  type?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  enum?: string[];
  description?: string;
}
interface CharacterClass {
  name: string;
  option: string;
  characters: string;
  size: number;
}
interface LabelRow {
  level: number;
  label: string;
  minBits: number;
  maxBits: number | null;
}
interface Description {
  request: { mode: FieldSpec; count: FieldSpec };
  modes: {
    password: { options: Record<string, FieldSpec>; characterClasses: CharacterClass[]; ambiguousCharacters: string };
    passphrase: {
      options: Record<string, FieldSpec>;
      separators: Record<string, string>;
      wordlist: { name: string; size: number; bitsPerWord: number };
    };
  };
  entropy: { labels: LabelRow[] };
}
type Mode = keyof Description['modes'];

interface Entropy {
  bits: number;
  label: string;
  level: number;
}
interface Metadata {
  poolSize?: number;
  length?: number;
  classes?: { name: string; size: number }[];
  wordCount?: number;
  wordlistSize?: number;
  wordlist?: string;
  addNumber?: boolean;
}
interface Credential {
  value: string;
  entropy: Entropy;
  metadata: Metadata;
}

// ---------------------------------------------------------------------------------------------
// Words for people. Anything the schema gains and this table lacks still gets a control,
// labelled with its name and the schema's description.

const MODE_TEXT: Record<string, { label: string; hint: string }> = {
  password: { label: 'Password', hint: 'random characters' },
  passphrase: { label: 'Passphrase', hint: 'random words' },
};
const OPTION_TEXT: Record<string, { label: string; hint?: string }> = {
  length: { label: 'Length', hint: 'characters' },
  includeLowercase: { label: 'Lowercase' },
  includeUppercase: { label: 'Uppercase' },
  includeNumbers: { label: 'Numbers' },
  includeSymbols: { label: 'Symbols' },
  avoidAmbiguous: { label: 'Avoid look-alikes' },
  excludedCharacters: { label: 'Leave out these characters', hint: 'Each character typed here is removed from the pool.' },
  wordCount: { label: 'Words', hint: 'words' },
  separator: { label: 'Between words' },
  capitalize: { label: 'Capitalize each word' },
  addNumber: { label: 'Add a two-digit number', hint: 'At the end, after a separator.' },
};
const SEPARATOR_TEXT: Record<string, string> = { hyphen: 'Hyphen', underscore: 'Underscore', dot: 'Dot', space: 'Space' };
/** How a separator character is shown on its button (a bare space would be invisible). */
const shownChar = (c: string): string => (c === ' ' ? '\u2423' : c);

// ---------------------------------------------------------------------------------------------
// Small DOM helpers (no innerHTML: every text goes through textContent).

type Attrs = Record<string, string | number | boolean | undefined>;

function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? '' : String(value));
  }
  el.append(...children);
  return el;
}

function byId<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`home page: #${id} is missing from index.html`);
  return el as T;
}

/** `options.length` in mode password -> `error-password-options-length`. */
const errorId = (mode: string, field: string): string => `error-${mode}-${field.replace(/[^A-Za-z0-9_-]/g, '-')}`;

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

// ---------------------------------------------------------------------------------------------
// Building the form from describe().

interface Control {
  /** The option's name in the request (`length`). */
  name: string;
  /** Reads the value to send. Never "fixes" it: a bad value goes to generate() as typed. */
  read(): unknown;
  /** The elements that get aria-invalid when the API names this option. */
  inputs: HTMLElement[];
}

/**
 * A number input is read as typed: `12` -> 12, `12.5` -> 12.5, an empty or unparsable box
 * -> the raw string. generate() then answers with the API's own message ("must be an integer
 * between 8 and 128"), instead of this page clamping or defaulting behind the user's back.
 */
function readNumber(input: HTMLInputElement): unknown {
  const raw = input.value.trim();
  return raw !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw;
}

function integerControl(mode: Mode, name: string, spec: FieldSpec): { el: HTMLElement; control: Control } {
  const id = `opt-${mode}-${name}`;
  const text = OPTION_TEXT[name] ?? { label: name, hint: spec.description };
  const err = errorId(mode, `options.${name}`);
  const bounds = `${id}-bounds`;
  const number = h('input', {
    id,
    name,
    type: 'number',
    inputmode: 'numeric',
    step: 1,
    min: spec.minimum,
    max: spec.maximum,
    value: String(spec.default ?? spec.minimum ?? ''),
    'aria-describedby': `${bounds} ${err}`,
  });
  const range = h('input', {
    type: 'range',
    min: spec.minimum,
    max: spec.maximum,
    step: 1,
    value: String(spec.default ?? spec.minimum ?? ''),
    'aria-label': `${text.label} (slider)`,
    'aria-describedby': bounds,
    class: 'range',
  });
  // The slider and the box show one value; the box is what is read, so a typed out-of-range
  // value stays visible (and rejected) while the slider rests at its nearest end.
  range.addEventListener('input', () => {
    number.value = range.value;
  });
  number.addEventListener('input', () => {
    if (number.value !== '') range.value = number.value;
  });
  const el = h(
    'div',
    { class: 'field range-field' },
    h('div', { class: 'field-head' }, h('label', { for: id }, text.label), number),
    range,
    h('p', { class: 'hint bounds', id: bounds }, `${spec.minimum} to ${spec.maximum}${text.hint ? ` ${text.hint}` : ''}, default ${String(spec.default)}`),
    h('p', { class: 'field-error', id: err, hidden: true }),
  );
  return { el, control: { name, read: () => readNumber(number), inputs: [number, range] } };
}

function checkboxControl(mode: Mode, name: string, spec: FieldSpec, detail?: string): { el: HTMLElement; control: Control } {
  const id = `opt-${mode}-${name}`;
  const text = OPTION_TEXT[name] ?? { label: name, hint: spec.description };
  const err = errorId(mode, `options.${name}`);
  const describedBy = detail || text.hint ? `${id}-hint ${err}` : err;
  const box = h('input', { id, name, type: 'checkbox', checked: spec.default === true, 'aria-describedby': describedBy });
  const el = h(
    'div',
    { class: 'check' },
    box,
    h(
      'label',
      { for: id },
      h('span', { class: 'check-label' }, text.label),
      detail || text.hint ? h('span', { class: 'check-detail', id: `${id}-hint` }, detail ?? text.hint ?? '') : '',
    ),
    h('p', { class: 'field-error', id: err, hidden: true }),
  );
  return { el, control: { name, read: () => box.checked, inputs: [box] } };
}

function enumControl(mode: Mode, name: string, spec: FieldSpec, show: (value: string) => [string, string]): { el: HTMLElement; control: Control } {
  const text = OPTION_TEXT[name] ?? { label: name, hint: spec.description };
  const err = errorId(mode, `options.${name}`);
  const radios: HTMLInputElement[] = [];
  const choices = h('div', { class: 'segmented' });
  for (const value of spec.enum ?? []) {
    const id = `opt-${mode}-${name}-${value}`;
    const [label, glyph] = show(value);
    const radio = h('input', { id, name: `${mode}-${name}`, type: 'radio', value, checked: value === spec.default, 'aria-describedby': err });
    radios.push(radio);
    choices.append(radio, h('label', { for: id }, h('span', { class: 'glyph', 'aria-hidden': 'true' }, glyph), label));
  }
  const el = h('fieldset', { class: 'field choice-field' }, h('legend', {}, text.label), choices, h('p', { class: 'field-error', id: err, hidden: true }));
  return { el, control: { name, read: () => radios.find((r) => r.checked)?.value, inputs: radios } };
}

function textControl(mode: Mode, name: string, spec: FieldSpec): { el: HTMLElement; control: Control } {
  const id = `opt-${mode}-${name}`;
  const text = OPTION_TEXT[name] ?? { label: name, hint: spec.description };
  const err = errorId(mode, `options.${name}`);
  const input = h('input', {
    id,
    name,
    type: 'text',
    value: String(spec.default ?? ''),
    maxlength: spec.maxLength,
    autocomplete: 'off',
    autocapitalize: 'off',
    spellcheck: 'false',
    class: 'mono',
    'aria-describedby': `${id}-hint ${err}`,
  });
  const el = h(
    'div',
    { class: 'field' },
    h('label', { for: id }, text.label),
    input,
    h('p', { class: 'hint', id: `${id}-hint` }, `${text.hint ?? ''} At most ${spec.maxLength} characters.`.trim()),
    h('p', { class: 'field-error', id: err, hidden: true }),
  );
  return { el, control: { name, read: () => input.value, inputs: [input] } };
}

interface ModePanel {
  fieldset: HTMLFieldSetElement;
  controls: Control[];
}

function buildPasswordPanel(d: Description): ModePanel {
  const { options, characterClasses, ambiguousCharacters } = d.modes.password;
  const byOption = new Map(characterClasses.map((c) => [c.option, c]));
  const controls: Control[] = [];
  const main: HTMLElement[] = [];
  const classBoxes: HTMLElement[] = [];
  const extras: HTMLElement[] = [];
  for (const [name, spec] of Object.entries(options)) {
    const cls = byOption.get(name);
    let built: { el: HTMLElement; control: Control };
    if (spec.type === 'integer') {
      built = integerControl('password', name, spec);
      main.push(built.el);
    } else if (spec.type === 'boolean' && cls) {
      built = checkboxControl('password', name, spec, shownClass(cls.characters));
      classBoxes.push(built.el);
    } else if (spec.type === 'boolean') {
      built = checkboxControl('password', name, spec, name === 'avoidAmbiguous' ? `Leaves out ${ambiguousCharacters.split('').join(' ')}` : undefined);
      extras.push(built.el);
    } else if (spec.enum) {
      built = enumControl('password', name, spec, (v) => [v, '']);
      extras.push(built.el);
    } else {
      built = textControl('password', name, spec);
      extras.push(built.el);
    }
    controls.push(built.control);
  }
  // "options" is the field the API names when no class is enabled, so its message sits here.
  const classes = h(
    'fieldset',
    { class: 'field classes', 'aria-describedby': errorId('password', 'options') },
    h('legend', {}, 'Characters to use'),
    h('div', { class: 'check-grid' }, ...classBoxes),
    h('p', { class: 'field-error', id: errorId('password', 'options'), hidden: true }),
  );
  const fieldset = h('fieldset', { class: 'mode-panel', id: 'options-password', 'data-mode': 'password' }, h('legend', { class: 'visually-hidden' }, 'Password options'), ...main, classes, ...extras);
  return { fieldset, controls };
}

function buildPassphrasePanel(d: Description): ModePanel {
  const { options, separators, wordlist } = d.modes.passphrase;
  const controls: Control[] = [];
  const parts: HTMLElement[] = [];
  const checks: HTMLElement[] = [];
  for (const [name, spec] of Object.entries(options)) {
    let built: { el: HTMLElement; control: Control };
    if (spec.type === 'integer') {
      built = integerControl('passphrase', name, spec);
      parts.push(built.el);
    } else if (spec.type === 'boolean') {
      built = checkboxControl('passphrase', name, spec);
      checks.push(built.el);
    } else if (spec.enum) {
      built = enumControl('passphrase', name, spec, (v) => [SEPARATOR_TEXT[v] ?? v, shownChar(separators[v] ?? '')]);
      parts.push(built.el);
    } else {
      built = textControl('passphrase', name, spec);
      parts.push(built.el);
    }
    controls.push(built.control);
  }
  const note = h('p', { class: 'hint' }, `Words are drawn from the ${wordlist.name} (${wordlist.size.toLocaleString('en')} words, ${wordlist.bitsPerWord} bits each).`);
  const fieldset = h(
    'fieldset',
    { class: 'mode-panel', id: 'options-passphrase', 'data-mode': 'passphrase' },
    h('legend', { class: 'visually-hidden' }, 'Passphrase options'),
    ...parts,
    h('div', { class: 'check-list' }, ...checks),
    note,
  );
  return { fieldset, controls };
}

/** `abc...z` -> `a\u2013z` when the class is one run of code points; otherwise every character. */
function shownClass(chars: string): string {
  const run = [...chars].every((c, i) => i === 0 || c.charCodeAt(0) === chars.charCodeAt(i - 1) + 1);
  return run && chars.length > 2 ? `${chars[0]}\u2013${chars[chars.length - 1]}` : chars;
}

// ---------------------------------------------------------------------------------------------
// Showing results.

/** Digits and symbols get their own colour, as password managers do, so a 0 is not an O. */
function colourValue(value: string, d: Description): HTMLElement {
  const classOf = new Map<string, string>();
  for (const cls of d.modes.password.characterClasses) {
    if (cls.name === 'numbers' || cls.name === 'symbols') for (const c of cls.characters) classOf.set(c, cls.name);
  }
  const out = h('code', { class: 'value' });
  let run = '';
  let runClass: string | undefined;
  const flush = (): void => {
    if (run) out.append(runClass ? h('span', { class: `c-${runClass}` }, run) : run);
    run = '';
  };
  for (const c of value) {
    const cls = classOf.get(c);
    if (cls !== runClass) {
      flush();
      runClass = cls;
    }
    run += c;
  }
  flush();
  return out;
}

function explain(data: { mode: string; metadata: Metadata }, d: Description): string {
  const m = data.metadata;
  if (data.mode === 'password') {
    const classes = (m.classes ?? []).map((c) => `${c.name} ${c.size}`).join(', ');
    return `${m.length} characters from a pool of ${m.poolSize} (${classes}), with every chosen kind at least once. Every such password is equally likely.`;
  }
  const words = `${m.wordCount} words from ${m.wordlistSize?.toLocaleString('en')} (${d.modes.passphrase.wordlist.bitsPerWord} bits each)`;
  return `${words}${m.addNumber ? ', plus a two-digit number (6.64 bits)' : ''}. Separator and capitals add nothing: they are fixed by the options.`;
}

function bitsRange(row: LabelRow): string {
  if (row.minBits === 0 && row.maxBits !== null) return `under ${row.maxBits}`;
  if (row.maxBits === null) return `${row.minBits} or more`;
  return `${row.minBits} to under ${row.maxBits}`;
}

// ---------------------------------------------------------------------------------------------

function start(api: ServiceApi): void {
  const d = api.describe() as unknown as Description;
  const modes = (d.request.mode.enum ?? []) as Mode[];
  const form = byId<HTMLFormElement>('generator-form');
  const modeChoices = byId('mode-choices');
  const modeOptions = byId('mode-options');
  const count = byId<HTMLInputElement>('count');
  const resultsTitle = byId('results-title');
  const results = byId<HTMLOListElement>('results');
  const empty = byId('results-empty');
  const copyHint = byId('copy-hint');
  const status = byId('status');
  const strength = byId('strength');
  const bits = byId('bits');
  const label = byId('strength-label');
  const meter = byId('meter');
  const explainEl = byId('strength-explain');
  const levelsBody = byId<HTMLTableElement>('levels').tBodies[0];
  const curl = byId('curl-example');

  // Mode switch, from the schema's enum.
  const panels = new Map<Mode, ModePanel>();
  const modeRadios: HTMLInputElement[] = [];
  for (const mode of modes) {
    const text = MODE_TEXT[mode] ?? { label: mode, hint: '' };
    const radio = h('input', { id: `mode-${mode}`, name: 'mode', type: 'radio', value: mode, checked: mode === modes[0], 'aria-describedby': 'error-mode' });
    modeRadios.push(radio);
    modeChoices.append(radio, h('label', { for: `mode-${mode}` }, text.label, h('span', { class: 'choice-hint' }, text.hint)));
    const panel = mode === 'password' ? buildPasswordPanel(d) : buildPassphrasePanel(d);
    panels.set(mode, panel);
    modeOptions.append(panel.fieldset);
  }

  // Count, from the schema.
  const countSpec = d.request.count;
  count.min = String(countSpec.minimum);
  count.max = String(countSpec.maximum);
  count.value = String(countSpec.default);
  byId('count-bounds').textContent = `${countSpec.minimum} to ${countSpec.maximum}, default ${String(countSpec.default)}`;

  // The label table, from the same thresholds the generator uses.
  const rows = new Map<number, HTMLTableRowElement>();
  for (const row of d.entropy.labels) {
    const tr = h(
      'tr',
      { 'data-level': row.level },
      h('td', {}, h('span', { class: 'level-name', 'data-level': row.level }, row.label)),
      h('td', {}, bitsRange(row)),
      h('td', { class: 'current-mark' }, ''),
    );
    rows.set(row.level, tr);
    levelsBody.append(tr);
  }

  const currentMode = (): Mode => (modeRadios.find((r) => r.checked)?.value ?? modes[0]) as Mode;

  function showPanel(): void {
    for (const [mode, panel] of panels) {
      const on = mode === currentMode();
      panel.fieldset.hidden = !on;
      // A hidden fieldset's controls must not be submitted or focused: disabling does both.
      panel.fieldset.disabled = !on;
    }
  }

  function readRequest(): { mode: Mode; count: unknown; options: Record<string, unknown> } {
    const mode = currentMode();
    const options: Record<string, unknown> = {};
    for (const control of panels.get(mode)?.controls ?? []) options[control.name] = control.read();
    return { mode, count: readNumber(count), options };
  }

  function clearErrors(): void {
    // (tsconfig's lib has DOM but not DOM.Iterable, hence forEach rather than for-of.)
    form.querySelectorAll<HTMLElement>('.field-error').forEach((el) => {
      el.hidden = true;
      el.textContent = '';
    });
    form.querySelectorAll('[aria-invalid]').forEach((el) => el.removeAttribute('aria-invalid'));
  }

  function showError(mode: Mode, error: { error: string; field?: string }): void {
    const field = error.field;
    const target = (field && document.getElementById(field === 'mode' ? 'error-mode' : field === 'count' ? 'error-count' : errorId(mode, field))) || byId('error-general');
    target.textContent = error.error;
    target.hidden = false;
    const invalid: HTMLElement[] = [];
    if (field === 'count') invalid.push(count);
    else if (field === 'mode') invalid.push(...modeRadios);
    else if (field === 'options' && mode === 'password') {
      for (const c of panels.get(mode)?.controls ?? []) if (d.modes.password.characterClasses.some((k) => k.option === c.name)) invalid.push(...c.inputs);
    } else if (field?.startsWith('options.')) {
      const name = field.slice('options.'.length);
      invalid.push(...(panels.get(mode)?.controls.find((c) => c.name === name)?.inputs ?? []));
    }
    for (const el of invalid) el.setAttribute('aria-invalid', 'true');
  }

  function setStrength(entropy: Entropy | undefined): void {
    strength.hidden = entropy === undefined;
    for (const [level, tr] of rows) {
      const on = entropy?.level === level;
      tr.classList.toggle('current', on);
      if (on) tr.setAttribute('aria-current', 'true');
      else tr.removeAttribute('aria-current');
      tr.cells[2].replaceChildren(...(on ? [h('span', { 'aria-hidden': 'true' }, '\u25C0 '), h('span', { class: 'mark-text' }, 'this result')] : []));
    }
    if (!entropy) return;
    bits.textContent = entropy.bits.toFixed(2);
    label.textContent = entropy.label;
    label.dataset.level = String(entropy.level);
    meter.dataset.level = String(entropy.level);
    meter.setAttribute('aria-valuenow', String(entropy.level));
    meter.setAttribute('aria-valuetext', `${entropy.label}, ${entropy.bits.toFixed(2)} bits`);
  }

  function shellQuote(s: string): string {
    return `'${s.replace(/'/g, `'\\''`)}'`;
  }

  /** The curl example sends the request the form makes, leaving out options at their default. */
  function updateCurl(request: ReturnType<typeof readRequest>): void {
    const specs = d.modes[request.mode]?.options ?? {};
    const options: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(request.options)) if (value !== specs[name]?.default) options[name] = value;
    const body: Record<string, unknown> = { mode: request.mode };
    if (request.count !== d.request.count.default) body.count = request.count;
    if (Object.keys(options).length > 0) body.options = options;
    curl.textContent = [
      `curl -sS ${location.origin}/generate \\`,
      `  -H "X-Api-Key: $API_KEY" \\`,
      `  -H 'Content-Type: application/json' \\`,
      `  -d ${shellQuote(JSON.stringify(body))}`,
    ].join('\n');
  }

  function render(result: GenerateResult, mode: Mode): void {
    clearErrors();
    copyHint.hidden = true;
    results.replaceChildren();
    const noun = mode === 'password' ? 'password' : 'passphrase';
    if (!result.ok) {
      showError(mode, result.error);
      resultsTitle.textContent = `Your ${noun}`;
      empty.textContent = `Nothing generated: ${result.error.error}.`;
      empty.hidden = false;
      setStrength(undefined);
      status.textContent = `Not generated. ${result.error.error}`;
      return;
    }
    const data = result.data as unknown as { mode: string; count: number; entropy: Entropy; metadata: Metadata; results: Credential[] };
    empty.hidden = true;
    resultsTitle.textContent = data.count === 1 ? `Your ${noun}` : `Your ${data.count} ${noun}s`;
    data.results.forEach((credential, i) => {
      const value = colourValue(credential.value, d);
      const button = h('button', { type: 'button', class: 'button small copy', 'aria-label': `Copy ${noun} ${i + 1}` }, 'Copy');
      button.addEventListener('click', () => void copy(credential.value, button, value));
      results.append(h('li', {}, value, button));
    });
    setStrength(data.entropy);
    explainEl.textContent = explain(data, d);
    // Announce what happened, not the secrets themselves: a screen reader reading 20
    // passwords aloud on every slider step would be both useless and a shoulder-surfing risk.
    status.textContent = `Generated ${plural(data.count, noun)}: ${data.entropy.bits.toFixed(2)} bits, ${data.entropy.label}.`;
  }

  function generateNow(): void {
    const request = readRequest();
    render(api.generate(request), request.mode);
    updateCurl(request);
  }

  async function copy(text: string, button: HTMLButtonElement, source: HTMLElement | undefined): Promise<void> {
    try {
      // Absent on http: pages other than localhost, and denied in some embeddings.
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(text);
      button.textContent = 'Copied';
      button.classList.add('done');
      status.textContent = 'Copied to the clipboard.';
      setTimeout(() => {
        button.textContent = 'Copy';
        button.classList.remove('done');
      }, 1600);
    } catch {
      // Fallback: select the text so the user can copy it with the keyboard.
      if (source) {
        const range = document.createRange();
        range.selectNodeContents(source);
        const selection = getSelection();
        selection?.removeAllRanges();
        selection?.addRange(range);
      }
      const keys = /Mac|iPhone|iPad/.test(navigator.platform) ? '\u2318C' : 'Ctrl+C';
      copyHint.textContent = `This browser did not allow copying. The text is selected: press ${keys} to copy it.`;
      copyHint.hidden = false;
      status.textContent = copyHint.textContent;
    }
  }

  form.addEventListener('submit', (event) => {
    // form-action 'none' would block a real submission anyway; Enter in a field generates.
    event.preventDefault();
    generateNow();
  });
  form.addEventListener('input', (event) => {
    if ((event.target as HTMLInputElement | null)?.name === 'mode') showPanel();
    generateNow();
  });
  const copyCurl = byId<HTMLButtonElement>('copy-curl');
  copyCurl.addEventListener('click', () => void copy(curl.textContent ?? '', copyCurl, curl));

  showPanel();
  generateNow();
  document.documentElement.classList.add('ready');
}

function boot(): void {
  const api = window.ServiceAPI;
  if (!api) {
    const el = document.getElementById('error-general');
    if (el) {
      el.textContent = 'The generator script did not load. Reload the page to try again.';
      el.hidden = false;
    }
    return;
  }
  start(api);
}

boot();
