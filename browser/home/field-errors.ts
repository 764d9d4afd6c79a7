/**
 * Error display next to the fields the API names, and next to the control the person just
 * changed: each message goes into its field's error slot (`error-count`, `error-mode`,
 * `error-minBits` beside the floor note, or errorId(mode, field)), the field's inputs get
 * aria-invalid, and a field without a slot falls back to the general one under the form. When
 * the control just changed is none of those fields (a site rule that conflicts with a Length
 * typed earlier, Symbols unticked under a minimum of symbols), every message shows beside it
 * too, so the person sees the refusal where they are. The messages are the API's, in words for
 * a person (messages.ts: the control's label for the field path).
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
  /** `errors`: every refusal, each about its field (refusals.ts); `changed`: the field of the
   * control the person just changed, or null (a button, the page's own generation). */
  show(mode: Mode, errors: readonly ApiError[], changed: string | null): void;
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
    show(mode: Mode, errors: readonly ApiError[], changed: string | null): void {
      const slotOf = (field: string | undefined): HTMLElement => {
        const slot = field === undefined ? undefined : (TOP_LEVEL_SLOTS[field] ?? errorId(mode, field));
        return (slot && document.getElementById(slot)) || byId('error-general');
      };
      const place = (target: HTMLElement, text: string): void => {
        // One line per message (styles.css: pre-line), each once.
        const lines = target.hidden || target.textContent === '' ? [] : target.textContent.split('\n');
        if (!lines.includes(text)) lines.push(text);
        target.textContent = lines.join('\n');
        target.hidden = false;
        // A field in a closed group (the password's requirements) opens it, so its message shows.
        const group = target.closest('details');
        if (group) group.open = true;
      };
      for (const error of errors) {
        place(slotOf(error.field), error.error);
        for (const el of invalidInputs(d, options, mode, error.field)) el.setAttribute('aria-invalid', 'true');
      }
      if (changed === null) return;
      const here = slotOf(changed);
      if (errors.some((e) => slotOf(e.field) === here)) return;
      for (const error of errors) place(here, error.error);
    },
  };
}
