// What the agent socket answers (`edgeward agent ...`): the controller's status, `controller init`, `controller
// snapshot` and the cluster membership commands.
import type { Logger } from '../../common/log/logger.ts';
import type { AgentCommand } from '../agent/agent-server.ts';
import type { ClusterService } from '../cluster/cluster-service.ts';
import type { EdgeServices } from '../edge/edge-services.ts';
import { bootstrapSingleVoter } from '../raft/node/local-raft.ts';
import type { ClusterRaft } from '../raft/node/raft-node.ts';
import type { ModelStore } from '../store/model-store.ts';
import type { ControllerOptions } from './controller-options.ts';

export interface AgentCommandWiring {
  readonly options: ControllerOptions;
  readonly version: string;
  readonly store: ModelStore;
  readonly raft: ClusterRaft;
  readonly cluster: ClusterService;
  readonly services: EdgeServices;
  readonly logger: Logger;
}

export type Initialize = (args: Record<string, unknown>) => Promise<{ identityId: string }>;

export function agentCommands(wiring: AgentCommandWiring, initialize: Initialize): Map<string, AgentCommand> {
  const { options, raft, cluster } = wiring;
  return new Map<string, AgentCommand>([
    [
      'status',
      async () => {
        const status = raft.status();
        return {
          id: options.id,
          version: wiring.version,
          appliedIndex: wiring.store.appliedIndex(),
          lastLogIndex: status.lastIndex,
          commitIndex: status.commit,
          term: status.term,
          role: status.role,
          leader: status.leader,
          isLeader: raft.isLeader(),
          initialized: wiring.services.identities.hasDefaultAdmin(),
        };
      },
    ],
    ['controller.init', async (args) => initialize(args)],
    ['controller.snapshot', async (args) => wiring.services.database.snapshot({ ...(typeof args.out === 'string' && args.out !== '' ? { out: args.out } : {}), trigger: 'request' })],
    ['cluster.list', async () => cluster.members()],
    ['cluster.add', async (args) => cluster.add(String(args.address ?? ''), args.voter !== false)],
    ['cluster.remove', async (args) => cluster.remove(String(args.id ?? ''))],
    ['cluster.transfer', async (args) => cluster.transferLeadership(typeof args.id === 'string' && args.id !== '' ? args.id : undefined)],
  ]);
}

/** `agent controller init`: makes a new node the first member of a cluster, then creates the default admin. */
export function controllerInitializer(wiring: AgentCommandWiring): Initialize {
  const { options, raft, services, logger } = wiring;
  return async (args) => {
    const username = typeof args.username === 'string' ? args.username : '';
    const password = typeof args.password === 'string' ? args.password : '';
    const name = typeof args.name === 'string' && args.name !== '' ? args.name : 'Default Admin';
    if (username.length < 4 || username.length > 100) throw new Error('username must be 4 to 100 characters');
    if (password.length < 5 || password.length > 100) throw new Error('password must be 5 to 100 characters');
    if (raft.isUninitialized()) {
      await bootstrapSingleVoter(raft, options.id, options.cluster.address);
      logger.info('initialized a new cluster with this controller as its first member', { address: options.cluster.address });
    }
    if (services.identities.hasDefaultAdmin()) throw new Error('the controller is already initialized with a default admin');
    const { id } = await services.identities.bootstrapAdmin({ username, password, name });
    logger.info('default admin created', { identityId: id, username });
    return { identityId: id };
  };
}
