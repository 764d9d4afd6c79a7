/**
 * The Kubernetes manifests (deploy/kubernetes/) as Kubernetes gets them: every kustomization
 * (the base and each overlay) rendered by a real `kubectl kustomize`, the tool
 * `kubectl apply -k` runs, and what it renders checked (issue 41: the Redis overlay, nested in
 * its own base, did not build at all while the checks that followed it by hand passed).
 *
 * Each rendered object is validated against the Kubernetes API's own OpenAPI schemas, offline:
 * kubernetes-models (a devDependency, test-only) carries each resource's schema compiled to a
 * validator, so every field name, type and required field is checked as the API server's schema
 * would check it, with no cluster and no network. Then the rendered set gets the checks
 * tests/deploy/kubernetes.test.ts makes of the files (tests/helpers/kubernetes.ts): references
 * between the objects and the restricted level. An integration test because kubernetes-models
 * declares Node 22 or later, and the integration run is on the newest LTS line, and because it
 * needs kubectl.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  checkAll,
  checkRestricted,
  KUBERNETES,
  kustomizations,
  kustomizeMissing,
  load,
  render,
  type Obj,
} from '../helpers/kubernetes.ts';

interface Validating {
  validate(): void;
}
type ModelClass = new (data: Obj) => Validating;

const skip = kustomizeMissing();

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

/** Renders a kustomization (relative to deploy/kubernetes), failing with kustomize's message. */
function rendered(dir: string): Obj[] {
  const out = render(join(KUBERNETES, dir));
  assert.ok(out.ok, `kubectl kustomize ${dir}: ${out.ok ? '' : out.error}`);
  return out.objects;
}

describe('Kubernetes manifests rendered by kubectl kustomize', { skip: skip ?? false }, () => {
  it('finds the base and the Redis overlay', () => {
    assert.deepEqual(kustomizations(), ['base', 'overlays/redis']);
  });

  for (const dir of skip === null ? kustomizations() : []) {
    it(`${dir}: renders, every object validates against its schema, references resolve, restricted`, async () => {
      const objects = rendered(dir);
      assert.ok(objects.length >= 5, `${dir} renders the base's five objects at least`);
      for (const obj of objects) {
        assert.equal(await schemaError(obj), null, `${dir}: ${String(obj.kind)}/${String(obj.metadata?.name)}`);
      }
      checkAll(objects);
      checkRestricted(objects.find((o) => o.kind === 'Deployment')!.spec.template.spec);
      for (const obj of objects) {
        assert.equal(obj.metadata.labels?.['app.kubernetes.io/part-of'], 'credential-generator', 'the base label');
      }
    });
  }

  it('the Redis overlay renders the patch merged into the base Deployment, and its egress', () => {
    const objects = rendered('overlays/redis');
    const deployments = objects.filter((o) => o.kind === 'Deployment');
    assert.equal(deployments.length, 1, 'one Deployment: the patch merged, not added');
    const pod = deployments[0].spec.template.spec;
    const env = Object.fromEntries(pod.containers[0].env.map((e: Obj) => [e.name, e.value]));
    assert.equal(env.API_KEYS_FILE, '/keys/keys.json', "the base's variables kept");
    assert.match(env.RATE_LIMIT_REDIS_URL, /^redis:\/\//);
    assert.equal(env.RATE_LIMIT_REDIS_PASSWORD_FILE, '/redis/password');
    assert.deepEqual(pod.volumes.map((v: Obj) => v.name).sort(), ['keys', 'redis-password']);
    const egress = objects.find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'credential-generator-redis');
    assert.ok(egress?.spec.egress.some((e: Obj) => e.ports.some((p: Obj) => p.port === 6379)));
  });

  it('the checks find faults in rendered output: a wrong type, a malformed port, a missing field', async () => {
    const deployment = load(join(KUBERNETES, 'base', 'deployment.yaml'))[0];
    assert.notEqual(await schemaError({ ...deployment, spec: { ...deployment.spec, replicas: 'two' } }), null);
    const service = load(join(KUBERNETES, 'base', 'service.yaml'))[0];
    const badPort = { ...service, spec: { ...service.spec, ports: [{ ...service.spec.ports[0], port: '80x' }] } };
    assert.notEqual(await schemaError(badPort), null, 'a port that is not a number');
    const noSelector = { ...deployment, spec: { ...deployment.spec, selector: undefined, template: undefined } };
    assert.notEqual(await schemaError(JSON.parse(JSON.stringify(noSelector)) as Obj), null);
  });

  it("a failed render is reported with kustomize's message: an overlay nested in its base", () => {
    // The layout issue 41 found: deploy/kubernetes was the base and held overlays/redis.
    const dir = mkdtempSync(join(tmpdir(), 'cg-kustomize-'));
    try {
      const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n';
      writeFileSync(join(dir, 'cm.yaml'), cm);
      writeFileSync(join(dir, 'kustomization.yaml'), 'resources:\n  - cm.yaml\n');
      mkdirSync(join(dir, 'overlays', 'o'), { recursive: true });
      writeFileSync(join(dir, 'overlays', 'o', 'kustomization.yaml'), 'resources:\n  - ../..\n');
      const out = render(join(dir, 'overlays', 'o'));
      assert.equal(out.ok, false);
      assert.match(out.ok ? '' : out.error, /cycle detected/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
