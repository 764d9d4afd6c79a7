/**
 * Where a test finds an outside program: the path in its environment variable, else the first
 * on PATH, else Debian's /usr/bin (where `.ci/run` installs it).
 */
import { existsSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

export function onPath(name: string, variable: string): string {
  return (
    process.env[variable] ??
    (process.env.PATH ?? '')
      .split(delimiter)
      .map((dir) => join(dir, name))
      .find((path) => isAbsolute(path) && existsSync(path)) ??
    `/usr/bin/${name}`
  );
}
