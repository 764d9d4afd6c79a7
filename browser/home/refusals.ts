/**
 * Every refusal of a request, not only the first: the API answers one error at a time (the
 * first it finds), so two settings that conflict with a third (Symbols unticked while a minimum
 * of symbols and a symbol first are set) would show one message and leave the other control
 * looking fine. Here the API is asked again with the option it named left out, and again, until
 * it accepts or names something that is not an option of the request: each answer is the API's
 * own message about its own field. At most one question per option sent, all in the browser.
 * @module
 */
import type { ServiceApi } from '../entry.ts';
import type { FormRequest } from './description.ts';
import type { ApiError } from './field-errors.ts';

export function refusals(api: ServiceApi, request: FormRequest, first: ApiError): ApiError[] {
  const found = [first];
  let options: Record<string, unknown> = { ...request.options };
  for (;;) {
    const field = found[found.length - 1].field;
    const name = field?.startsWith('options.') === true ? field.slice('options.'.length) : undefined;
    if (name === undefined || !Object.hasOwn(options, name)) return found;
    options = Object.fromEntries(Object.entries(options).filter(([key]) => key !== name));
    const result = api.generate({ ...request, options });
    if (result.ok || found.some((e) => e.field === result.error.field)) return found;
    found.push(result.error);
  }
}
