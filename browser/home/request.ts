/**
 * Reading the form into the request `ServiceAPI.generate()` takes: the current mode, the
 * count and that mode's options, each as typed (see readNumber), so a bad value reaches the
 * API and gets its message instead of being corrected here.
 * @module
 */
import type { FormRequest } from './description.ts';
import { readNumber } from './controls.ts';
import type { OptionForm } from './option-form.ts';

export function readRequest(form: OptionForm): FormRequest {
  const mode = form.currentMode();
  const options: Record<string, unknown> = {};
  for (const control of form.panels.get(mode)?.controls ?? []) options[control.name] = control.read();
  return { mode, count: readNumber(form.count), options };
}
