/**
 * The Kubernetes manifests (deploy/kubernetes, issue 32), checked offline: every file parses,
 * each object has the fields its kind requires (a hand-written subset; the full Kubernetes
 * schemas are checked in kubernetes-schemas.integration.ts, on what a real `kubectl kustomize`
 * renders), the Pod Security Standard "restricted" fields are set on the pod and every
 * container, and every reference resolves (kustomization resources and patches, selectors to
 * pod labels, Service and NetworkPolicy ports to named container ports, volume mounts to
 * volumes, probes to ports). The checks are tests/helpers/kubernetes.ts's.
 *
 * YAML 1.1/1.2 differences (0440 octal or decimal) are avoided in the manifests: modes are
 * written in decimal.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../helpers/server.ts';
import { checkAll, checkRestricted, KUBERNETES, kustomizations, load, type Obj } from '../helpers/kubernetes.ts';

const BASE = join(KUBERNETES, 'base');
const REDIS = join(KUBERNETES, 'overlays', 'redis');

/** The objects a kustomization builds, resources and overlays followed (no kustomize here:
 * patches are strategic merges of the few fields the overlay touches, done below). */
function build(dir: string): { objects: Obj[]; patches: Obj[] } {
  const k = load(join(dir, 'kustomization.yaml'))[0];
  assert.equal(k.kind, 'Kustomization', dir);
  const objects: Obj[] = [];
  const patches: Obj[] = [];
  for (const resource of k.resources as string[]) {
    const path = join(dir, resource);
    assert.ok(existsSync(path), `${dir}: resource ${resource} exists`);
    if (existsSync(join(path, 'kustomization.yaml'))) {
      // kustomize refuses a root that contains one it has visited ("cycle detected"): an
      // overlay sits beside its base, never inside it (issue 41).
      const within = relative(resolve(path), resolve(dir));
      assert.ok(within.startsWith('..'), `${relative(KUBERNETES, dir)}: its base ${resource} contains it`);
      const inner = build(path);
      objects.push(...inner.objects);
      patches.push(...inner.patches);
    } else objects.push(...load(path));
  }
  for (const patch of (k.patches ?? []) as { path: string }[]) {
    assert.ok(existsSync(join(dir, patch.path)), `${dir}: patch ${patch.path} exists`);
    patches.push(...load(join(dir, patch.path)));
  }
  return { objects, patches };
}

/** Applies a Deployment patch the way a strategic merge does for these fields: containers and
 * volumes merged by name, env and volumeMounts appended. */
function applyPatches(objects: Obj[], patches: Obj[]): Obj[] {
  for (const patch of patches) {
    const target = objects.find((o) => o.kind === patch.kind && o.metadata.name === patch.metadata.name);
    assert.ok(target, `the patch's target ${patch.kind}/${patch.metadata.name} exists`);
    const spec = target.spec.template.spec;
    for (const pc of patch.spec.template.spec.containers ?? []) {
      const c = spec.containers.find((x: Obj) => x.name === pc.name);
      assert.ok(c, `patched container ${pc.name} exists`);
      c.env = [...(c.env ?? []), ...(pc.env ?? [])];
      c.volumeMounts = [...(c.volumeMounts ?? []), ...(pc.volumeMounts ?? [])];
    }
    spec.volumes = [...(spec.volumes ?? []), ...(patch.spec.template.spec.volumes ?? [])];
  }
  return objects;
}

describe('Kubernetes manifests (offline)', () => {
  it('the base: kinds and required fields, references resolve, the restricted level', () => {
    const { objects, patches } = build(BASE);
    assert.deepEqual(objects.map((o) => o.kind).sort(), [
      'Deployment',
      'NetworkPolicy',
      'PodDisruptionBudget',
      'Service',
      'Service',
    ]);
    assert.equal(patches.length, 0);
    checkAll(objects);
    const pod = objects.find((o) => o.kind === 'Deployment')!.spec.template.spec;
    checkRestricted(pod);
    const c = pod.containers[0];
    const env = Object.fromEntries(c.env.map((e: Obj) => [e.name, e.value]));
    assert.equal(env.API_KEYS_FILE, '/keys/keys.json');
    assert.ok(c.volumeMounts.some((m: Obj) => m.mountPath === '/keys' && m.readOnly === true));
    assert.deepEqual([c.readinessProbe.httpGet.path, c.livenessProbe.httpGet.path], ['/ready', '/health']);
    // The drain (10 s) plus the preStop pause fit in the grace period.
    const pause = Number(c.lifecycle.preStop.exec.command[1]);
    assert.ok(pod.terminationGracePeriodSeconds >= pause + 10 + 5, 'grace covers preStop + drain');
    assert.equal(String(c.resources.limits.memory), '512Mi', "the unit's MemoryMax");
  });

  it('the Redis overlay: patches a Deployment that exists, the password from a Secret, egress to Redis', () => {
    const { objects, patches } = build(REDIS);
    const built = applyPatches(objects, patches);
    checkAll(built);
    const pod = built.find((o) => o.kind === 'Deployment')!.spec.template.spec;
    checkRestricted(pod);
    const env = Object.fromEntries(pod.containers[0].env.map((e: Obj) => [e.name, e.value]));
    assert.match(env.RATE_LIMIT_REDIS_URL, /^redis:\/\//);
    assert.equal(env.RATE_LIMIT_REDIS_PASSWORD_FILE, '/redis/password');
    assert.ok(
      built.some(
        (o) => o.kind === 'NetworkPolicy' && o.spec.egress.some((e: Obj) => e.ports.some((p: Obj) => p.port === 6379)),
      ),
    );
  });

  it('the image runs as a numeric user, as runAsNonRoot needs', () => {
    const dockerfile = readFileSync(join(ROOT, 'deploy', 'Dockerfile'), 'utf8');
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    assert.match(runtime, /^USER 1000:1000$/m);
  });

  it('every kustomization: the base and overlays beside it, none inside another (issue 41)', () => {
    assert.deepEqual(kustomizations(), ['base', 'overlays/redis']);
    for (const dir of kustomizations()) build(join(KUBERNETES, dir));
    const nested = load(join(REDIS, 'kustomization.yaml'))[0];
    assert.ok((nested.resources as string[]).includes('../../base'));
  });

  it('a check that finds faults: a privileged container, a missing volume, a wrong selector', () => {
    const { objects } = build(BASE);
    const d = objects.find((o) => o.kind === 'Deployment')!;
    const c = d.spec.template.spec.containers[0];
    c.securityContext.allowPrivilegeEscalation = true;
    assert.throws(() => checkRestricted(d.spec.template.spec));
    c.securityContext.allowPrivilegeEscalation = false;
    c.volumeMounts.push({ name: 'nope', mountPath: '/x' });
    assert.throws(() => checkAll(objects));
    c.volumeMounts.pop();
    objects.find((o) => o.kind === 'Service')!.spec.selector = { app: 'other' };
    assert.throws(() => checkAll(objects));
  });
});
