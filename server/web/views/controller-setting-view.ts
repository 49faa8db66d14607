// Controller settings as the API shows them: a row with what it sets (an unset list is left out), and a
// controller's effective settings beside its own.
import type { EffectiveControllerSettings } from '../../edge/controller-settings.ts';
import type { ControllerSetting, ControllerSettingValues } from '../../model/controller-setting-entities.ts';
import { link } from './links.ts';

function values(setting: ControllerSettingValues) {
  const oidc = setting.oidc;
  if (!oidc) return {};
  return {
    oidc: {
      ...(oidc.redirectUris ? { redirectUris: oidc.redirectUris } : {}),
      ...(oidc.postLogoutUris ? { postLogoutUris: oidc.postLogoutUris } : {}),
    },
  };
}

function base(setting: ControllerSetting) {
  const self = `./controller-settings/${encodeURIComponent(setting.id)}`;
  return {
    id: setting.id,
    createdAt: setting.createdAt,
    updatedAt: setting.updatedAt,
    tags: setting.tags,
    _links: { self: link(self), effective: link(`${self}/effective`) },
  };
}

export function controllerSettingView(setting: ControllerSetting) {
  return { ...base(setting), ...values(setting) };
}

export function controllerSettingEffectiveView(setting: ControllerSetting, effective: EffectiveControllerSettings) {
  return { ...base(setting), effective: { oidc: { redirectUris: effective.oidc.redirectUris, postLogoutUris: effective.oidc.postLogoutUris } }, instance: values(setting) };
}
