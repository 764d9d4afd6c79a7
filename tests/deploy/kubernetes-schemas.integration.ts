/**
 * The Kubernetes manifests (deploy/kubernetes/) against the Kubernetes API's own OpenAPI
 * schemas, offline: kubernetes-models (a devDependency, test-only) carries each resource's
 * schema compiled to a validator, so every field name, type and required field of every
 * resource is checked as the API server's schema would check it, with no cluster and no
 * network. tests/deploy/kubernetes.test.ts checks what the schemas cannot: the restricted
 * level, references between the objects, the overlay's patch target. An integration test
 * because kubernetes-models declares Node 22 or later, and the integration run is on the
 * newest LTS line.
 *
 * What is validated: every resource of the base, and the Redis overlay's own resources. The
 * overlay's patch is a fragment of a Deployment, so it is validated merged into the base's
 * (containers, env, volumes and mounts merged by name, as a strategic merge patch does).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../helpers/server.ts';

const yaml = createRequire(import.meta.url)('js-yaml') as { loadAll(text: string): unknown[] };

type Obj = Record<string, unknown>;
interface Validating {
  validate(): void;
}
type ModelClass = new (data: Obj) => Validating;

const DIR = join(ROOT, 'deploy', 'kubernetes');

/** The model of each kind the manifests use, by apiVersion and kind. */
const MODELS: Record<string, string> = {
  'apps/v1 Deployment': 'kubernetes-models/apps/v1/Deployment',
  'v1 Service': 'kubernetes-models/v1/Service',
  'policy/v1 PodDisruptionBudget': 'kubernetes-models/policy/v1/PodDisruptionBudget',
  'networking.k8s.io/v1 NetworkPolicy': 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy',
};

async function modelOf(obj: Obj): Promise<ModelClass> {
  const id = `${String(obj.apiVersion)} ${String(obj.kind)}`;
  const path = MODELS[id];
  assert.ok(path !== undefined, `no schema model for ${id}: add it to MODELS`);
  const mod = (await import(path)) as Record<string, ModelClass>;
  const model = mod[String(obj.kind)];
  assert.ok(model !== undefined, `${path} exports no ${String(obj.kind)}`);
  return model;
}

function load(file: string): Obj[] {
  return yaml.loadAll(readFileSync(file, 'utf8')).filter((d): d is Obj => d !== null && typeof d === 'object');
}

function resourcesOf(dir: string): string[] {
  const k = load(join(dir, 'kustomization.yaml'))[0] as { resources?: string[] };
  return (k.resources ?? []).filter((r) => r.endsWith('.yaml')).map((r) => join(dir, r));
}

/** Why `obj` fails its schema, or null. */
async function schemaError(obj: Obj): Promise<string | null> {
  const Model = await modelOf(obj);
  try {
    new Model(obj).validate();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** A strategic merge of `patch` into `base` for the fields the overlay patches: maps merged
 * key by key, lists of named items merged by name, other lists and values replaced. */
function merge(base: unknown, patch: unknown): unknown {
  if (Array.isArray(base) && Array.isArray(patch)) {
    const named = (x: unknown): x is Obj & { name: string } =>
      x !== null && typeof x === 'object' && typeof (x as Obj).name === 'string';
    if (!patch.every(named) || !base.every(named)) return patch;
    const out = base.map((item) => {
      const over = patch.find((p) => p.name === item.name);
      return over === undefined ? item : merge(item, over);
    });
    return [...out, ...patch.filter((p) => !base.some((b) => b.name === p.name))];
  }
  if (base !== null && patch !== null && typeof base === 'object' && typeof patch === 'object') {
    const out: Obj = { ...(base as Obj) };
    for (const [k, v] of Object.entries(patch as Obj)) out[k] = k in out ? merge(out[k], v) : v;
    return out;
  }
  return patch;
}

describe('Kubernetes manifests against the Kubernetes API schemas (offline)', () => {
  it('every resource of the base validates', async () => {
    const files = resourcesOf(DIR);
    assert.ok(files.length >= 5, 'the base lists its resources');
    let checked = 0;
    for (const file of files) {
      for (const obj of load(file)) {
        assert.equal(await schemaError(obj), null, `${file}: ${String(obj.kind)}`);
        checked++;
      }
    }
    assert.ok(checked >= 5);
  });

  it('the Redis overlay: its own resources, and the Deployment with its patch merged in', async () => {
    const overlay = join(DIR, 'overlays', 'redis');
    for (const file of resourcesOf(overlay)) {
      for (const obj of load(file)) assert.equal(await schemaError(obj), null, `${file}: ${String(obj.kind)}`);
    }
    const k = load(join(overlay, 'kustomization.yaml'))[0] as { patches?: { path: string }[] };
    const base = load(join(DIR, 'deployment.yaml'))[0];
    for (const { path } of k.patches ?? []) {
      const merged = merge(base, load(join(overlay, path))[0]) as Obj;
      assert.equal(await schemaError(merged), null, `${path} merged into deployment.yaml`);
    }
  });

  it('the schemas find faults: a wrong type, an unknown kind of value, a missing required field', async () => {
    const deployment = load(join(DIR, 'deployment.yaml'))[0] as { spec: Obj };
    const wrongType = { ...deployment, spec: { ...deployment.spec, replicas: 'two' } };
    assert.notEqual(await schemaError(wrongType), null, 'replicas as a string');
    const service = load(join(DIR, 'service.yaml'))[0] as { spec: { ports: Obj[] } };
    const badPort = { ...service, spec: { ...service.spec, ports: [{ ...service.spec.ports[0], port: '80x' }] } };
    assert.notEqual(await schemaError(badPort), null, 'a port that is not a number');
    const noSelector = { ...deployment, spec: { ...deployment.spec, selector: undefined, template: undefined } };
    assert.notEqual(await schemaError(JSON.parse(JSON.stringify(noSelector)) as Obj), null, 'no selector, no template');
  });
});
