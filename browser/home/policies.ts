/**
 * The operator's named policies on the page, offered when the serving instance has them:
 * `describe().policies`, which the page's ServiceAPI read from the page the server served
 * (browser/entry.ts), as it reads the entropy floor. A list box above the options: choosing a
 * policy sets the mode to the policy's, hides the options (the policy's stored options apply,
 * and the API refuses options beside it), and makes the request `{mode, policy, count?}`, the
 * same one the curl line shows. Without policies there is no list box and nothing changes.
 * @module
 */
import type { Description, FormRequest, Mode } from './description.ts';
import { byId, h } from './dom.ts';
import type { OptionForm } from './option-form.ts';

export interface PolicyPicker {
  /** The request with the chosen policy in place of the options, or as it is. */
  apply(request: FormRequest): FormRequest;
  /** After the list box or the mode changed: the mode and the options shown follow. */
  changed(name: string | undefined): void;
}

export function createPolicyPicker(d: Description, form: OptionForm): PolicyPicker {
  const policies = d.policies;
  if (policies.length === 0) return { apply: (request) => request, changed: () => undefined };
  const select = h(
    'select',
    { id: 'policy', name: 'policy', 'aria-describedby': 'policy-hint error-policy' },
    h('option', { value: '' }, 'None: choose the options below'),
    ...policies.map((p) =>
      h(
        'option',
        { value: p.name },
        `${p.name} (${p.mode}, ${p.entropy.bits.toFixed(2)} bits)${p.description === null ? '' : `: ${p.description}`}`,
      ),
    ),
  );
  const field = h(
    'div',
    { class: 'field select-field policy-field' },
    h('label', { for: 'policy' }, 'Named policy'),
    select,
    h(
      'p',
      { class: 'hint', id: 'policy-hint' },
      "This service's own settings, by name; the request sends only the name.",
    ),
    h('p', { class: 'field-error', id: 'error-policy', hidden: true }),
  );
  const modeOptions = byId('mode-options');
  modeOptions.before(field);
  const chosen = () => policies.find((p) => p.name === select.value);
  return {
    apply(request) {
      const policy = chosen();
      if (policy === undefined) return request;
      return {
        mode: policy.mode as Mode,
        policy: policy.name,
        ...(request.count === undefined ? {} : { count: request.count }),
      };
    },
    changed(name) {
      const policy = chosen();
      // A mode chosen by hand that is not the policy's leaves the policy.
      if (name === 'mode' && policy !== undefined && policy.mode !== form.currentMode()) select.value = '';
      const now = chosen();
      if (now !== undefined) {
        for (const radio of form.modeRadios) radio.checked = radio.value === now.mode;
        form.showPanel();
      }
      modeOptions.hidden = now !== undefined;
    },
  };
}
