// How controller setting commands apply: a row is written whole (create, replace, update), and any row but the
// global one may be deleted, after which that controller inherits every global setting.
import { CommandRefused } from './command-refused.ts';
import type { ApplyTransaction } from '../store/model-store.ts';
import { controllerSettingTables, globalSettingsId, type ControllerSetting } from './controller-setting-entities.ts';
import { refuse, requireRow, unknownCommand } from './require-row.ts';

export type ControllerSettingCommand =
  /** Creates a controller's row: refused when it already has one. */
  | { type: 'controllerSetting.create'; setting: ControllerSetting }
  /** Writes a row whole, keeping its createdAt (the global row is written on its first change). */
  | { type: 'controllerSetting.put'; setting: ControllerSetting }
  | { type: 'controllerSetting.delete'; id: string };

const controllerSettingCommandTypes = new Set<string>(['controllerSetting.create', 'controllerSetting.put', 'controllerSetting.delete']);

export function isControllerSettingCommand(command: { type: string }): command is ControllerSettingCommand {
  return controllerSettingCommandTypes.has(command.type);
}

export function applyControllerSettingCommand(command: ControllerSettingCommand, tx: ApplyTransaction): unknown {
  const rows = tx.table<ControllerSetting>(controllerSettingTables.controllerSettings);
  switch (command.type) {
    case 'controllerSetting.create': {
      if (command.setting.id === globalSettingsId || rows.get(command.setting.id)) {
        refuse('COULD_NOT_VALIDATE', 'controllerId', `controller ${command.setting.id} already has settings: change them with PUT or PATCH`, command.setting.id);
      }
      tx.put<ControllerSetting>(controllerSettingTables.controllerSettings, command.setting);
      return { id: command.setting.id };
    }
    case 'controllerSetting.put': {
      const current = rows.get(command.setting.id);
      tx.put<ControllerSetting>(controllerSettingTables.controllerSettings, current ? { ...command.setting, createdAt: current.createdAt } : command.setting);
      return { id: command.setting.id };
    }
    case 'controllerSetting.delete': {
      if (command.id === globalSettingsId) throw new CommandRefused({ code: 'CAN_NOT_DELETE_REFERENCED_ENTITY', cause: { field: 'id', reason: 'the global settings cannot be deleted', value: command.id } });
      requireRow<ControllerSetting>(tx, controllerSettingTables.controllerSettings, command.id, 'controller setting');
      tx.delete(controllerSettingTables.controllerSettings, command.id);
      return undefined;
    }
    default:
      return unknownCommand((command as { type: string }).type);
  }
}
