import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/**
 * The real directory of an installed package: what a sandbox process may read. Real paths,
 * because the permission model checks the path a file is opened by, and node_modules may be a
 * symlink (a shared checkout, a workspace).
 */
export function packageDir(name: string): string {
  let dir = dirname(realpathSync(require.resolve(name)));
  while (!isPackageRoot(dir, name)) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`Cannot find the package directory of ${name}`);
    dir = parent;
  }
  return dir;
}

function isPackageRoot(dir: string, name: string): boolean {
  const file = join(dir, 'package.json');
  return existsSync(file) && (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === name;
}
