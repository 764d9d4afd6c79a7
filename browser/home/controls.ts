/**
 * One form control per option of `describe()`, by the option's schema type: a number box with
 * a slider for integers (a box alone, empty until typed in, for an integer without a default),
 * a checkbox for booleans, radio buttons for enums (a list box for a long enum), a text box for
 * strings. Each carries the schema's bounds as attributes and text, and an empty error slot
 * with the id the error display looks up (see errorId). Choices can be turned off for a
 * reason (the site rules, the entropy floor), each reason on its own (see setOff).
 *
 * Each control knows whether it holds a value other than the API's default: the page sends an
 * option only then (request.ts), so a fresh page sends what a bare request would, the rules'
 * own default length included, and the curl line shows exactly what was sent. A value typed
 * back to the default is the default again: not sent, as if never changed. Apart from that,
 * each knows whether the user has touched it at all (the entropy floor never moves a value the
 * user typed, default or not).
 * @module
 */
import type { FieldSpec, Mode } from './description.ts';
import { errorId, h } from './dom.ts';
import { optionText } from './words.ts';

/** A default or bound as the text of an input (the schema's numbers and strings). */
function fieldText(value: unknown): string {
  return typeof value === 'number' || typeof value === 'string' ? String(value) : '';
}

/**
 * How the entropy floor (floor.ts) turns off what would give fewer bits than the service
 * accepts: a choice control (checkbox, radios) lists its other values and turns off those that
 * fall below; a count control (length, words: a larger value never gives fewer bits) is told
 * its lowest value that does not (null: no limit).
 */
export type FloorHooks =
  | { readonly kind: 'choices'; others(): unknown[]; mark(below: ReadonlySet<unknown>): void }
  | {
      readonly kind: 'increasing';
      readonly lowest: number;
      readonly highest: number;
      mark(lowestAccepted: number | null): void;
      /** Whether the user has set the value (then the page never moves it). */
      byUser(): boolean;
      /** Sets the value for the user (the floor's default): from then on it is sent. */
      set(value: number): void;
    };

export interface Control {
  /** The option's name in the request (`length`). */
  name: string;
  /** Reads the value to send. Never "fixes" it: a bad value goes to generate() as typed.
   * undefined: nothing to send (an optional box left empty). */
  read(): unknown;
  /** Whether it holds a value to send: one other than the API's default, or one the page set
   * for the user (the floor's, the opening's). */
  changed(): boolean;
  /** The elements that get aria-invalid when the API names this option. */
  inputs: HTMLElement[];
  /** Absent for free text, which the floor cannot turn off value by value. */
  floor?: FloorHooks;
}

/** Why a choice is off: the site rules decide the characters, it is below the floor, or the
 * chosen word list has no letter case to capitalize. */
export type OffReason = 'rules' | 'floor' | 'case';

/** The id of the text that says why choices are off, per reason (in index.html or the panel). */
export const OFF_NOTE: Readonly<Record<OffReason, string>> = {
  rules: 'opt-password-passwordRules-hint',
  floor: 'floor-note',
  case: 'opt-passphrase-capitalize-case',
};

const OFF_REASONS = Object.keys(OFF_NOTE) as OffReason[];

/**
 * Turns an input off (disabled) or back on for one reason, keeping the other's: it is off
 * while any reason holds. An input that is off is described by the note that says why.
 */
export function setOff(input: HTMLInputElement | HTMLOptionElement, reason: OffReason, off: boolean): void {
  input.toggleAttribute(`data-off-${reason}`, off);
  input.disabled = OFF_REASONS.some((r) => input.hasAttribute(`data-off-${r}`));
  const described = (input.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .filter((id) => id !== '' && id !== OFF_NOTE[reason]);
  if (off) described.push(OFF_NOTE[reason]);
  input.setAttribute('aria-describedby', described.join(' '));
}

export interface BuiltControl {
  el: HTMLElement;
  control: Control;
}

/** Whether the user has touched anything inside `el` (input events bubble up to it). */
export function changeTracker(el: HTMLElement): () => boolean {
  let changed = false;
  el.addEventListener('input', () => {
    changed = true;
  });
  return () => changed;
}

/**
 * A number input is read as typed: `12` -> 12, `12.5` -> 12.5, an empty or unparsable box
 * -> the raw string. generate() then answers with the API's own message ("must be an integer
 * between" the schema's bounds), instead of this page clamping or defaulting behind the
 * user's back.
 */
export function readNumber(input: HTMLInputElement): unknown {
  const raw = input.value.trim();
  return raw !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw;
}

/** The number box of an integer option (empty), with the ids of its bounds and error lines. */
function integerBox(mode: Mode, name: string, spec: FieldSpec) {
  const id = `opt-${mode}-${name}`;
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
    'aria-describedby': `${bounds} ${err}`,
  });
  return { id, text: optionText(name, spec), err, bounds, number };
}

/**
 * An integer without a default (a bound such as maxLength): a number box that starts empty and
 * sends nothing while it is empty. No slider: a slider always holds a value.
 */
function optionalIntegerControl(mode: Mode, name: string, spec: FieldSpec): BuiltControl {
  const { id, text, err, bounds, number } = integerBox(mode, name, spec);
  const el = h(
    'div',
    { class: 'field optional-field' },
    h('div', { class: 'field-head' }, h('label', { for: id }, text.label), number),
    h(
      'p',
      { class: 'hint bounds', id: bounds },
      `${spec.minimum} to ${spec.maximum}${text.hint ? ` ${text.hint}` : ''}; empty: ${text.empty ?? 'none'}`,
    ),
    h('p', { class: 'field-error', id: err, hidden: true }),
  );
  const read = (): unknown => (number.value.trim() === '' ? undefined : readNumber(number));
  return { el, control: { name, read, changed: () => read() !== undefined, inputs: [number] } };
}

export function integerControl(mode: Mode, name: string, spec: FieldSpec): BuiltControl {
  if (spec.default === undefined) return optionalIntegerControl(mode, name, spec);
  const { id, text, err, bounds, number } = integerBox(mode, name, spec);
  number.setAttribute('value', fieldText(spec.default));
  const range = h('input', {
    type: 'range',
    min: spec.minimum,
    max: spec.maximum,
    step: 1,
    value: fieldText(spec.default ?? spec.minimum),
    'aria-label': `${text.label} (slider)`,
    'aria-describedby': bounds,
    class: 'range',
  });
  // The slider and the box show one value; the box is what is read, so a typed out-of-range
  // value stays visible (and rejected) while the slider rests at its nearest end.
  // Set by the page to meet the floor or to open at Strong: sent like a value the user chose
  // (the API's default is what it moved away from: floor.ts, raise; step-up.ts), until the user
  // changes the value themselves.
  let preset = false;
  range.addEventListener('input', () => {
    number.value = range.value;
    preset = false;
  });
  number.addEventListener('input', () => {
    if (number.value !== '') range.value = number.value;
    preset = false;
  });
  const floorBound = h('span', { class: 'floor-bound' });
  const el = h(
    'div',
    { class: 'field range-field' },
    h('div', { class: 'field-head' }, h('label', { for: id }, text.label), number),
    range,
    h(
      'p',
      { class: 'hint bounds', id: bounds },
      `${spec.minimum} to ${spec.maximum}${text.hint ? ` ${text.hint}` : ''}, default ${fieldText(spec.default)}`,
      floorBound,
    ),
    h('p', { class: 'field-error', id: err, hidden: true }),
  );
  const lowest = spec.minimum ?? 0;
  const byUser = changeTracker(el);
  const floor: FloorHooks = {
    kind: 'increasing',
    lowest,
    highest: spec.maximum ?? lowest,
    byUser,
    set(value) {
      number.value = String(value);
      range.value = String(value);
      preset = true;
    },
    mark(lowestAccepted) {
      const min = String(lowestAccepted ?? lowest);
      number.min = min;
      range.min = min;
      floorBound.textContent =
        lowestAccepted !== null && lowestAccepted > lowest ? `; at least ${min} for the minimum entropy` : '';
    },
  };
  return {
    el,
    control: {
      name,
      read: () => readNumber(number),
      changed: () => preset || readNumber(number) !== spec.default,
      inputs: [number, range],
      floor,
    },
  };
}

export function checkboxControl(mode: Mode, name: string, spec: FieldSpec, detail?: string): BuiltControl {
  const id = `opt-${mode}-${name}`;
  const text = optionText(name, spec);
  const err = errorId(mode, `options.${name}`);
  const describedBy = detail || text.hint ? `${id}-hint ${err}` : err;
  const box = h('input', {
    id,
    name,
    type: 'checkbox',
    checked: spec.default === true,
    'aria-describedby': describedBy,
  });
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
  const floor: FloorHooks = {
    kind: 'choices',
    others: () => [!box.checked],
    mark(below) {
      setOff(box, 'floor', below.has(!box.checked));
    },
  };
  const changed = (): boolean => box.checked !== (spec.default === true);
  return { el, control: { name, read: () => box.checked, changed, inputs: [box], floor } };
}

/** Radio buttons, one per enum value; `show` gives each its label and glyph. */
export function enumControl(
  mode: Mode,
  name: string,
  spec: FieldSpec,
  show: (value: string) => [string, string],
): BuiltControl {
  const text = optionText(name, spec);
  const err = errorId(mode, `options.${name}`);
  const radios: HTMLInputElement[] = [];
  const choices = h('div', { class: 'segmented' });
  for (const value of spec.enum ?? []) {
    const id = `opt-${mode}-${name}-${value}`;
    const [label, glyph] = show(value);
    const radio = h('input', {
      id,
      name: `${mode}-${name}`,
      type: 'radio',
      value,
      checked: value === spec.default,
      'aria-describedby': err,
    });
    radios.push(radio);
    choices.append(radio, h('label', { for: id }, h('span', { class: 'glyph', 'aria-hidden': 'true' }, glyph), label));
  }
  const el = h(
    'fieldset',
    { class: 'field choice-field' },
    h('legend', {}, text.label),
    choices,
    h('p', { class: 'field-error', id: err, hidden: true }),
  );
  const floor: FloorHooks = {
    kind: 'choices',
    others: () => radios.filter((r) => !r.checked).map((r) => r.value),
    mark(below) {
      for (const radio of radios) setOff(radio, 'floor', below.has(radio.value));
    },
  };
  const read = (): unknown => radios.find((r) => r.checked)?.value;
  return { el, control: { name, read, changed: () => read() !== spec.default, inputs: radios, floor } };
}

/** A list box, one option per enum value (for enums too long for a row of buttons). */
export function selectControl(
  mode: Mode,
  name: string,
  spec: FieldSpec,
  show: (value: string) => string,
): BuiltControl {
  const id = `opt-${mode}-${name}`;
  const text = optionText(name, spec);
  const err = errorId(mode, `options.${name}`);
  const options = (spec.enum ?? []).map((value) =>
    h('option', { id: `${id}-${value}`, value, selected: value === spec.default }, show(value)),
  );
  const select = h('select', { id, name, 'aria-describedby': err }, ...options);
  const el = h(
    'div',
    { class: 'field select-field' },
    h('label', { for: id }, text.label),
    select,
    ...(text.hint ? [h('p', { class: 'hint' }, text.hint)] : []),
    h('p', { class: 'field-error', id: err, hidden: true }),
  );
  const floor: FloorHooks = {
    kind: 'choices',
    others: () => options.filter((o) => !o.selected).map((o) => o.value),
    mark(below) {
      for (const option of options) setOff(option, 'floor', below.has(option.value));
    },
  };
  const changed = (): boolean => select.value !== spec.default;
  return { el, control: { name, read: () => select.value, changed, inputs: [select], floor } };
}

/**
 * A list of distinct enum members (firstCharacter, lastCharacter): one checkbox per member,
 * sent as the ticked members in the schema's order, and not at all while none is ticked (the
 * API refuses an empty list; leaving it out means any).
 */
export function memberSetControl(
  mode: Mode,
  name: string,
  spec: FieldSpec,
  show: (value: string) => string,
): BuiltControl {
  const text = optionText(name, spec);
  const err = errorId(mode, `options.${name}`);
  const hint = `opt-${mode}-${name}-hint`;
  const boxes: HTMLInputElement[] = [];
  const checks = (spec.items?.enum ?? []).map((value) => {
    const id = `opt-${mode}-${name}-${value}`;
    const box = h('input', {
      id,
      name: `${mode}-${name}`,
      type: 'checkbox',
      value,
      'aria-describedby': `${hint} ${err}`,
    });
    boxes.push(box);
    return h('div', { class: 'check' }, box, h('label', { for: id }, h('span', { class: 'check-label' }, show(value))));
  });
  const el = h(
    'fieldset',
    { class: 'field member-set' },
    h('legend', {}, text.label),
    h('div', { class: 'check-grid' }, ...checks),
    ...(text.hint ? [h('p', { class: 'hint', id: hint }, text.hint)] : []),
    h('p', { class: 'field-error', id: err, hidden: true }),
  );
  const read = (): unknown => {
    const ticked = boxes.filter((b) => b.checked).map((b) => b.value);
    return ticked.length === 0 ? undefined : ticked;
  };
  return { el, control: { name, read, changed: () => read() !== undefined, inputs: boxes } };
}

export function textControl(mode: Mode, name: string, spec: FieldSpec): BuiltControl {
  const id = `opt-${mode}-${name}`;
  const text = optionText(name, spec);
  const err = errorId(mode, `options.${name}`);
  const input = h('input', {
    id,
    name,
    type: 'text',
    value: fieldText(spec.default),
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
  const changed = (): boolean => input.value !== fieldText(spec.default);
  return { el, control: { name, read: () => input.value, changed, inputs: [input] } };
}
