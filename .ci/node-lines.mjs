// The Node.js releases CI tests on, one line each: `<major> <version> <package> <integrity>`.
// For every line `engines.node` in package.json claims (each `||` alternative names one), the
// newest release of that line the npm registry's node-<platform>-<arch> package carries that
// still satisfies the alternative. A line with no such release fails the run: a claim nothing
// can test is not made.
//
//   node .ci/node-lines.mjs           the lines
//   node .ci/node-lines.mjs --docker  the major the Docker image ships (deploy/Dockerfile)
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';

const root = new URL('..', import.meta.url);

if (process.argv.includes('--docker')) {
  const dockerfile = readFileSync(new URL('deploy/Dockerfile', root), 'utf8');
  const from = /^FROM node:(\d+)[-.\s]/m.exec(dockerfile);
  if (from === null) throw new Error('deploy/Dockerfile: no FROM node:<major> line');
  process.stdout.write(`${from[1]}\n`);
  process.exit(0);
}

const pkg = `node-${process.platform}-${process.arch}`;
const engines = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')).engines.node;

/** `^20.20.2` or `>=26.3.1`: the major and a range that keeps to that line. */
function lineOf(alternative) {
  const m = /^(\^|>=)(\d+)\.(\d+)\.(\d+)$/.exec(alternative.trim());
  if (m === null) throw new Error(`engines.node: cannot read "${alternative}" (expected ^X.Y.Z or >=X.Y.Z)`);
  const major = Number(m[2]);
  return { major, range: `>=${m[2]}.${m[3]}.${m[4]} <${major + 1}.0.0` };
}

const newer = (a, b) => {
  const [x, y] = [a, b].map((v) => v.split('.').map(Number));
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] > y[i];
  return false;
};

/** `npm view <spec> <field>`: waits on the registry, so every line's look-ups run at once. */
async function npmView(spec, field) {
  const r = await promisify(execFile)('npm', ['view', spec, field, '--json'], { encoding: 'utf8' }).catch((error) => {
    throw new Error(`npm view ${spec} ${field} failed:\n${error.stderr}`);
  });
  return r.stdout.trim() === '' ? null : JSON.parse(r.stdout);
}

async function line(alternative) {
  const { major, range } = lineOf(alternative);
  const found = await npmView(`${pkg}@${range}`, 'version');
  const versions = found === null ? [] : [found].flat();
  if (versions.length === 0)
    throw new Error(`${pkg}: no release satisfies ${range} (engines claims ${alternative.trim()})`);
  const version = versions.reduce((best, v) => (newer(v, best) ? v : best));
  const integrity = await npmView(`${pkg}@${version}`, 'dist.integrity');
  return `${major} ${version} ${pkg} ${integrity}\n`;
}

process.stdout.write((await Promise.all(engines.split('||').map(line))).join(''));
