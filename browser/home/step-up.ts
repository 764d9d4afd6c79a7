/**
 * Strong by default on the page, and the one step that reaches it. The API keeps its defaults
 * (4 EFF words, 51.70 bits, Fair: the contract's); the page chooses where it opens: each mode at
 * the fewest characters or words that the API labels Strong or better, set for the user as the
 * entropy floor does (sent, so the curl line says so). Then, whenever a result is below Strong,
 * a button beside the label offers the smallest step that reaches it ("Add 1 word: 66.00 bits,
 * Strong"): more words or characters, as many as it takes, within the schema's bound and
 * whatever the other options allow. Every figure comes from ServiceAPI.generate() itself, so
 * the page never decides a label differently from the API. Nothing is offered for a named
 * policy (its options are the operator's) or when no step reaches Strong.
 * @module
 */
import type { GenerateResult, ServiceApi } from '../entry.ts';
import type { Control, FloorHooks } from './controls.ts';
import type { Description, FormRequest, Generated, Mode } from './description.ts';
import { byId, plural } from './dom.ts';
import type { OptionForm } from './option-form.ts';

type Increasing = Extract<FloorHooks, { kind: 'increasing' }>;

export interface StepUp {
  /** Sets each mode's count control the user has not touched to the fewest that is Strong,
   * where the API's default is below (once, as the page opens). */
  open(): void;
  /** Offers the step for the result just shown (none: hidden). */
  update(request: FormRequest, result: GenerateResult): void;
}

/** The words a step adds: `1 word`, `3 characters`. */
const NOUNS: Readonly<Record<string, readonly [string, string]>> = {
  wordCount: ['word', 'words'],
  length: ['character', 'characters'],
};

/** The level the API labels Strong: the target (the label named so, else the middle one). */
function strongLevel(d: Description): number {
  const labels = d.entropy.labels;
  return labels.find((row) => row.label === 'Strong')?.level ?? labels[Math.floor(labels.length / 2)].level;
}

/** The mode's count controls: more of them never gives fewer bits (floor.ts says why). */
function countControls(form: OptionForm, mode: Mode): { control: Control; hooks: Increasing }[] {
  return (form.panels.get(mode)?.controls ?? []).flatMap((control) =>
    control.floor?.kind === 'increasing' ? [{ control, hooks: control.floor }] : [],
  );
}

export function createStepUp(api: ServiceApi, d: Description, form: OptionForm, onStep: () => void): StepUp {
  const target = strongLevel(d);
  const button = byId<HTMLButtonElement>('step-up');
  let step: (() => void) | null = null;
  button.addEventListener('click', () => {
    step?.();
    onStep();
  });

  /** The first value above `from` at which these options are Strong, with its result. */
  const firstStrong = (
    mode: Mode,
    options: Record<string, unknown>,
    name: string,
    from: number,
    highest: number,
  ): { value: number; data: Generated } | null => {
    for (let value = from + 1; value <= highest; value++) {
      const r = api.generate({ mode, options: { ...options, [name]: value } });
      if (!r.ok) return null; // past a bound the other options set (a maxLength, a maxlength)
      const data = r.data as unknown as Generated;
      if (data.entropy.level >= target) return { value, data };
    }
    return null;
  };

  return {
    open() {
      for (const mode of form.panels.keys()) {
        const fresh = api.generate({ mode });
        if (!fresh.ok || (fresh.data as unknown as Generated).entropy.level >= target) continue;
        for (const { control, hooks } of countControls(form, mode)) {
          const current = control.read();
          if (hooks.byUser() || typeof current !== 'number') continue;
          const found = firstStrong(mode, {}, control.name, current, hooks.highest);
          if (found !== null) hooks.set(found.value);
        }
      }
    },
    update(request, result) {
      step = null;
      button.hidden = true;
      if (!result.ok || request.policy !== undefined) return;
      if ((result.data as unknown as Generated).entropy.level >= target) return;
      const options = request.options ?? {};
      for (const { control, hooks } of countControls(form, request.mode)) {
        const current = control.read();
        if (typeof current !== 'number') continue;
        const found = firstStrong(request.mode, options, control.name, current, hooks.highest);
        if (found === null) continue;
        const [one, many] = NOUNS[control.name] ?? [control.name, control.name];
        const { bits, label } = found.data.entropy;
        button.textContent = `Add ${plural(found.value - current, one, many)}: ${bits.toFixed(2)} bits, ${label}`;
        button.hidden = false;
        step = () => {
          hooks.set(found.value);
        };
        return;
      }
    },
  };
}
