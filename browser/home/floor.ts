/**
 * The service's entropy floor on the page: `describe().limits.minEntropyBits`, which the page's
 * ServiceAPI read from the page the server served (browser/entry.ts). When there is one, a note
 * says so, and the choices that would give fewer bits are turned off, each with the note as
 * its description. Which choices those are is asked of `ServiceAPI.generate()` itself (a
 * refusal naming minBits), so the page never decides the floor differently from the API.
 *
 * Choices are turned off only while the current options meet the floor. When they do not (or
 * are invalid for another reason), everything is turned back on, so every way out stays open,
 * and the API's own message says what is wrong.
 * @module
 */
import type { GenerateResult, ServiceApi } from '../entry.ts';
import type { Control } from './controls.ts';
import type { Description, FormRequest, Mode } from './description.ts';
import { byId } from './dom.ts';
import type { OptionForm } from './option-form.ts';

export interface FloorGuard {
  /** Turns choices off or on for the request just made and its result. */
  update(request: FormRequest, result: GenerateResult): void;
  /** For a request refused for the floor: sets each count control the user has not set (the
   * words, the length) to its lowest value that meets the floor. Whether any was set. */
  raise(request: FormRequest): boolean;
}

type Options = Record<string, unknown>;

/** What the API says of some options: accepted, under the floor, or refused for another reason. */
type Verdict = 'ok' | 'floor' | 'other';

/** Turns off nothing: every choice of the control on. */
function clear(control: Control): void {
  if (control.floor?.kind === 'choices') control.floor.mark(new Set());
  else control.floor?.mark(null);
}

/**
 * Marks one control, given the API's verdict on options. A choice is turned off when it would
 * fall under the floor. A count control's lowest accepted value is found by bisection: more
 * characters or words never give fewer bits (every valid password or passphrase of one length
 * extends to valid ones of the next), and a site's minlength refuses only the shortest ones,
 * so the values the API accepts form a range up to the current one. That value is a limit of
 * the floor only when the one below it is refused for the floor.
 */
function markControl(control: Control, options: Options, verdict: (o: Options) => Verdict): void {
  const floor = control.floor;
  if (floor === undefined) return;
  const withValue = (value: unknown): Options => ({ ...options, [control.name]: value });
  if (floor.kind === 'choices') {
    floor.mark(new Set(floor.others().filter((value) => verdict(withValue(value)) === 'floor')));
    return;
  }
  const current = control.read();
  // The request leaves out what the user has not changed: the value shown is then the API's
  // default, except a length under site rules, where the request has none (request.ts). A
  // value the API refuses on its own has no floor to show.
  const sent = Object.hasOwn(options, control.name);
  if (typeof current !== 'number' || (!sent && verdict(withValue(current)) !== 'ok')) {
    floor.mark(null);
    return;
  }
  let low = floor.lowest;
  let high = current;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (verdict(withValue(middle)) === 'ok') high = middle;
    else low = middle + 1;
  }
  floor.mark(low > floor.lowest && verdict(withValue(low - 1)) === 'floor' ? low : null);
}

export function createFloorGuard(api: ServiceApi, d: Description, form: OptionForm): FloorGuard {
  const floor = d.limits.minEntropyBits;
  const note = byId('floor-note');
  if (!(floor > 0)) {
    note.hidden = true;
    return { update: () => undefined, raise: () => false };
  }
  note.textContent = `This service accepts no result under ${String(floor)} bits: choices that would give fewer are turned off.`;
  note.hidden = false;
  const verdictOf =
    (mode: Mode) =>
    (options: Options): Verdict => {
      const r = api.generate({ mode, options });
      return r.ok ? 'ok' : r.error.field === 'minBits' ? 'floor' : 'other';
    };
  return {
    // Defaults that meet the floor (issue 31): with a floor of 64 bits passphrase mode opens at
    // 5 words (64.62 bits), not at the API's 4 and a refusal. The fewest that reach it: the
    // values up from the current one are tried in order (bits never fall as the count grows).
    raise(request) {
      const verdict = verdictOf(request.mode);
      const options = request.options ?? {};
      let raised = false;
      for (const control of form.panels.get(request.mode)?.controls ?? []) {
        const hooks = control.floor;
        const current = control.read();
        if (hooks?.kind !== 'increasing' || hooks.byUser() || typeof current !== 'number') continue;
        for (let value = current + 1; value <= hooks.highest; value++) {
          const v = verdict({ ...options, [control.name]: value });
          if (v === 'floor') continue;
          if (v === 'ok') {
            hooks.set(value);
            raised = true;
          }
          break;
        }
      }
      return raised;
    },
    update(request, result) {
      const mode: Mode = request.mode;
      const verdict = verdictOf(mode);
      const options = request.options ?? {};
      const leftOut = form.leftOut(mode);
      for (const [panelMode, panel] of form.panels) {
        for (const control of panel.controls) {
          const shown = panelMode === mode && !leftOut.has(control.name) && control.read() !== undefined;
          if (result.ok && shown) markControl(control, options, verdict);
          else clear(control);
        }
      }
    },
  };
}
