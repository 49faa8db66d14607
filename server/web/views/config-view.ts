// The config and config-type detail representations, in the real controller's shapes.
import type { Config, ConfigType } from '../../model/config-entities.ts';
import { entityRef, link } from './links.ts';

export function configTypeView(type: ConfigType) {
  return {
    id: type.id,
    createdAt: type.createdAt,
    updatedAt: type.updatedAt,
    tags: type.tags,
    _links: { self: link(`./config-types/${type.id}`), configs: link(`./config-types/${type.id}/configs`) },
    name: type.name,
    schema: type.schema,
    target: type.target,
  };
}

/** `typeName` is the config type's name ('' when the type is gone, which the model does not allow). */
export function configView(config: Config, typeName: string) {
  return {
    id: config.id,
    createdAt: config.createdAt,
    updatedAt: config.updatedAt,
    tags: config.tags,
    _links: { self: link(`./configs/${config.id}`), 'config-type': link(`./config-types/${config.configTypeId}`) },
    name: config.name,
    configTypeId: config.configTypeId,
    configType: entityRef('config-types', config.configTypeId, typeName),
    data: config.data,
  };
}
