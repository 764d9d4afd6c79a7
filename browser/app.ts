/**
 * The home page's generator UI. It owns no rules: every bound, default and enum comes from
 * `ServiceAPI.describe()` (which reads the request schema), and every result or error comes
 * from `ServiceAPI.generate()`, so the page shows exactly what the HTTP API would answer.
 * The only things defined here are words for people (labels, hints) and layout.
 *
 * The parts live in browser/home/, one concern each: the option form built from describe()
 * (option-form.ts, controls.ts, the site-rules field rules-field.ts), reading it into a request
 * (request.ts), rendering results (results.ts), the meter, label table and the rule counted in
 * words (strength.ts, rule-words.ts), errors next to their field and the control just changed
 * (field-errors.ts, every refusal: refusals.ts), the service's entropy floor (floor.ts), opening
 * at Strong and the step that reaches it (step-up.ts), the service's named policies
 * (policies.ts), copying (copy.ts) and the curl line (curl.ts). Rollup bundles them into this
 * one script.
 *
 * Runs after service-api.js (both `defer`, in order). Nothing here touches the network; the
 * page's CSP (`connect-src 'none'`) would block it anyway. No inline styles either: state is
 * expressed with classes, `hidden` and `data-*` attributes that styles.css reads.
 * @module
 */
import type { ServiceApi } from './entry.ts';
import type { Description } from './home/description.ts';
import { byId } from './home/dom.ts';
import { createCopier } from './home/copy.ts';
import { curlCommand } from './home/curl.ts';
import { createErrorDisplay } from './home/field-errors.ts';
import { createFloorGuard } from './home/floor.ts';
import { buildOptionForm } from './home/option-form.ts';
import { createPolicyPicker } from './home/policies.ts';
import { refusals } from './home/refusals.ts';
import { readRequest } from './home/request.ts';
import { createResultsView } from './home/results.ts';
import { createStepUp } from './home/step-up.ts';
import { createStrengthView } from './home/strength.ts';

function start(api: ServiceApi): void {
  const d = api.describe() as unknown as Description;
  const form = byId<HTMLFormElement>('generator-form');
  const status = byId('status');
  const curl = byId('curl-example');
  const options = buildOptionForm(d);
  const strength = createStrengthView(d);
  const copier = createCopier(status, byId('copy-hint'));
  const errors = createErrorDisplay(d, form, options);
  const results = createResultsView(d, { errors, strength, copier, status });
  const floor = createFloorGuard(api, d, options);
  const policies = createPolicyPicker(d, options);
  const step = createStepUp(api, d, options, () => {
    generateNow(null);
  });

  /** `changed`: the field of the control the person just changed (its refusals show there too),
   * or null for a button or the page's own generation. */
  function generateNow(changed: string | null): void {
    let request = policies.apply(readRequest(options));
    let result = api.generate(request);
    // Refused for the service's floor at a count the user has not chosen: start at the fewest
    // words (or characters) that meet it instead of at a refusal (floor.ts, raise).
    if (!result.ok && result.error.field === 'minBits' && floor.raise(request)) {
      request = policies.apply(readRequest(options));
      result = api.generate(request);
    }
    results.render(result, request.mode, {
      refusals: result.ok ? [] : refusals(api, request, result.error),
      changed,
    });
    options.rules.showRead(request.mode === 'password' ? result : null);
    floor.update(request, result);
    step.update(request, result);
    policies.showRule(result);
    curl.textContent = curlCommand(request, location.origin);
  }

  form.addEventListener('submit', (event) => {
    // form-action 'none' would block a real submission anyway; Enter in a field generates.
    event.preventDefault();
    generateNow(null);
  });
  form.addEventListener('input', (event) => {
    const target = event.target as HTMLInputElement | null;
    const name = target?.name;
    if (name === 'mode') options.showPanel();
    policies.changed(name);
    generateNow(target === null ? null : options.fieldOf(target));
  });
  // Beside the result: new values with the same options, without scrolling to the form.
  byId<HTMLButtonElement>('generate-again').addEventListener('click', () => {
    generateNow(null);
  });
  const copyCurl = byId<HTMLButtonElement>('copy-curl');
  copyCurl.addEventListener('click', () => void copier.copy(curl.textContent, copyCurl, curl));

  options.showPanel();
  step.open();
  generateNow(null);
  document.documentElement.classList.add('ready');
}

function boot(): void {
  const api = window.ServiceAPI;
  if (!api) {
    const el = document.getElementById('error-general');
    if (el) {
      el.textContent = 'The generator script did not load. Reload the page to try again.';
      el.hidden = false;
    }
    return;
  }
  start(api);
}

boot();
