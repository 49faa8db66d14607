// The Edge API envelopes: detail, list, create, empty and error, exactly as the real controller shapes them.
import type { EdgeError } from '../edge/edge-error.ts';
import { clientMessageOf } from './api-error.ts';
import { clientSafeCause } from './secret-fields.ts';

export const apiMeta = { apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' } as const;

export const detailEnvelope = (data: unknown) => ({ data, meta: {} });

export const listEnvelope = (data: readonly unknown[], meta: { pagination: { limit: number; offset: number; totalCount: number }; filterableFields: readonly string[] }) => ({
  data,
  meta,
});

export const createdEnvelope = (id: string, href: string) => ({ data: { id, _links: { self: { href } } }, meta: {} });

export const emptyEnvelope = () => ({ data: {}, meta: {} });

export function errorEnvelope(error: EdgeError, requestId: string) {
  return {
    error: {
      code: error.code,
      message: clientMessageOf(error),
      requestId,
      ...(error.cause === undefined ? {} : { cause: clientSafeCause(error.cause) }),
    },
    meta: apiMeta,
  };
}
