// `./edgeward agent ...`: operator commands sent to a running controller's agent socket.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { callAgent } from '../agent/agent-client.ts';
import { runningAgents } from '../agent/agent-registry.ts';
import { commandLineOf, parseCommand, reportOutcome, type CommandLine, type CommandNode, type FlagDef } from '../../common/cli/command-line.ts';
import type { CliIo } from './main.ts';
import type { MemberRow } from '../cluster/cluster-service.ts';
import { memberTable } from './member-table.ts';

const socketNote = 'Without --socket the command finds the one controller running on this machine.';
const socketFlag: FlagDef = { name: 'socket', kind: 'string' };

const statusUsage = `Usage: ./edgeward agent status [--socket <path>] [--json]

Prints the local controller's id, version, raft indexes, term, role, leader and whether it is initialized.
${socketNote}
`;
const initUsage = `Usage: ./edgeward agent controller init --username <name> --password-file <file> [--name <display name>] [--socket <path>]

Starts a new cluster with this controller as its only voter (when it is in none) and creates the default admin.
The password is read from the file, never from the command line. ${socketNote}
`;
const snapshotUsage = `Usage: ./edgeward agent controller snapshot [--out <file>] [--json] [--socket <path>]

Writes a backup of the model as this controller has applied it, while it goes on serving: to <file>, or into
<cluster.dataDir>/db-snapshots as model-<index>-<time>.json. The file carries the raft index and term, the cluster id,
the trust domain, the edgeward version and a SHA-256 checksum; \`./edgeward controller restore\` reads it. The
controller process writes it (mode 0600). ${socketNote}
`;
const listUsage = `Usage: ./edgeward agent cluster list [--json] [--socket <path>]

Prints the member table as this controller sees it (Id, Address, Voter, Leader, Version, Connected, Preferred).
${socketNote}
`;
const addUsage = `Usage: ./edgeward agent cluster add tls:<host>:<port> [--voter=false] [--socket <path>]

Adds the empty controller at that control address (as a non-voter with --voter=false); on a new, empty controller,
asks that member to add this one (cluster.allowJoinRequests). ${socketNote}
`;
const removeUsage = `Usage: ./edgeward agent cluster remove <id> [--socket <path>]

Removes a member from the cluster. ${socketNote}
`;
const transferUsage = `Usage: ./edgeward agent cluster transfer-leadership [<id>] [--socket <path>]

Hands leadership to <id>, or to the most caught-up voter. ${socketNote}
`;

const clusterUsage = `Usage: ./edgeward agent cluster <subcommand> ... [--socket <path>]

Subcommands:
  list [--json]                           the member table as this controller sees it
  add tls:<host>:<port> [--voter=false]   add a controller to the cluster
  remove <id>                             remove a member
  transfer-leadership [<id>]              hand leadership to <id> or the most caught-up voter

${socketNote}
'./edgeward agent cluster <subcommand> --help' describes one.
`;

const usage = `Usage: ./edgeward agent <subcommand> ... [--socket <path>]

Operator commands sent to a running controller through its agent socket.

Subcommands:
  status [--json]                                   the controller's id, version, raft indexes and role
  controller init --username <name> --password-file <file> [--name <display name>]
                                                    start a new cluster with this controller and create the default admin
  controller snapshot [--out <file>] [--json]       write a backup of the model while the controller serves
  cluster list [--json]                             the member table
  cluster add tls:<host>:<port> [--voter=false]     add a controller to the cluster
  cluster remove <id>                               remove a member
  cluster transfer-leadership [<id>]                hand leadership to <id> or the most caught-up voter

${socketNote}
'./edgeward agent <subcommand> --help' describes one.
`;

const tree: CommandNode = {
  usage,
  subcommands: {
    status: { usage: statusUsage, flags: [socketFlag, { name: 'json', kind: 'boolean' }], arguments: [], min: 0, max: 0, example: ['--json'] },
    controller: {
      usage: initUsage,
      subcommands: {
        init: {
          usage: initUsage,
          flags: [{ name: 'username', kind: 'string', required: true }, { name: 'password-file', kind: 'string', required: true }, { name: 'name', kind: 'string' }, socketFlag],
          arguments: [],
          min: 0,
          max: 0,
          example: ['--username', 'admin', '--password-file', 'admin-password'],
        },
        snapshot: { usage: snapshotUsage, flags: [{ name: 'out', kind: 'string' }, { name: 'json', kind: 'boolean' }, socketFlag], arguments: [], min: 0, max: 0, example: ['--out', 'backup.json'] },
      },
    },
    cluster: {
      usage: clusterUsage,
      subcommands: {
        list: { usage: listUsage, flags: [{ name: 'json', kind: 'boolean' }, socketFlag], arguments: [], min: 0, max: 0, example: ['--json'] },
        add: { usage: addUsage, flags: [{ name: 'voter', kind: 'boolean' }, socketFlag], arguments: ['tls:<host>:<port>'], min: 1, max: 1, example: ['tls:127.0.0.1:6263'] },
        remove: { usage: removeUsage, flags: [socketFlag], arguments: ['id'], min: 1, max: 1, example: ['ctrl3'] },
        'transfer-leadership': { usage: transferUsage, flags: [socketFlag], arguments: ['id'], min: 0, max: 1, example: ['ctrl2'] },
      },
    },
  },
};

/** `./edgeward agent ...`: its subcommands, and the parse the command runs first. */
export const agentCommandLine: CommandLine = commandLineOf('agent', tree);

/** Refused before the controller is asked (no controller to ask, or no way to tell which): exit 2. */
class AgentUsageError extends Error {}

function pickSocket(explicit: string | undefined): string {
  if (explicit) return explicit;
  const agents = runningAgents();
  if (agents.length === 1) return agents[0]!.socket;
  if (agents.length === 0) throw new AgentUsageError('no running controller found on this machine: start one, or pass --socket <path>');
  throw new AgentUsageError(`${agents.length} controllers are running here (${agents.map((agent) => `${agent.id}: ${agent.socket}`).join(', ')}): pick one with --socket <path>`);
}

export async function runAgentCommand(args: string[], io: CliIo): Promise<number> {
  const outcome = parseCommand('agent', tree, args);
  if (outcome.kind !== 'run') return reportOutcome(outcome, io);
  const { path, positional, flags } = outcome.value;
  const command = ['agent', ...path].join(' ');
  try {
    const socket = () => pickSocket(flags.text('socket'));
    switch (path.join(' ')) {
      case 'status': {
        const response = await callAgent(socket(), 'status');
        if (!response.ok) return fail(io, response.error);
        const status = response.result as Record<string, unknown>;
        if (flags.bool('json')) io.stdout(`${JSON.stringify(status)}\n`);
        else for (const [key, value] of Object.entries(status)) io.stdout(`${key.padEnd(14)} ${String(value)}\n`);
        return 0;
      }
      case 'cluster list': {
        const response = await callAgent(socket(), 'cluster.list');
        if (!response.ok) return fail(io, response.error);
        const rows = response.result as MemberRow[];
        io.stdout(flags.bool('json') ? `${JSON.stringify(rows)}\n` : memberTable(rows));
        return 0;
      }
      case 'cluster add': {
        const response = await callAgent(socket(), 'cluster.add', { address: positional[0], voter: flags.bool('voter') !== false }, 60_000);
        if (!response.ok) return fail(io, response.error.startsWith('cluster add failed') ? response.error : `cluster add failed: ${response.error}`);
        io.stdout(`${String(response.result)}\n`);
        return 0;
      }
      case 'cluster remove': {
        const response = await callAgent(socket(), 'cluster.remove', { id: positional[0] }, 60_000);
        if (!response.ok) return fail(io, response.error);
        io.stdout(`${String(response.result)}\n`);
        return 0;
      }
      case 'cluster transfer-leadership': {
        const response = await callAgent(socket(), 'cluster.transfer', positional[0] ? { id: positional[0] } : {}, 60_000);
        if (!response.ok) return fail(io, response.error);
        io.stdout(`${String(response.result)}\n`);
        return 0;
      }
      case 'controller snapshot': {
        const out = flags.text('out');
        // The controller writes the file: a relative path means the operator's folder, not the controller's.
        const response = await callAgent(socket(), 'controller.snapshot', out ? { out: resolve(out) } : {}, 600_000);
        if (!response.ok) return fail(io, response.error);
        const written = response.result as { path: string; index: number; term: number; clusterId: string; sizeBytes: number; sha256: string };
        if (flags.bool('json')) io.stdout(`${JSON.stringify(written)}\n`);
        else io.stdout(`snapshot written to ${written.path} (raft index ${written.index}, term ${written.term}, ${written.sizeBytes} bytes, sha256 ${written.sha256})\n`);
        return 0;
      }
      default: {
        const username = flags.text('username')!;
        const passwordFile = flags.text('password-file')!;
        let password: string;
        try {
          password = readFileSync(passwordFile, 'utf8').replace(/\r?\n$/, '');
        } catch (error) {
          throw new AgentUsageError(`cannot read the password file ${passwordFile}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
        }
        const response = await callAgent(socket(), 'controller.init', { username, password, name: flags.text('name') ?? 'Default Admin' });
        if (!response.ok) return fail(io, response.error);
        io.stdout(`success, created default admin ${username} (identity ${(response.result as { identityId: string }).identityId})\n`);
        return 0;
      }
    }
  } catch (error) {
    if (error instanceof AgentUsageError) return reportOutcome({ kind: 'usage-error', command, reason: error.message }, io);
    return fail(io, (error as Error).message);
  }
}

function fail(io: CliIo, message: string): number {
  io.stderr(`error: ${message}\n`);
  return 1;
}
