/**
 * The operator's named policies on the page, offered when the serving instance has them:
 * `describe().policies`, which the page's ServiceAPI read from the page the server served
 * (browser/entry.ts), as it reads the entropy floor. A list box above the options: choosing a
 * policy sets the mode to the policy's, hides the options (the policy's stored options apply,
 * and the API refuses options beside it), and makes the request `{mode, policy, count?}`, the
 * same one the curl line shows. Without policies there is no list box and nothing changes.
 * @module
 */
import type { GenerateResult } from '../entry.ts';
import type { Description, FormRequest, Generated, Mode } from './description.ts';
import { byId, h } from './dom.ts';
import type { OptionForm } from './option-form.ts';
import { ruleOf } from './strength.ts';

export interface PolicyPicker {
  /** The request with the chosen policy in place of the options, or as it is. */
  apply(request: FormRequest): FormRequest;
  /** After the list box or the mode changed: the mode and the options shown follow. */
  changed(name: string | undefined): void;
  /** Beside the list box, the chosen policy's rule in words, from the result it just gave. */
  showRule(result: GenerateResult): void;
}

export function createPolicyPicker(d: Description, form: OptionForm): PolicyPicker {
  const policies = d.policies;
  if (policies.length === 0)
    return { apply: (request) => request, changed: () => undefined, showRule: () => undefined };
  const select = h(
    'select',
    { id: 'policy', name: 'policy', 'aria-describedby': 'policy-rule policy-hint error-policy' },
    h('option', { value: '' }, 'None: choose the options below'),
    ...policies.map((p) =>
      h(
        'option',
        { value: p.name },
        // The description and the rule show beside the box (#policy-rule), not cut off in it.
        `${p.name} (${p.mode}, ${p.entropy.bits.toFixed(2)} bits)`,
      ),
    ),
  );
  const rule = h('p', { class: 'policy-rule', id: 'policy-rule', 'aria-live': 'polite', hidden: true });
  const field = h(
    'div',
    { class: 'field select-field policy-field' },
    h('label', { for: 'policy' }, 'Named policy'),
    select,
    rule,
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
    showRule(result) {
      const policy = chosen();
      const data = result.ok ? (result.data as unknown as Generated) : null;
      rule.hidden = policy === undefined || data === null;
      if (policy === undefined || data === null) {
        rule.replaceChildren();
        return;
      }
      // The description is the operator's words; the rule is what the API counted for it.
      rule.replaceChildren(
        h('strong', {}, policy.description ?? policy.name),
        h(
          'span',
          { class: 'policy-counted' },
          `${ruleOf(data, d)}: ${data.entropy.bits.toFixed(2)} bits, ${data.entropy.label}.`,
        ),
      );
    },
  };
}
