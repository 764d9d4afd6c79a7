/**
 * Rendering a generate result: the values with their copy buttons, the title, the strength,
 * and one line for screen readers; or, for an error, the API's message in words (messages.ts)
 * next to its field and "Nothing generated".
 * @module
 */
import type { GenerateResult } from '../entry.ts';
import type { Credential, Description, Generated, Mode } from './description.ts';
import { byId, h, plural } from './dom.ts';
import type { Copier } from './copy.ts';
import type { ApiError, ErrorDisplay } from './field-errors.ts';
import { personMessage } from './messages.ts';
import type { StrengthView } from './strength.ts';

export interface ResultsView {
  /** `failure.refusals`: every refusal of a request refused (refusals.ts), the first the
   * result's own; `failure.changed`: the field of the control the person just changed. */
  render(result: GenerateResult, mode: Mode, failure: { refusals: readonly ApiError[]; changed: string | null }): void;
}

interface Parts {
  errors: ErrorDisplay;
  strength: StrengthView;
  copier: Copier;
  /** The polite live region. */
  status: HTMLElement;
}

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

export function createResultsView(d: Description, parts: Parts): ResultsView {
  const { errors, strength, copier, status } = parts;
  const title = byId('results-title');
  const list = byId<HTMLOListElement>('results');
  const empty = byId('results-empty');
  const listNames = Object.fromEntries(
    Object.entries(d.modes.passphrase.wordLists).map(([id, list]) => [id, list.name]),
  );

  function item(credential: Credential, i: number, noun: string): HTMLLIElement {
    const value = colourValue(credential.value, d);
    const button = h(
      'button',
      { type: 'button', class: 'button small copy', 'aria-label': `Copy ${noun} ${i + 1}` },
      'Copy',
    );
    button.addEventListener('click', () => void copier.copy(credential.value, button, value));
    return h('li', {}, value, button);
  }

  function showFailure(mode: Mode, all: readonly ApiError[], changed: string | null, noun: string): void {
    errors.show(mode, all, changed);
    const error = all[0];
    title.textContent = `Your ${noun}`;
    empty.textContent = `Nothing generated: ${error.error}.`;
    empty.hidden = false;
    strength.show(undefined);
    status.textContent = `Not generated. ${error.error}`;
  }

  function showResults(data: Generated, noun: string): void {
    empty.hidden = true;
    title.textContent = data.count === 1 ? `Your ${noun}` : `Your ${data.count} ${noun}s`;
    data.results.forEach((credential, i) => {
      list.append(item(credential, i, noun));
    });
    strength.show(data);
    // Announce what happened, not the secrets themselves: a screen reader reading a batch of
    // passwords aloud on every slider step would be both useless and a shoulder-surfing risk.
    status.textContent = `Generated ${plural(data.count, noun)}: ${data.entropy.bits.toFixed(2)} bits, ${data.entropy.label}.`;
  }

  return {
    render(result, mode, failure): void {
      errors.clear();
      copier.hideHint();
      list.replaceChildren();
      const noun = mode === 'password' ? 'password' : 'passphrase';
      if (result.ok) showResults(result.data as unknown as Generated, noun);
      // The API's bodies in words for a person (messages.ts); each field still places its own.
      else {
        const all = (failure.refusals.length > 0 ? failure.refusals : [result.error]).map((e) => ({
          ...e,
          error: personMessage(e, listNames),
        }));
        showFailure(mode, all, failure.changed, noun);
      }
    },
  };
}
