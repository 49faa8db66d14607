// Least privilege for keys an earlier release's guide installed group-readable by `edgeward` (every service): an
// install on the host hands each `*.key.pem` in /etc/edgeward/pki that still has group edgeward to group
// edgeward-controller (0640), which only the controllers' unit has. Keys with another group are the operator's choice
// and are left alone.
import { chmodSync, chownSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const pkiDir = '/etc/edgeward/pki';

/** Regroups the keys under `root`+pkiDir that have group `sharedGid`; returns the host paths changed. */
export function restrictControllerKeys(root: string, sharedGid: number, controllerGid: number): string[] {
  let names: string[];
  try {
    names = readdirSync(join(root, pkiDir));
  } catch {
    return [];
  }
  const changed: string[] = [];
  for (const name of names.filter((entry) => entry.endsWith('.key.pem')).sort()) {
    const path = join(root, pkiDir, name);
    const stat = statSync(path);
    if (!stat.isFile() || stat.gid !== sharedGid) continue;
    chownSync(path, stat.uid, controllerGid);
    chmodSync(path, stat.mode & 0o740);
    changed.push(join(pkiDir, name));
  }
  return changed;
}
