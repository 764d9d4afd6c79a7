/**
 * The option form, built from `describe()`: the mode switch from the schema's mode enum, one
 * panel of controls per mode from its options, and the count box from the schema's count.
 * Only the current mode's panel is shown and enabled. In mode password, site rules (when the
 * box is not empty) replace the options that choose characters: those are turned off and not
 * sent, as the API refuses them beside passwordRules (describe(): exclusiveWith).
 * @module
 */
import type { Description, Mode, WordListSpec } from './description.ts';
import { byId, errorId, h } from './dom.ts';
import {
  checkboxControl,
  enumControl,
  integerControl,
  memberSetControl,
  selectControl,
  OFF_NOTE,
  readNumber,
  setOff,
  textControl,
  type BuiltControl,
  type Control,
} from './controls.ts';
import { rulesField, type RulesField } from './rules-field.ts';
import { CLASS_TEXT, MODE_TEXT, SEPARATOR_TEXT, shownChar, shownClass, shownSet } from './words.ts';

export interface ModePanel {
  fieldset: HTMLFieldSetElement;
  controls: Control[];
}

export interface OptionForm {
  modeRadios: HTMLInputElement[];
  panels: Map<Mode, ModePanel>;
  count: HTMLInputElement;
  /** Whether the count holds a value other than the API's default (then it is sent). */
  countChanged(): boolean;
  rules: RulesField;
  currentMode(): Mode;
  /** Shows the current mode's panel and hides (and disables) the others. */
  showPanel(): void;
  /** The options of `mode` the request leaves out now: the empty rules box, or, with rules,
   * the options they replace. Turns those off too, so the form shows what it sends. */
  leftOut(mode: Mode): ReadonlySet<string>;
  /** The request field an input of the form sets (`options.length`, `count`, `mode`,
   * `policy`), as the API names fields in its errors; null for none. */
  fieldOf(input: Element): string | null;
}

interface PasswordPanel extends ModePanel {
  rules: RulesField;
}

function buildPasswordPanel(d: Description): PasswordPanel {
  const { options, characterClasses, ambiguousCharacters } = d.modes.password;
  const byOption = new Map(characterClasses.map((c) => [c.option, c]));
  const controls: Control[] = [];
  const main: HTMLElement[] = [];
  const classBoxes: HTMLElement[] = [];
  const extras: HTMLElement[] = [];
  // The constraints (integers without a default, lists of classes): sent only when set.
  const minimums: HTMLElement[] = [];
  const maximums: HTMLElement[] = [];
  const ends: HTMLElement[] = [];
  const limits: HTMLElement[] = [];
  let rules: RulesField | undefined;
  // The pattern's box sits beside the site rules: each replaces the options above them.
  const beside: HTMLElement[] = [];
  for (const [name, spec] of Object.entries(options)) {
    const cls = byOption.get(name);
    let built: BuiltControl;
    if (name === 'passwordRules') {
      rules = rulesField(spec);
      built = rules;
    } else if (name === 'pattern') {
      built = textControl('password', name, spec);
      beside.push(built.el);
    } else if (spec.type === 'array') {
      built = memberSetControl('password', name, spec, (v) => CLASS_TEXT[v] ?? v);
      ends.push(built.el);
    } else if (spec.type === 'integer' && spec.default === undefined) {
      built = integerControl('password', name, spec);
      // A class's maximum (max + a class's option name), beside the minimums; the run limits apart.
      const bounds = byOption.has(`include${name.slice(3)}`) ? maximums : limits;
      (name.startsWith('min') ? minimums : bounds).push(built.el);
    } else if (spec.type === 'integer') {
      built = integerControl('password', name, spec);
      main.push(built.el);
    } else if (spec.type === 'boolean' && cls) {
      built = checkboxControl('password', name, spec, shownClass(cls.characters));
      classBoxes.push(built.el);
    } else if (spec.type === 'boolean') {
      built = checkboxControl(
        'password',
        name,
        spec,
        name === 'avoidAmbiguous' ? `Leaves out ${ambiguousCharacters.split('').join(' ')}` : undefined,
      );
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
  const requirements = requirementsGroup(minimums, maximums, ends, limits);
  const fieldset = h(
    'fieldset',
    { class: 'mode-panel', id: 'options-password', 'data-mode': 'password' },
    h('legend', { class: 'visually-hidden' }, 'Password options'),
    ...main,
    classes,
    ...extras,
    requirements,
    ...(rules ? [rules.el] : []),
    ...beside,
  );
  /* c8 ignore next -- the schema has passwordRules; without it the page has no rules field */
  if (!rules) throw new Error('home page: describe() lists no passwordRules option');
  return { fieldset, controls, rules };
}

/**
 * The password constraints in a group that opens (closed at first: most people need none):
 * the class minimums and minClasses, the class maximums, the first and last character, the run
 * limits.
 */
function requirementsGroup(
  minimums: HTMLElement[],
  maximums: HTMLElement[],
  ends: HTMLElement[],
  limits: HTMLElement[],
): HTMLElement {
  return h(
    'details',
    { class: 'field requirements', id: 'password-requirements' },
    h('summary', {}, 'Requirements: minimums, maximums, first and last character, repeats'),
    h(
      'p',
      { class: 'hint' },
      'Leave a box empty for its default: a class minimum is then 1 for a class in use, or 0 once Minimum classes is set; a maximum, no limit. Every password that meets them all is equally likely, and the bits count exactly those.',
    ),
    h('div', { class: 'bounds-row' }, ...minimums),
    h('div', { class: 'bounds-row' }, ...maximums),
    ...ends,
    h('div', { class: 'bounds-row' }, ...limits),
  );
}

/** An enum this long gets a list box rather than a row of buttons. */
const LIST_BOX_FROM = 8;

function buildPassphrasePanel(d: Description): ModePanel {
  const { options, separators, randomSeparators, wordLists } = d.modes.passphrase;
  const controls: Control[] = [];
  const lists: HTMLElement[] = [];
  const parts: HTMLElement[] = [];
  const bounds: HTMLElement[] = [];
  const checks: HTMLElement[] = [];
  for (const [name, spec] of Object.entries(options)) {
    let built: BuiltControl;
    if (spec.type === 'integer') {
      built = integerControl('passphrase', name, spec);
      (spec.default === undefined ? bounds : parts).push(built.el);
    } else if (spec.enum && spec.enum.length >= LIST_BOX_FROM) {
      built = selectControl('passphrase', name, spec, (v) => listLabel(wordLists[v], v));
      lists.push(built.el);
    } else if (spec.type === 'boolean') {
      built = checkboxControl('passphrase', name, spec);
      checks.push(built.el);
    } else if (spec.enum) {
      built = enumControl('passphrase', name, spec, (v) => [
        SEPARATOR_TEXT[v] ?? v,
        v in randomSeparators ? shownSet(randomSeparators[v]) : shownChar(separators[v] ?? ''),
      ]);
      parts.push(built.el);
    } else {
      built = textControl('passphrase', name, spec);
      parts.push(built.el);
    }
    controls.push(built.control);
  }
  const note = h(
    'p',
    { class: 'hint' },
    'Words are drawn uniformly from the list, each list vendored as published and pinned by its SHA-256. With a length bound, every passphrase that fits is equally likely, and the bits count exactly those.',
  );
  linkCapitalizeToCase(d, controls, checks);
  const fieldset = h(
    'fieldset',
    { class: 'mode-panel', id: 'options-passphrase', 'data-mode': 'passphrase' },
    h('legend', { class: 'visually-hidden' }, 'Passphrase options'),
    ...lists,
    ...parts,
    h('div', { class: 'check-list' }, ...checks),
    h(
      'fieldset',
      { class: 'field bounds-field' },
      h('legend', {}, 'Length in characters'),
      h('div', { class: 'bounds-row' }, ...bounds),
    ),
    note,
  );
  return { fieldset, controls };
}

/**
 * Capitalize cannot apply to a list whose words have no letter case (describe(): a list's
 * `letterCase`; the API refuses the pair). While such a list is chosen the box is off, with the
 * reason shown under it, and unticked so the request never pairs them; a tick the user had
 * given comes back with a list that has case. Runs on the list's own input event, before the
 * form's listener generates.
 */
function linkCapitalizeToCase(d: Description, controls: readonly Control[], checks: readonly HTMLElement[]): void {
  const { wordLists } = d.modes.passphrase;
  const capitalize = controls.find((c) => c.name === 'capitalize')?.inputs[0];
  const list = controls.find((c) => c.name === 'wordList')?.inputs[0];
  if (!(capitalize instanceof HTMLInputElement) || !(list instanceof HTMLSelectElement)) return;
  const holder = checks.find((el) => el.contains(capitalize));
  const note = h('p', { class: 'hint off-reason', id: OFF_NOTE.case, hidden: true });
  holder?.append(note);
  let wanted = false;
  const sync = (): void => {
    const spec = wordLists[list.value] as WordListSpec | undefined;
    const caseless = spec !== undefined && !spec.letterCase;
    const wasOff = capitalize.hasAttribute('data-off-case');
    if (caseless && !wasOff) {
      wanted = capitalize.checked;
      capitalize.checked = false;
    } else if (!caseless && wasOff) capitalize.checked = wanted;
    setOff(capitalize, 'case', caseless);
    note.textContent = caseless ? `Not available: the words of ${spec.name} have no letter case.` : '';
    note.hidden = !caseless;
  };
  list.addEventListener('input', sync);
  sync();
}

/** One radio per mode of the schema's enum, each with its panel; the first mode is checked. */
function buildModeSwitch(
  d: Description,
  modes: Mode[],
): { modeRadios: HTMLInputElement[]; panels: Map<Mode, ModePanel>; rules: RulesField } {
  const modeChoices = byId('mode-choices');
  const modeOptions = byId('mode-options');
  const panels = new Map<Mode, ModePanel>();
  let rules: RulesField | undefined;
  const modeRadios: HTMLInputElement[] = [];
  for (const mode of modes) {
    const text = MODE_TEXT[mode] ?? { label: mode, hint: '' };
    const radio = h('input', {
      id: `mode-${mode}`,
      name: 'mode',
      type: 'radio',
      value: mode,
      checked: mode === modes[0],
      'aria-describedby': 'error-mode',
    });
    modeRadios.push(radio);
    modeChoices.append(
      radio,
      h('label', { for: `mode-${mode}` }, text.label, h('span', { class: 'choice-hint' }, text.hint)),
    );
    let panel: ModePanel;
    if (mode === 'password') {
      const password = buildPasswordPanel(d);
      rules = password.rules;
      panel = password;
    } else {
      panel = buildPassphrasePanel(d);
    }
    panels.set(mode, panel);
    modeOptions.append(panel.fieldset);
  }
  /* c8 ignore next -- the schema's modes include password */
  if (!rules) throw new Error('home page: describe() lists no mode password');
  return { modeRadios, panels, rules };
}

/** leftOut for mode password: what the rules box decides, with the replaced options turned off. */
function rulesLeftOut(d: Description, panel: ModePanel | undefined, rules: RulesField): ReadonlySet<string> {
  const active = rules.text() !== '';
  const replaced = new Set(d.modes.password.passwordRules.exclusiveWith);
  for (const control of panel?.controls ?? []) {
    if (!replaced.has(control.name)) continue;
    for (const input of control.inputs) if (input instanceof HTMLInputElement) setOff(input, 'rules', active);
  }
  return active ? replaced : new Set(['passwordRules']);
}

/** `BIP-39 Japanese (2,048 words, 11 bits each)`: a list as its option reads. */
function listLabel(list: WordListSpec | undefined, id: string): string {
  if (list === undefined) return id;
  return `${list.name} (${list.size.toLocaleString('en')} words, ${list.bitsPerWord} bits each)`;
}

/** The count box (in index.html) gets the schema's bounds and default. */
function setUpCount(d: Description): HTMLInputElement {
  const count = byId<HTMLInputElement>('count');
  const countSpec = d.request.count;
  count.min = String(countSpec.minimum);
  count.max = String(countSpec.maximum);
  count.value = String(countSpec.default);
  byId('count-bounds').textContent =
    `${countSpec.minimum} to ${countSpec.maximum}, default ${String(countSpec.default)}`;
  return count;
}

export function buildOptionForm(d: Description): OptionForm {
  const modes = (d.request.mode.enum ?? []) as Mode[];
  const { modeRadios, panels, rules } = buildModeSwitch(d, modes);
  const count = setUpCount(d);
  const countChanged = (): boolean => readNumber(count) !== d.request.count.default;
  const currentMode = (): Mode => (modeRadios.find((r) => r.checked)?.value ?? modes[0]) as Mode;
  const showPanel = (): void => {
    for (const [mode, panel] of panels) {
      const on = mode === currentMode();
      panel.fieldset.hidden = !on;
      // A hidden fieldset's controls must not be submitted or focused: disabling does both.
      panel.fieldset.disabled = !on;
    }
  };
  const leftOut = (mode: Mode): ReadonlySet<string> =>
    mode === 'password' ? rulesLeftOut(d, panels.get(mode), rules) : new Set<string>();
  const fieldOf = (input: Element): string | null => {
    if (input === count) return 'count';
    if (input instanceof HTMLInputElement && modeRadios.includes(input)) return 'mode';
    if (input.id === 'policy') return 'policy';
    const control = panels.get(currentMode())?.controls.find((c) => c.inputs.includes(input as HTMLElement));
    return control === undefined ? null : `options.${control.name}`;
  };
  return { modeRadios, panels, count, countChanged, rules, currentMode, showPanel, leftOut, fieldOf };
}
