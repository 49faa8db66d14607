// The router's terminator messages as the controller reads them: well-formed, within terminatorLimits, or refused
// whole with a reason (logged; the channel stays open). Pure.
import { terminatorLimits } from '../../common/control-channel/hosted-services.ts';

export type TerminatorCreates = { readonly ok: true; readonly terminators: Array<{ serviceId: string; address: string }> } | { readonly ok: false; readonly reason: string };
export type TerminatorRemoves = { readonly ok: true; readonly serviceIds: string[] } | { readonly ok: false; readonly reason: string };

const isId = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length <= terminatorLimits.maxIdLength;

export function readTerminatorCreate(frame: Record<string, unknown>): TerminatorCreates {
  const list = frame.terminators;
  if (!Array.isArray(list)) return { ok: false, reason: 'terminators must be a list' };
  if (list.length > terminatorLimits.maxPerMessage) return { ok: false, reason: `at most ${terminatorLimits.maxPerMessage} terminators per message (got ${list.length})` };
  const terminators: Array<{ serviceId: string; address: string }> = [];
  for (const [index, item] of list.entries()) {
    const value = item as { serviceId?: unknown; address?: unknown } | null;
    if (typeof value !== 'object' || value === null) return { ok: false, reason: `terminators[${index}] must be an object` };
    if (!isId(value.serviceId)) return { ok: false, reason: `terminators[${index}].serviceId must be a service id` };
    if (typeof value.address !== 'string' || value.address === '' || value.address.length > terminatorLimits.maxAddressLength) {
      return { ok: false, reason: `terminators[${index}].address must be a string of 1 to ${terminatorLimits.maxAddressLength} characters` };
    }
    terminators.push({ serviceId: value.serviceId, address: value.address });
  }
  return { ok: true, terminators };
}

export function readTerminatorRemove(frame: Record<string, unknown>): TerminatorRemoves {
  const list = frame.serviceIds;
  if (!Array.isArray(list)) return { ok: false, reason: 'serviceIds must be a list' };
  if (list.length > terminatorLimits.maxPerMessage) return { ok: false, reason: `at most ${terminatorLimits.maxPerMessage} service ids per message (got ${list.length})` };
  if (!list.every(isId)) return { ok: false, reason: 'serviceIds must be service ids' };
  return { ok: true, serviceIds: [...(list as string[])] };
}
