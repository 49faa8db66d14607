// Controller settings (`/controller-settings`): the `global` row and each controller's overrides, validated here and
// replicated as whole rows. `effective(controllerId)` is what a controller runs with: each setting from the
// controller's own row where set there, else from the global row, else empty. Issue 40's OIDC endpoints read their
// redirect and post-logout URIs from it.
import type { Clock } from '../../common/time/clock.ts';
import { isoTime } from '../../common/time/iso-time.ts';
import {
  controllerSettingTables,
  globalSettingsId,
  type ControllerSetting,
  type ControllerSettingValues,
  type OidcSettings,
} from '../model/controller-setting-entities.ts';
import type { ModelStore } from '../store/model-store.ts';
import { EdgeError } from './edge-error.ts';
import type { ModelWriter } from './model-writer.ts';

/** Settings with nothing left to inherit. */
export interface EffectiveControllerSettings {
  readonly oidc: { readonly redirectUris: readonly string[]; readonly postLogoutUris: readonly string[] };
}

export interface ControllerSettingInput extends ControllerSettingValues {
  readonly tags?: Readonly<Record<string, unknown>>;
}

/** Before the global row is first written it reads as empty, stamped with the epoch. */
const neverWritten = new Date(0).toISOString();

export const maxSettingUris = 100;
export const maxSettingUriLength = 2048;

export class ControllerSettingsService {
  constructor(
    private readonly store: ModelStore,
    private readonly writer: ModelWriter,
    private readonly clock: Clock,
  ) {}

  /** The global row first, then each controller's in id order. */
  list(): ControllerSetting[] {
    const rows = this.store.table<ControllerSetting>(controllerSettingTables.controllerSettings).all();
    return [this.global(), ...rows.filter((row) => row.id !== globalSettingsId)];
  }

  find(id: string): ControllerSetting | undefined {
    const row = this.store.table<ControllerSetting>(controllerSettingTables.controllerSettings).get(id);
    return row ?? (id === globalSettingsId ? this.global() : undefined);
  }

  get(id: string): ControllerSetting {
    const row = this.find(id);
    if (!row) throw EdgeError.notFound('controller setting', id);
    return row;
  }

  /** A controller's settings merged over the global ones; a controller with no row of its own has the global ones. */
  effective(controllerId: string): EffectiveControllerSettings {
    const global = this.global().oidc;
    const own = controllerId === globalSettingsId ? undefined : this.find(controllerId)?.oidc;
    const pick = (key: keyof OidcSettings) => [...(own?.[key] ?? global?.[key] ?? [])];
    return { oidc: { redirectUris: pick('redirectUris'), postLogoutUris: pick('postLogoutUris') } };
  }

  /** A row for a controller of the cluster (`members`: their ids), which must not have one yet. */
  async create(controllerId: string, input: ControllerSettingInput, members: readonly string[]): Promise<{ id: string }> {
    if (controllerId !== globalSettingsId && !members.includes(controllerId)) {
      throw EdgeError.validation('controllerId', `no controller of the cluster has id ${controllerId}`, controllerId);
    }
    if (this.find(controllerId) && (controllerId !== globalSettingsId || this.stored(globalSettingsId))) {
      throw EdgeError.validation('controllerId', `controller ${controllerId} already has settings: change them with PUT or PATCH`, controllerId);
    }
    const at = isoTime(this.clock.now());
    const setting: ControllerSetting = { id: controllerId, ...checked(input), tags: input.tags ?? {}, createdAt: at, updatedAt: at };
    await this.writer.write({ type: controllerId === globalSettingsId ? 'controllerSetting.put' : 'controllerSetting.create', setting });
    return { id: controllerId };
  }

  /** PUT replaces every setting (one left out is unset, so inherited); PATCH changes those it names. */
  async update(id: string, input: ControllerSettingInput, mode: 'put' | 'patch'): Promise<void> {
    const current = this.get(id);
    const values = checked(input);
    const oidc = mode === 'put' ? values.oidc : values.oidc === undefined ? current.oidc : values.oidc === null ? null : { ...(current.oidc ?? {}), ...values.oidc };
    const setting: ControllerSetting = {
      id,
      ...(oidc !== undefined ? { oidc } : {}),
      tags: input.tags ?? (mode === 'put' ? {} : current.tags),
      createdAt: current.createdAt === neverWritten ? isoTime(this.clock.now()) : current.createdAt,
      updatedAt: isoTime(this.clock.now()),
    };
    await this.writer.write({ type: 'controllerSetting.put', setting });
  }

  async delete(id: string): Promise<void> {
    if (id !== globalSettingsId) this.get(id);
    await this.writer.write({ type: 'controllerSetting.delete', id });
  }

  private stored(id: string): ControllerSetting | undefined {
    return this.store.table<ControllerSetting>(controllerSettingTables.controllerSettings).get(id);
  }

  private global(): ControllerSetting {
    return this.stored(globalSettingsId) ?? { id: globalSettingsId, tags: {}, createdAt: neverWritten, updatedAt: neverWritten };
  }
}

/** The values with each URI list checked: absolute URIs with a scheme, no fragment, a port of `*` allowed for
 * loopback clients that listen on any port (as OpenZiti's default `http://localhost:*\/auth/callback`). */
function checked(input: ControllerSettingInput): ControllerSettingValues {
  if (input.oidc === undefined || input.oidc === null) return input.oidc === null ? { oidc: null } : {};
  const oidc: { -readonly [K in keyof OidcSettings]: OidcSettings[K] } = {};
  for (const key of ['redirectUris', 'postLogoutUris'] as const) {
    const uris = input.oidc[key];
    if (uris === undefined) continue;
    if (uris === null) {
      oidc[key] = null;
      continue;
    }
    if (uris.length > maxSettingUris) throw EdgeError.validation(`oidc.${key}`, `at most ${maxSettingUris} URIs`);
    uris.forEach((uri, index) => checkUri(`oidc.${key}[${index}]`, uri));
    oidc[key] = [...new Set(uris)];
  }
  return { oidc };
}

function checkUri(field: string, uri: string): void {
  if (uri.length > maxSettingUriLength) throw EdgeError.validation(field, `a URI is at most ${maxSettingUriLength} characters`);
  let parsed: URL;
  try {
    parsed = new URL(uri.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/:?#]*):\*(?=[/?#]|$)/i, '$1:1'));
  } catch {
    throw EdgeError.validation(field, 'must be an absolute URI with a scheme (https://host/path, or a port of * for any port)', uri);
  }
  if (parsed.hash !== '' || uri.includes('#')) throw EdgeError.validation(field, 'a redirect URI has no fragment', uri);
}
