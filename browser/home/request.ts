/**
 * Reading the form into the request `ServiceAPI.generate()` takes: the current mode, the
 * count and that mode's options, each as typed (see readNumber), so a bad value reaches the
 * API and gets its message instead of being corrected here. The only options left out are the
 * ones the form itself has turned off: an empty site-rules box (no rules), or with rules, the
 * options they replace (option-form.ts).
 * @module
 */
import type { FormRequest } from './description.ts';
import { readNumber } from './controls.ts';
import type { OptionForm } from './option-form.ts';

export function readRequest(form: OptionForm): FormRequest {
  const mode = form.currentMode();
  const leftOut = form.leftOut(mode);
  const options: Record<string, unknown> = {};
  for (const control of form.panels.get(mode)?.controls ?? []) {
    if (!leftOut.has(control.name)) options[control.name] = control.read();
  }
  return { mode, count: readNumber(form.count), options };
}
