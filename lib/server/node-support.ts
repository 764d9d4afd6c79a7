/**
 * The Node.js builds this server runs on: none that lacks a known fix its edge needs
 * (docs/security.md, Connections and memory). One table: the `engines` field of package.json
 * is derived from it (tests/server/node-support.test.ts checks the two agree) and server.ts
 * refuses to start on anything else.
 *
 * A line's minimum is its first release with every known HTTP/1 parser, TLS and
 * request-reachable V8 fix this server needs; the reasons, CVE by CVE, are in
 * docs/security-review-http.md. Lines not listed below the newest one (odd "Current" lines, 18
 * and older) get no minimum: none of their releases carries those fixes. `engines` ends at the
 * newest line listed, the newest CI tests, so every line it admits has had the edge's uses of
 * Node internals proved by CI. A newer major still starts, as no fix of today can be missing
 * from it, with a warning that it is untested; what the edge relies on in it is proved at start
 * by lib/http/node-internals.ts.
 * @module
 */

export interface NodeLine {
  readonly major: number;
  /** The first acceptable release of the line. */
  readonly minimum: string;
  /** End of security support (YYYY-MM-DD); after it the server starts with a warning. */
  readonly endOfLife: string;
}

export const NODE_LINES: readonly NodeLine[] = [
  // CVE-2024-22019 (20.11.1), CVE-2024-27982 (20.12.1), CVE-2025-23167 (20.19.2), and the
  // array-index HashDoS reachable through JSON.parse, CVE-2026-21717 (20.20.2). The last 20.x.
  { major: 20, minimum: '20.20.2', endOfLife: '2026-04-30' },
  // CVE-2026-21717.
  { major: 22, minimum: '22.22.2', endOfLife: '2027-04-30' },
  // CVE-2025-27209 (rapidhash HashDoS, 24.4.1) and CVE-2026-21717.
  { major: 24, minimum: '24.14.1', endOfLife: '2028-04-30' },
  // Its first security release; earlier 26.x builds could not be confirmed to carry the fix
  // for CVE-2026-21717, so the minimum errs late.
  { major: 26, minimum: '26.3.1', endOfLife: '2029-04-30' },
];

/** The `engines.node` range of package.json, derived from NODE_LINES: each line from its
 * minimum, and nothing past the newest line. */
export function enginesRange(lines: readonly NodeLine[] = NODE_LINES): string {
  return lines.map((line) => `^${line.minimum}`).join(' || ');
}

export type NodeSupport =
  { readonly ok: true; readonly warning: string | null } | { readonly ok: false; readonly message: string };

const parse = (version: string): [number, number, number] | null => {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:[-+].*)?$/.exec(version);
  return m === null ? null : [Number(m[1]), Number(m[2]), Number(m[3])];
};

/** a < b for [major, minor, patch]. */
function before(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] < b[i];
  return false;
}

/**
 * Whether `version` (`process.version`, e.g. `v20.20.2`) may run this server on `today`: a
 * refusal with the one line to print, or an acceptance with a warning when its line is past
 * its end of life.
 */
export function nodeSupport(version: string, today: Date, lines: readonly NodeLine[] = NODE_LINES): NodeSupport {
  const supported = enginesRange(lines);
  const v = parse(version);
  if (v === null)
    return {
      ok: false,
      message: `unsupported Node.js ${version}: cannot read the version; this server needs ${supported}`,
    };
  const newest = lines[lines.length - 1];
  const line = lines.find((l) => l.major === v[0]);
  if (line === undefined && v[0] > newest.major)
    return {
      ok: true,
      warning: `Node.js ${v[0]}.x is newer than the newest line this server is tested on (${newest.major}.x, package.json engines ${supported})`,
    };
  if (line === undefined) {
    return {
      ok: false,
      message: `unsupported Node.js ${version}: the ${v[0]}.x line has no release with the HTTP parser and TLS fixes this server needs; use ${supported}`,
    };
  }
  const minimum = parse(line.minimum);
  if (minimum === null || before(v, minimum)) {
    return {
      ok: false,
      message: `unsupported Node.js ${version}: use ${line.minimum} or later on the ${line.major}.x line (older builds have known HTTP parser or TLS vulnerabilities), or another line of ${supported}`,
    };
  }
  const day = today.toISOString().slice(0, 10);
  if (day <= line.endOfLife) return { ok: true, warning: null };
  const next = lines.filter((l) => l.endOfLife >= day).map((l) => l.major);
  return {
    ok: true,
    warning: `Node.js ${line.major}.x reached its end of life on ${line.endOfLife} and gets no more security fixes; move to ${next.length === 0 ? 'a newer line' : next.join(' or ')}`,
  };
}
