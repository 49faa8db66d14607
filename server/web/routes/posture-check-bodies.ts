// The bodies of /posture-checks create, PUT and PATCH: `typeId` picks the kind (the spec's discriminator), each kind
// with its own fields as the real controller takes them (management.yml postureCheck*Create), checked here before
// anything is written. OS version ranges must parse (os-version-range.ts), MAC addresses must be 12 hex digits
// (any of `:`, `-`, `.` between them), hashes and fingerprints hex.
import type { PostureCheckInput } from '../../edge/posture-check-service.ts';
import { EdgeError } from '../../edge/edge-error.ts';
import { parseVersionRange } from '../../edge/os-version-range.ts';
import { normaliseMac } from '../../edge/device-posture-checks.ts';
import { osTypes, postureCheckTypes, type OsType, type PostureCheck, type PostureCheckType } from '../../model/service-entities.ts';
import { bodyValidator, schemaParts, type BodyValidator } from '../body-schema.ts';

/** Limits on a check's lists (also in docs/api-reference.md). */
export const postureCheckLimits = { listItems: 1000, processes: 100 } as const;

const hex = { type: 'string', pattern: '^[0-9a-fA-F]+$', maxLength: 256 };
const osType = { type: 'string', enum: osTypes };
const path = { type: 'string', minLength: 1, maxLength: 4096 };

const common = {
  typeId: { type: 'string', enum: postureCheckTypes },
  name: { type: 'string', minLength: 1, maxLength: 512 },
  roleAttributes: schemaParts.stringList,
  tags: schemaParts.tags,
};

const kindFields: Record<PostureCheckType, Record<string, unknown>> = {
  MFA: {
    timeoutSeconds: { type: ['integer', 'null'], minimum: -2_147_483_648, maximum: 2_147_483_647 },
    promptOnWake: { type: ['boolean', 'null'] },
    promptOnUnlock: { type: ['boolean', 'null'] },
    ignoreLegacyEndpoints: { type: ['boolean', 'null'] },
  },
  OS: {
    operatingSystems: {
      type: 'array', minItems: 1, maxItems: postureCheckLimits.listItems,
      items: { type: 'object', required: ['type', 'versions'], properties: { type: osType, versions: { type: 'array', maxItems: postureCheckLimits.listItems, items: { type: 'string', minLength: 1, maxLength: 256 } } } },
    },
  },
  MAC: { macAddresses: { type: 'array', minItems: 1, maxItems: postureCheckLimits.listItems, items: { type: 'string', minLength: 1, maxLength: 64 } } },
  DOMAIN: { domains: { type: 'array', minItems: 1, maxItems: postureCheckLimits.listItems, items: { type: 'string', minLength: 1, maxLength: 512 } } },
  PROCESS: {
    process: {
      type: 'object', required: ['osType', 'path'],
      properties: { osType, path, hashes: { type: ['array', 'null'], maxItems: postureCheckLimits.listItems, items: hex }, signerFingerprint: { ...hex, type: ['string', 'null'] } },
    },
  },
  PROCESS_MULTI: {
    semantic: { type: 'string', enum: ['AllOf', 'AnyOf'] },
    processes: {
      type: 'array', minItems: 1, maxItems: postureCheckLimits.processes,
      items: {
        type: 'object', required: ['osType', 'path'],
        properties: { osType, path, hashes: { type: ['array', 'null'], maxItems: postureCheckLimits.listItems, items: hex }, signerFingerprints: { type: ['array', 'null'], maxItems: postureCheckLimits.listItems, items: hex } },
      },
    },
  },
};

const kindRequired: Record<PostureCheckType, string[]> = {
  MFA: [], OS: ['operatingSystems'], MAC: ['macAddresses'], DOMAIN: ['domains'], PROCESS: ['process'], PROCESS_MULTI: ['semantic', 'processes'],
};

type Body = Record<string, unknown> & { typeId: PostureCheckType };

const typeOnly = bodyValidator<{ typeId: PostureCheckType }>({ type: 'object', required: ['typeId'], properties: { typeId: common.typeId } });
const validators = (partial: boolean) =>
  Object.fromEntries(
    postureCheckTypes.map((type) => [
      type,
      bodyValidator<Body>({ type: 'object', required: partial ? ['typeId'] : ['typeId', 'name', ...kindRequired[type]], properties: { ...common, ...kindFields[type] } }),
    ]),
  ) as Record<PostureCheckType, BodyValidator<Body>>;
const full = validators(false);
const partial = validators(true);

/** The check a create or PUT body describes; PATCH (`current` given) keeps what the body leaves out. */
export function postureCheckInput(raw: unknown, current?: PostureCheck, options: { patch?: boolean } = {}): PostureCheckInput {
  const { typeId } = typeOnly(raw);
  if (current && current.typeId !== typeId) throw EdgeError.validation('typeId', `a posture check's type cannot change (it is ${current.typeId})`, typeId);
  const body = (options.patch ? partial : full)[typeId](raw);
  const from = options.patch ? current : undefined;
  const pick = <T>(key: string, fallback: T): T => (body[key] === undefined ? ((from as unknown as Record<string, T> | undefined)?.[key] ?? fallback) : ((body[key] ?? fallback) as T));
  const input: PostureCheckInput = {
    typeId,
    name: pick('name', ''),
    roleAttributes: [...pick<string[]>('roleAttributes', [])],
    tags: pick('tags', {}),
    timeoutSeconds: typeId === 'MFA' ? pick('timeoutSeconds', -1) : -1,
    promptOnWake: typeId === 'MFA' ? pick('promptOnWake', false) : false,
    promptOnUnlock: typeId === 'MFA' ? pick('promptOnUnlock', false) : false,
    ignoreLegacyEndpoints: typeId === 'MFA' ? pick('ignoreLegacyEndpoints', false) : false,
  };
  switch (typeId) {
    case 'OS': {
      const operatingSystems = pick<PostureCheck['operatingSystems']>('operatingSystems', []) ?? [];
      operatingSystems.forEach((os, i) => os.versions.forEach((version, j) => {
        const range = parseVersionRange(version);
        if (typeof range !== 'function') throw EdgeError.validation(`operatingSystems[${i}].versions[${j}]`, range.error, version);
      }));
      return { ...input, operatingSystems: operatingSystems.map((os) => ({ type: os.type, versions: [...os.versions] })) };
    }
    case 'MAC': {
      const macAddresses = pick<string[]>('macAddresses', []);
      macAddresses.forEach((address, i) => {
        if (!/^[0-9a-f]{12}$/.test(normaliseMac(address))) throw EdgeError.validation(`macAddresses[${i}]`, 'a MAC address is 12 hex digits, optionally separated by : - or .', address);
      });
      return { ...input, macAddresses: [...macAddresses] };
    }
    case 'DOMAIN':
      return { ...input, domains: [...pick<string[]>('domains', [])] };
    case 'PROCESS': {
      const process = pick<{ osType: OsType; path: string; hashes?: string[] | null; signerFingerprint?: string | null }>('process', undefined as never);
      return { ...input, process: { osType: process.osType, path: process.path, hashes: [...(process.hashes ?? [])], ...(process.signerFingerprint ? { signerFingerprint: process.signerFingerprint } : {}) } };
    }
    case 'PROCESS_MULTI': {
      const processes = pick<Array<{ osType: string; path: string; hashes?: string[] | null; signerFingerprints?: string[] | null }>>('processes', []);
      return {
        ...input,
        semantic: pick('semantic', 'AllOf'),
        processes: processes.map((p) => ({ osType: p.osType as OsType, path: p.path, hashes: [...(p.hashes ?? [])], signerFingerprints: [...(p.signerFingerprints ?? [])] })),
      };
    }
    default:
      return input;
  }
}
