/**
 * The "site rules" field of mode password: a `passwordrules` text (e.g. what a sign-up form
 * declares), sent as `options.passwordRules` when it is not empty. Below it the page shows
 * what the API read the rules as (the normalised rule of the response's metadata), or the
 * API's error in the field's error slot, as for every other field. While rules are set they
 * decide the characters, so the class options are turned off (option-form.ts), with the field's
 * hint as the visible reason.
 * @module
 */
import type { GenerateResult } from '../entry.ts';
import type { FieldSpec, Generated } from './description.ts';
import { errorId, h } from './dom.ts';
import { OFF_NOTE, type BuiltControl } from './controls.ts';
import { optionText } from './words.ts';

export interface RulesField extends BuiltControl {
  /** The rules as typed ('' when the box is empty: no rules). */
  text(): string;
  /** Shows what the API read the rules as, from the result of the current request. */
  showRead(result: GenerateResult | null): void;
}

const ID = 'opt-password-passwordRules';

export function rulesField(spec: FieldSpec): RulesField {
  const text = optionText('passwordRules', spec);
  const err = errorId('password', 'options.passwordRules');
  const hintId = OFF_NOTE.rules;
  const readId = `${ID}-read`;
  const box = h('textarea', {
    id: ID,
    name: 'passwordRules',
    rows: 2,
    maxlength: spec.maxLength,
    autocomplete: 'off',
    autocapitalize: 'off',
    spellcheck: 'false',
    class: 'mono',
    placeholder: 'minlength: 12; required: lower; required: upper; required: digit',
    'aria-describedby': `${hintId} ${readId} ${err}`,
  });
  const read = h('p', { class: 'rules-read', id: readId, 'aria-live': 'polite', hidden: true });
  const el = h(
    'div',
    { class: 'field rules-field' },
    h('label', { for: ID }, text.label),
    box,
    h('p', { class: 'hint', id: hintId }, `${text.hint ?? ''} At most ${String(spec.maxLength)} characters.`.trim()),
    read,
    h('p', { class: 'field-error', id: err, hidden: true }),
  );
  return {
    el,
    control: { name: 'passwordRules', read: () => box.value, changed: () => box.value !== '', inputs: [box] },
    text: () => box.value,
    showRead(result) {
      const data = result?.ok === true ? (result.data as unknown as Generated) : null;
      const m = data?.metadata;
      if (box.value === '' || m?.entropyMode !== 'uniform-rules' || m.passwordRules === undefined) {
        read.hidden = true;
        read.replaceChildren();
        return;
      }
      const note = m.unicodeAsAsciiPrintable === true ? ' (unicode read as the 95 printable ASCII characters)' : '';
      read.replaceChildren(
        'Read as ',
        h('code', {}, m.passwordRules),
        ` ${String(m.allowedSize)} characters to choose from, length ${String(m.length)}${note}.`,
      );
      read.hidden = false;
    },
  };
}
