/**
 * The Kubernetes manifests (deploy/kubernetes, issue 32), checked offline: every file parses,
 * each object has the fields its kind requires (a hand-written subset; the full Kubernetes
 * schemas are checked in kubernetes-schemas.integration.ts), the Pod Security Standard
 * "restricted" fields are set on the pod and every container, and every reference resolves
 * (kustomization resources and patches, selectors to pod labels, Service and NetworkPolicy
 * ports to named container ports, volume mounts to volumes, probes to ports).
 *
 * The YAML parser is js-yaml 4, a devDependency (test-only; no types of its own, so it
 * is loaded through createRequire). YAML 1.1/1.2 differences (0440 octal or decimal) are
 * avoided in the manifests: modes are written in decimal.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../helpers/server.ts';

const yaml = createRequire(import.meta.url)('js-yaml') as { loadAll(text: string): unknown[] };
type Obj = Record<string, any>;

const BASE = join(ROOT, 'deploy', 'kubernetes');
const REDIS = join(BASE, 'overlays', 'redis');

function load(file: string): Obj[] {
  return yaml.loadAll(readFileSync(file, 'utf8')).filter((d) => d !== null) as Obj[];
}

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

const REQUIRED: Record<string, string[][]> = {
  Deployment: [
    ['spec', 'selector', 'matchLabels'],
    ['spec', 'template', 'metadata', 'labels'],
    ['spec', 'template', 'spec', 'containers'],
  ],
  Service: [
    ['spec', 'selector'],
    ['spec', 'ports'],
  ],
  PodDisruptionBudget: [['spec', 'selector', 'matchLabels']],
  NetworkPolicy: [
    ['spec', 'podSelector'],
    ['spec', 'policyTypes'],
  ],
};
const API: Record<string, string> = {
  Deployment: 'apps/v1',
  Service: 'v1',
  PodDisruptionBudget: 'policy/v1',
  NetworkPolicy: 'networking.k8s.io/v1',
};

const at = (o: Obj, path: string[]): unknown => path.reduce<any>((v, k) => (v === undefined ? v : v[k]), o);
const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);

function checkAll(objects: Obj[]): void {
  const names = new Set<string>();
  for (const o of objects) {
    assert.equal(o.apiVersion, API[o.kind], `${o.kind}: apiVersion`);
    assert.match(o.metadata?.name ?? '', /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, `${o.kind}: a DNS-1123 name`);
    assert.ok(!names.has(`${o.kind}/${o.metadata.name}`), `${o.kind}/${o.metadata.name} unique`);
    names.add(`${o.kind}/${o.metadata.name}`);
    for (const path of REQUIRED[o.kind]) assert.notEqual(at(o, path), undefined, `${o.kind}: ${path.join('.')}`);
  }
  const deployments = objects.filter((o) => o.kind === 'Deployment');
  assert.equal(deployments.length, 1);
  const d = deployments[0];
  const pod = d.spec.template.spec;
  const labels = d.spec.template.metadata.labels as Record<string, string>;
  assert.ok(matches(d.spec.selector.matchLabels, labels), 'the Deployment selects its pods');
  const ports = new Map<string, number>();
  for (const c of pod.containers) for (const p of c.ports ?? []) ports.set(p.name, p.containerPort);
  const volumes = new Set((pod.volumes ?? []).map((v: Obj) => v.name));
  for (const c of pod.containers) {
    for (const m of c.volumeMounts ?? []) assert.ok(volumes.has(m.name), `mount ${m.name} has a volume`);
    for (const probe of [c.readinessProbe, c.livenessProbe]) assert.ok(ports.has(probe.httpGet.port), 'probe port');
    assert.match(c.image, /^[^:]+:[\w.-]+$/, 'an image with a tag');
  }
  for (const s of objects.filter((o) => o.kind === 'Service')) {
    assert.ok(matches(s.spec.selector, labels), `${s.metadata.name} selects the pods`);
    for (const p of s.spec.ports) assert.ok(ports.has(p.targetPort), `${s.metadata.name}: targetPort ${p.targetPort}`);
  }
  for (const p of objects.filter((o) => o.kind === 'PodDisruptionBudget'))
    assert.ok(matches(p.spec.selector.matchLabels, labels), 'the PDB covers the pods');
  for (const n of objects.filter((o) => o.kind === 'NetworkPolicy')) {
    assert.ok(matches(n.spec.podSelector.matchLabels, labels), `${n.metadata.name} applies to the pods`);
    for (const rule of n.spec.ingress ?? [])
      for (const p of rule.ports ?? []) assert.ok(ports.has(p.port), `${n.metadata.name}: port ${p.port}`);
  }
}

/** The "restricted" Pod Security Standard, field by field (kubernetes.io/docs/concepts/security/pod-security-standards). */
function checkRestricted(pod: Obj): void {
  assert.equal(pod.securityContext.runAsNonRoot, true);
  assert.equal(typeof pod.securityContext.runAsUser, 'number', 'a numeric user');
  assert.ok(pod.securityContext.runAsUser > 0);
  assert.equal(pod.securityContext.seccompProfile.type, 'RuntimeDefault');
  assert.equal(pod.hostNetwork ?? false, false);
  assert.equal(pod.hostPID ?? false, false);
  assert.equal(pod.hostIPC ?? false, false);
  const allowedVolumes = [
    'configMap',
    'csi',
    'downwardAPI',
    'emptyDir',
    'ephemeral',
    'persistentVolumeClaim',
    'projected',
    'secret',
  ];
  for (const v of pod.volumes ?? []) {
    const types = Object.keys(v).filter((k) => k !== 'name');
    assert.ok(
      types.every((t) => allowedVolumes.includes(t)),
      `volume ${v.name}: ${types.join()}`,
    );
    if (v.secret !== undefined) {
      assert.equal(v.secret.defaultMode, 0o440, `${v.name}: 0440, readable by fsGroup only`);
    }
  }
  for (const c of [...pod.containers, ...(pod.initContainers ?? [])]) {
    const sc = c.securityContext;
    assert.equal(sc.allowPrivilegeEscalation, false, c.name);
    assert.deepEqual(sc.capabilities.drop, ['ALL'], c.name);
    assert.equal(sc.capabilities.add, undefined, c.name);
    assert.equal(sc.privileged ?? false, false, c.name);
    assert.equal(sc.readOnlyRootFilesystem, true, c.name);
    assert.notEqual(sc.runAsNonRoot, false, c.name);
    assert.equal(sc.seccompProfile?.type ?? 'RuntimeDefault', 'RuntimeDefault', c.name);
    assert.match(String(c.resources.limits.memory), /^\d+(Mi|Gi)$/, `${c.name}: a memory limit`);
    for (const p of c.ports ?? []) assert.equal(p.hostPort, undefined, 'no host port');
  }
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
    assert.ok(existsSync(join(dirname(BASE), 'kubernetes', 'kustomization.yaml')));
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
