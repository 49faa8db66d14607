// Whether a client's reported device data (posture-data.ts) passes an OS, MAC, PROCESS, PROCESS_MULTI or DOMAIN
// posture check, compared as the real controller compares them: OS types and domains without regard to case, OS
// versions as semantic-version ranges, MAC addresses without separators or case, hashes and signer fingerprints
// without case. No data of the kind a check needs fails it. Pure.
import type { PostureData, PostureProcess } from '../model/posture-data.ts';
import type { CheckedProcessOfMany, PostureCheck } from '../model/service-entities.ts';
import { parseVersion, parseVersionRange } from './os-version-range.ts';

export function passesDeviceCheck(check: PostureCheck, data: PostureData | undefined): boolean {
  if (!data) return false;
  switch (check.typeId) {
    case 'OS': return passesOs(check, data);
    case 'MAC': return passesMac(check, data);
    case 'DOMAIN': return passesDomain(check, data);
    case 'PROCESS': return passesProcess(check, data);
    case 'PROCESS_MULTI': return passesProcesses(check, data);
    default: return false;
  }
}

function passesOs(check: PostureCheck, data: PostureData): boolean {
  if (!data.os) return false;
  // The last entry for an OS type wins when a check names it twice, as in the real controller.
  const allowed = new Map<string, readonly string[]>();
  for (const os of check.operatingSystems ?? []) allowed.set(os.type.toLowerCase(), os.versions);
  const ranges = allowed.get(data.os.type.toLowerCase());
  if (ranges === undefined) return false;
  if (ranges.length === 0) return true;
  const version = parseVersion(data.os.version);
  if (!version) return false;
  return ranges.some((text) => {
    const range = parseVersionRange(text);
    return typeof range === 'function' && range(version);
  });
}

/** `AA:BB-cc.dd...` and `aabbccdd...` name the same address. */
export const normaliseMac = (address: string): string => address.replace(/[:.\-\s]/g, '').toLowerCase();

function passesMac(check: PostureCheck, data: PostureData): boolean {
  if (!data.mac) return false;
  const allowed = new Set((check.macAddresses ?? []).map(normaliseMac));
  return data.mac.addresses.some((address) => allowed.has(normaliseMac(address)));
}

function passesDomain(check: PostureCheck, data: PostureData): boolean {
  if (!data.domain) return false;
  const reported = data.domain.domain.toLowerCase();
  return (check.domains ?? []).some((domain) => domain.toLowerCase() === reported);
}

const sameText = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

function passesProcess(check: PostureCheck, data: PostureData): boolean {
  const wanted = check.process;
  if (!wanted) return false;
  const reported = (data.processes ?? []).find((process) => process.postureCheckId === check.id);
  if (!reported || !reported.isRunning) return false;
  if (wanted.signerFingerprint && !reported.signerFingerprints.some((fingerprint) => sameText(fingerprint, wanted.signerFingerprint!))) return false;
  return wanted.hashes.length === 0 || wanted.hashes.some((hash) => sameText(hash, reported.binaryHash));
}

function passesProcesses(check: PostureCheck, data: PostureData): boolean {
  const wanted = check.processes ?? [];
  if (wanted.length === 0) return false;
  const passes = (process: CheckedProcessOfMany) => {
    const reported = reportFor(data, check.id, process.path);
    return reported !== undefined && processMeets(reported, process);
  };
  return check.semantic === 'AnyOf' ? wanted.some(passes) : wanted.every(passes);
}

/** The response for this path: the one answering this check when there is one, else any (the real controller keys them by path). */
function reportFor(data: PostureData, checkId: string, path: string): PostureProcess | undefined {
  const forPath = (data.processes ?? []).filter((process) => process.path === path);
  return forPath.find((process) => process.postureCheckId === checkId) ?? forPath[forPath.length - 1];
}

function processMeets(reported: PostureProcess, wanted: CheckedProcessOfMany): boolean {
  if (!reported.isRunning) return false;
  if (wanted.hashes.length > 0 && !wanted.hashes.some((hash) => sameText(hash, reported.binaryHash))) return false;
  if (wanted.signerFingerprints.length > 0 && !reported.signerFingerprints.some((fingerprint) => wanted.signerFingerprints.some((allowed) => sameText(allowed, fingerprint)))) return false;
  return true;
}
