/**
 * Error display next to the field the API names: the message goes into that field's error
 * slot (`error-count`, `error-mode`, `error-minBits` beside the floor note, or
 * errorId(mode, field)), the field's inputs get aria-invalid, and a field without a slot falls
 * back to the general one under the form. The message is the API's, in words for a person
 * (messages.ts: the control's label for the field path).
 * @module
 */
import type { Description, Mode } from './description.ts';
import { byId, errorId } from './dom.ts';
import type { OptionForm } from './option-form.ts';

export interface ApiError {
  error: string;
  field?: string;
}

export interface ErrorDisplay {
  clear(): void;
  show(mode: Mode, error: ApiError): void;
}

/** The slots of the request's own fields (in index.html); options have theirs in the panels. */
const TOP_LEVEL_SLOTS: Readonly<Record<string, string>> = {
  mode: 'error-mode',
  count: 'error-count',
  minBits: 'error-minBits',
  policy: 'error-policy',
};

/** The inputs to mark invalid for the field the API named. */
function invalidInputs(d: Description, options: OptionForm, mode: Mode, field: string | undefined): HTMLElement[] {
  const controls = options.panels.get(mode)?.controls ?? [];
  if (field === 'count') return [options.count];
  if (field === 'mode') return [...options.modeRadios];
  // `options` (no class enabled) concerns every class checkbox at once.
  if (field === 'options' && mode === 'password') {
    const classOptions = new Set(d.modes.password.characterClasses.map((k) => k.option));
    return controls.filter((c) => classOptions.has(c.name)).flatMap((c) => c.inputs);
  }
  if (field?.startsWith('options.')) {
    const name = field.slice('options.'.length);
    return controls.find((c) => c.name === name)?.inputs ?? [];
  }
  return [];
}

export function createErrorDisplay(d: Description, form: HTMLFormElement, options: OptionForm): ErrorDisplay {
  return {
    clear(): void {
      // (tsconfig's lib has DOM but not DOM.Iterable, hence forEach rather than for-of.)
      form.querySelectorAll<HTMLElement>('.field-error').forEach((el) => {
        el.hidden = true;
        el.textContent = '';
      });
      form.querySelectorAll('[aria-invalid]').forEach((el) => {
        el.removeAttribute('aria-invalid');
      });
    },
    show(mode: Mode, error: ApiError): void {
      const field = error.field;
      const slot = field === undefined ? undefined : (TOP_LEVEL_SLOTS[field] ?? errorId(mode, field));
      const target = (slot && document.getElementById(slot)) || byId('error-general');
      target.textContent = error.error;
      target.hidden = false;
      // A field in a closed group (the password's requirements) opens it, so its message shows.
      const group = target.closest('details');
      if (group) group.open = true;
      for (const el of invalidInputs(d, options, mode, field)) el.setAttribute('aria-invalid', 'true');
    },
  };
}
