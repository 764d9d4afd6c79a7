/**
 * One form control per option of `describe()`, by the option's schema type: a number box with
 * a slider for integers, a checkbox for booleans, radio buttons for enums, a text box for
 * strings. Each carries the schema's bounds as attributes and text, and an empty error slot
 * with the id the error display looks up (see errorId).
 * @module
 */
import type { FieldSpec, Mode } from './description.ts';
import { errorId, h } from './dom.ts';
import { optionText } from './words.ts';

/** A default or bound as the text of an input (the schema's numbers and strings). */
function fieldText(value: unknown): string {
  return typeof value === 'number' || typeof value === 'string' ? String(value) : '';
}

export interface Control {
  /** The option's name in the request (`length`). */
  name: string;
  /** Reads the value to send. Never "fixes" it: a bad value goes to generate() as typed. */
  read(): unknown;
  /** The elements that get aria-invalid when the API names this option. */
  inputs: HTMLElement[];
}

export interface BuiltControl {
  el: HTMLElement;
  control: Control;
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

export function integerControl(mode: Mode, name: string, spec: FieldSpec): BuiltControl {
  const id = `opt-${mode}-${name}`;
  const text = optionText(name, spec);
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
    value: fieldText(spec.default ?? spec.minimum),
    'aria-describedby': `${bounds} ${err}`,
  });
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
    h(
      'p',
      { class: 'hint bounds', id: bounds },
      `${spec.minimum} to ${spec.maximum}${text.hint ? ` ${text.hint}` : ''}, default ${String(spec.default)}`,
    ),
    h('p', { class: 'field-error', id: err, hidden: true }),
  );
  return { el, control: { name, read: () => readNumber(number), inputs: [number, range] } };
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
  return { el, control: { name, read: () => box.checked, inputs: [box] } };
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
  return { el, control: { name, read: () => radios.find((r) => r.checked)?.value, inputs: radios } };
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
  return { el, control: { name, read: () => input.value, inputs: [input] } };
}
