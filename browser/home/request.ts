/**
 * Reading the form into the request `ServiceAPI.generate()` takes: the current mode, and the
 * count and that mode's options that hold a value other than the API's default (or one the
 * page set for the user: controls.ts), each as typed (see readNumber), so a bad value reaches
 * the API and gets its message instead of being corrected here. A default is not sent, whether
 * never changed or typed back: the API's default applies, which is what the form shows,
 * except where the API's default depends on the request: with site rules and no
 * length, the rules' own default length (24 moved into their bounds), not 24 itself. So a
 * fresh page with a rule of maxlength 16 gets 16 characters, and the request is exactly what
 * the curl line shows. Also left out: what the form has turned off (an empty site-rules box,
 * or with rules the options they replace; option-form.ts) and an optional box left empty.
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
    const value = control.read();
    if (control.changed() && !leftOut.has(control.name) && value !== undefined) options[control.name] = value;
  }
  const request: FormRequest = { mode };
  if (form.countChanged()) request.count = readNumber(form.count);
  if (Object.keys(options).length > 0) request.options = options;
  return request;
}
