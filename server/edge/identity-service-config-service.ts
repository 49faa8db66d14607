// Identity-specific service configs: an administrator names, for one identity and one service, a config that takes
// the place of the service's own config of the same type in what that identity is shown (its client service list
// and its service updates). Checked against the model before a command is proposed (the apply checks again, in log
// order); a refusal changes nothing.
import type { Clock } from '../../common/time/clock.ts';
import { isoTime } from '../../common/time/iso-time.ts';
import type { Identity } from '../model/entities.ts';
import { tables } from '../model/entities.ts';
import { resolveServiceConfigPairs, type ServiceConfigPair } from '../model/identity-service-config-commands.ts';
import { identityServiceConfigTables, type IdentityServiceConfig } from '../model/identity-service-config-entities.ts';
import type { ModelStore } from '../store/model-store.ts';
import { EdgeError } from './edge-error.ts';
import type { ModelWriter } from './model-writer.ts';

/** The most pairs one request may name. */
export const serviceConfigPairLimit = 1000;

/** configTypeId → configId, for one identity and service. */
export type ConfigOverrides = ReadonlyMap<string, string>;

export class IdentityServiceConfigService {
  constructor(
    private readonly store: ModelStore,
    private readonly writer: ModelWriter,
    private readonly clock: Clock,
  ) {}

  private rows() {
    return this.store.table<IdentityServiceConfig>(identityServiceConfigTables.identityServiceConfigs);
  }

  /** The identity's pairs, in id order (by service, then config type). */
  list(identityId: string): IdentityServiceConfig[] {
    this.requireIdentity(identityId);
    return this.rows()
      .findMany('identityId', identityId)
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** The identity's overrides, by service id. */
  overridesFor(identityId: string): ReadonlyMap<string, ConfigOverrides> {
    const result = new Map<string, Map<string, string>>();
    for (const row of this.rows().findMany('identityId', identityId)) {
      let byType = result.get(row.serviceId);
      if (!byType) result.set(row.serviceId, (byType = new Map()));
      byType.set(row.configTypeId, row.configId);
    }
    return result;
  }

  /** Each pair's config becomes the identity's config of its type for its service (no pairs: nothing to write). */
  async assign(identityId: string, pairs: readonly ServiceConfigPair[]): Promise<void> {
    this.check(identityId, pairs, true);
    if (pairs.length === 0) return;
    await this.writer.write({ type: 'identityServiceConfig.assign', identityId, at: isoTime(this.clock.now()), pairs: [...pairs] });
  }

  /** Removes the pairs named; none: every pair of the identity. */
  async remove(identityId: string, pairs: readonly ServiceConfigPair[]): Promise<void> {
    this.check(identityId, pairs, false);
    await this.writer.write({ type: 'identityServiceConfig.remove', identityId, pairs: [...pairs] });
  }

  private check(identityId: string, pairs: readonly ServiceConfigPair[], assigning: boolean): void {
    this.requireIdentity(identityId);
    const found = resolveServiceConfigPairs(this.store, pairs, assigning);
    if ('problem' in found) throw new EdgeError(found.problem.code, found.problem.cause);
  }

  private requireIdentity(id: string): Identity {
    const identity = this.store.table<Identity>(tables.identities).get(id);
    if (!identity) throw EdgeError.notFound('identity', id);
    return identity;
  }
}
