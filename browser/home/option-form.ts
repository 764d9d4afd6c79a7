/**
 * The option form, built from `describe()`: the mode switch from the schema's mode enum, one
 * panel of controls per mode from its options, and the count box from the schema's count.
 * Only the current mode's panel is shown and enabled.
 * @module
 */
import type { Description, Mode } from './description.ts';
import { byId, errorId, h } from './dom.ts';
import {
  checkboxControl,
  enumControl,
  integerControl,
  textControl,
  type BuiltControl,
  type Control,
} from './controls.ts';
import { MODE_TEXT, SEPARATOR_TEXT, shownChar, shownClass } from './words.ts';

export interface ModePanel {
  fieldset: HTMLFieldSetElement;
  controls: Control[];
}

export interface OptionForm {
  modeRadios: HTMLInputElement[];
  panels: Map<Mode, ModePanel>;
  count: HTMLInputElement;
  currentMode(): Mode;
  /** Shows the current mode's panel and hides (and disables) the others. */
  showPanel(): void;
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
    let built: BuiltControl;
    if (spec.type === 'integer') {
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
  const fieldset = h(
    'fieldset',
    { class: 'mode-panel', id: 'options-password', 'data-mode': 'password' },
    h('legend', { class: 'visually-hidden' }, 'Password options'),
    ...main,
    classes,
    ...extras,
  );
  return { fieldset, controls };
}

function buildPassphrasePanel(d: Description): ModePanel {
  const { options, separators, wordlist } = d.modes.passphrase;
  const controls: Control[] = [];
  const parts: HTMLElement[] = [];
  const checks: HTMLElement[] = [];
  for (const [name, spec] of Object.entries(options)) {
    let built: BuiltControl;
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
  const note = h(
    'p',
    { class: 'hint' },
    `Words are drawn from the ${wordlist.name} (${wordlist.size.toLocaleString('en')} words, ${wordlist.bitsPerWord} bits each).`,
  );
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

/** One radio per mode of the schema's enum, each with its panel; the first mode is checked. */
function buildModeSwitch(
  d: Description,
  modes: Mode[],
): { modeRadios: HTMLInputElement[]; panels: Map<Mode, ModePanel> } {
  const modeChoices = byId('mode-choices');
  const modeOptions = byId('mode-options');
  const panels = new Map<Mode, ModePanel>();
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
    const panel = mode === 'password' ? buildPasswordPanel(d) : buildPassphrasePanel(d);
    panels.set(mode, panel);
    modeOptions.append(panel.fieldset);
  }
  return { modeRadios, panels };
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
  const { modeRadios, panels } = buildModeSwitch(d, modes);
  const count = setUpCount(d);
  const currentMode = (): Mode => (modeRadios.find((r) => r.checked)?.value ?? modes[0]) as Mode;
  const showPanel = (): void => {
    for (const [mode, panel] of panels) {
      const on = mode === currentMode();
      panel.fieldset.hidden = !on;
      // A hidden fieldset's controls must not be submitted or focused: disabling does both.
      panel.fieldset.disabled = !on;
    }
  };
  return { modeRadios, panels, count, currentMode, showPanel };
}
