// The fixed catalogues both Edge APIs list: identity types, posture check types and the capabilities a controller
// can have. They are what this release knows, not model state: built in, created at the epoch, never changed.
const epoch = new Date(0).toISOString();

export interface CatalogueEntry {
  readonly id: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** `Default` is every identity an admin makes (the legacy User, Device and Service are stored as it); `Router` is a
 * router's own identity (an edgeward router is its own identity: its edge router row). */
export const identityTypes: readonly (CatalogueEntry & { readonly name: string })[] = ['Default', 'Router'].map((name) => ({ id: name, name, createdAt: epoch, updatedAt: epoch }));

const allOperatingSystems = ['Windows', 'WindowsServer', 'Android', 'iOS', 'Linux', 'macOS'] as const;
const desktops = ['Windows', 'WindowsServer', 'Linux', 'macOS'] as const;

export interface PostureCheckType extends CatalogueEntry {
  readonly name: string;
  readonly version: string;
  /** Where an endpoint can answer the check; `versions` empty: any version. */
  readonly operatingSystems: readonly { readonly type: string; readonly versions: readonly string[] }[];
}

const postureType = (id: string, systems: readonly string[]): PostureCheckType => ({
  id,
  name: id,
  version: '1',
  createdAt: epoch,
  updatedAt: epoch,
  operatingSystems: systems.map((type) => ({ type, versions: [] })),
});

/** Every posture check type of OpenZiti, with the systems whose endpoints can report the data each checks. */
export const postureCheckTypes: readonly PostureCheckType[] = [
  postureType('DOMAIN', ['Windows', 'WindowsServer']),
  postureType('MAC', desktops),
  postureType('MFA', allOperatingSystems),
  postureType('OS', allOperatingSystems),
  postureType('PROCESS', desktops),
  postureType('PROCESS_MULTI', desktops),
];

/** Every capability the Edge APIs define (`/version` lists the ones this controller has: HA_CONTROLLER). */
export const enumeratedCapabilities: readonly string[] = ['OIDC_AUTH', 'HA_CONTROLLER'];
