// Controller settings, as OpenZiti keeps them: one `global` row every controller inherits and, per controller, a row
// of overrides named by the controller's id. A setting left unset (absent or null) on a controller's row is the
// global one; the effective settings of a controller are the two merged (controller-settings.ts).
import { EntityTable, type Row } from '../store/entity-table.ts';
import type { BaseEntity } from './base-entity.ts';

/** The id of the row every controller inherits. */
export const globalSettingsId = 'global';

export interface OidcSettings {
  /** Where the OIDC endpoints may redirect a client after login (issue 40); null: inherited. */
  readonly redirectUris?: readonly string[] | null;
  /** Where they may redirect after logout; null: inherited. */
  readonly postLogoutUris?: readonly string[] | null;
}

export interface ControllerSettingValues {
  readonly oidc?: OidcSettings | null;
}

export interface ControllerSetting extends BaseEntity, ControllerSettingValues {}

export const controllerSettingTables = { controllerSettings: 'controllerSettings' } as const;

export function createControllerSettingTables(): EntityTable<Row>[] {
  return [new EntityTable<ControllerSetting>(controllerSettingTables.controllerSettings)] as unknown as EntityTable<Row>[];
}
