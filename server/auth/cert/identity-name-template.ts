// OpenZiti's `identityNameFormat`: how a CA names the identities it auto-enrols.

export const DEFAULT_IDENTITY_NAME_FORMAT = '[caName]-[commonName]';
export const MAX_IDENTITY_NAME_FORMAT_LENGTH = 512;

export interface IdentityNameValues {
  caName: string;
  caId: string;
  commonName: string;
  requestedName?: string;
  identityId: string;
}

const PLACEHOLDER = /\[(caName|caId|commonName|requestedName|identityId)\]/g;

/**
 * Replaces `[caName]`, `[caId]`, `[commonName]`, `[requestedName]` and `[identityId]`; other bracketed text stays
 * as written. A missing or empty template means the default; a missing requested name means the identity id,
 * as OpenZiti does. One pass, so a value that contains a placeholder (a CN of "[caId]") is not expanded again.
 */
export function formatIdentityName(template: string | null | undefined, values: IdentityNameValues): string {
  const format = template ? template : DEFAULT_IDENTITY_NAME_FORMAT;
  const replacements: Record<string, string> = {
    caName: values.caName,
    caId: values.caId,
    commonName: values.commonName,
    requestedName: values.requestedName ? values.requestedName : values.identityId,
    identityId: values.identityId,
  };
  return format.replace(PLACEHOLDER, (_placeholder, name: string) => replacements[name]!);
}

/** A problem with a CA's identityNameFormat, or undefined when it is usable. */
export function validateIdentityNameFormat(template: string): string | undefined {
  if (template.trim() === '') return 'identityNameFormat must not be empty';
  if (template.length > MAX_IDENTITY_NAME_FORMAT_LENGTH) {
    return `identityNameFormat must be at most ${MAX_IDENTITY_NAME_FORMAT_LENGTH} characters (got ${template.length})`;
  }
  return undefined;
}
