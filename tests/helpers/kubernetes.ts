/**
 * The Kubernetes manifests' checks, shared by the offline test (tests/deploy/kubernetes.test.ts,
 * which follows the kustomizations by hand) and the integration test that renders every
 * kustomization with a real `kubectl kustomize` (tests/deploy/kubernetes-schemas.integration.ts):
 * each object has the fields its kind requires, every reference resolves (selectors to the pod
 * labels, Service and NetworkPolicy ports to named container ports, mounts to volumes, probes to
 * ports), and the Pod Security Standard "restricted" fields are set.
 *
 * The YAML parser is js-yaml 4, a devDependency (test-only; no types of its own, so it is
 * loaded through createRequire).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { onPath } from './on-path.ts';
import { ROOT } from './server.ts';

const yaml = createRequire(import.meta.url)('js-yaml') as { loadAll(text: string): unknown[] };
export type Obj = Record<string, any>;

/** deploy/kubernetes: the base and its overlays, side by side. */
export const KUBERNETES = join(ROOT, 'deploy', 'kubernetes');

/** The YAML documents of a text, empty ones left out. */
export function parseAll(text: string): Obj[] {
  return yaml.loadAll(text).filter((d): d is Obj => d !== null && typeof d === 'object');
}

export function load(file: string): Obj[] {
  return parseAll(readFileSync(file, 'utf8'));
}

/** Every directory under deploy/kubernetes that holds a kustomization.yaml, relative to it. */
export function kustomizations(dir: string = KUBERNETES): string[] {
  const found: string[] = [];
  const walk = (at: string): void => {
    if (existsSync(join(at, 'kustomization.yaml'))) found.push(relative(dir, at) || '.');
    for (const entry of readdirSync(at, { withFileTypes: true })) if (entry.isDirectory()) walk(join(at, entry.name));
  };
  walk(dir);
  return found.sort();
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

export function checkAll(objects: Obj[]): void {
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
export function checkRestricted(pod: Obj): void {
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

/** kubectl: $KUBECTL, else the first on PATH, else /usr/bin/kubectl. */
export const KUBECTL = onPath('kubectl', 'KUBECTL');

/**
 * Why the kustomize tests cannot run here, or null. They need kubectl with kustomize 5 (the
 * manifests use `labels` and `patches`, which the kustomize v2 of older kubectl builds, such as
 * Debian 12's kubernetes-client 1.20, refuses); .ci/run provides one where the machine has none.
 */
export function kustomizeMissing(): string | null {
  const r = spawnSync(KUBECTL, ['version', '--client'], { encoding: 'utf8' });
  const version = /^Kustomize Version: v(\d+)/m.exec(`${r.stdout ?? ''}`)?.[1];
  if (version !== undefined && Number(version) >= 5) return null;
  const why =
    version === undefined
      ? `kubectl not found or not working (${KUBECTL}; KUBECTL, PATH)`
      : `${KUBECTL} has kustomize v${version}, and these manifests need v5 (KUBECTL names another)`;
  if (process.env.CI === 'true') throw new Error(`${why}. In CI the kustomize tests must run, not skip.`);
  return why;
}

/** What `kubectl kustomize <dir>` renders, or its error. */
export function render(dir: string): { ok: true; objects: Obj[] } | { ok: false; error: string } {
  const r = spawnSync(KUBECTL, ['kustomize', dir], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (r.status !== 0) return { ok: false, error: `${r.stderr ?? ''}${r.error?.message ?? ''}`.trim() };
  return { ok: true, objects: parseAll(r.stdout) };
}
