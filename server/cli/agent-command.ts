// `./edgeward agent ...`: operator commands sent to a running controller's agent socket.
import { readFileSync } from 'node:fs';
import { callAgent } from '../agent/agent-client.ts';
import { runningAgents } from '../agent/agent-registry.ts';
import { CliUsageError, parseArgs } from './cli-args.ts';
import type { CliIo } from './main.ts';
import type { MemberRow } from '../cluster/cluster-service.ts';
import { memberTable } from './member-table.ts';

const usage = `Usage:
  ./edgeward agent status [--socket <path>] [--json]
  ./edgeward agent cluster list [--json] [--socket <path>]
  ./edgeward agent cluster add tls:<host>:<port> [--voter=false] [--socket <path>]
  ./edgeward agent cluster remove <id> [--socket <path>]
  ./edgeward agent cluster transfer-leadership [<id>] [--socket <path>]
  ./edgeward agent controller init --username <name> --password-file <file> [--name <display name>] [--socket <path>]

Without --socket the command finds the one controller running on this machine.
`;

function pickSocket(explicit: string | undefined): string {
  if (explicit) return explicit;
  const agents = runningAgents();
  if (agents.length === 1) return agents[0]!.socket;
  if (agents.length === 0) throw new CliUsageError('no running controller found on this machine: start one, or pass --socket <path>');
  throw new CliUsageError(`${agents.length} controllers are running here (${agents.map((agent) => `${agent.id}: ${agent.socket}`).join(', ')}): pick one with --socket <path>`);
}

export async function runAgentCommand(args: string[], io: CliIo): Promise<number> {
  try {
    const parsed = parseArgs(args, { socket: 'string', json: 'boolean', username: 'string', 'password-file': 'string', name: 'string', help: 'boolean', voter: 'boolean' });
    const [group, action] = parsed.positional;
    if (parsed.flags.help || group === undefined) {
      io.stdout(usage);
      return parsed.flags.help ? 0 : 2;
    }
    const socket = () => pickSocket(parsed.flags.socket as string | undefined);
    if (group === 'status') {
      const response = await callAgent(socket(), 'status');
      if (!response.ok) return fail(io, response.error);
      const status = response.result as Record<string, unknown>;
      if (parsed.flags.json) io.stdout(`${JSON.stringify(status)}\n`);
      else for (const [key, value] of Object.entries(status)) io.stdout(`${key.padEnd(14)} ${String(value)}\n`);
      return 0;
    }
    if (group === 'cluster') {
      const rest = parsed.positional.slice(2);
      switch (action) {
        case 'list': {
          if (rest.length > 1) throw new CliUsageError('cluster list takes no arguments');
          const response = await callAgent(socket(), 'cluster.list');
          if (!response.ok) return fail(io, response.error);
          const rows = response.result as MemberRow[];
          io.stdout(parsed.flags.json ? `${JSON.stringify(rows)}\n` : memberTable(rows));
          return 0;
        }
        case 'add': {
          if (rest.length !== 1) throw new CliUsageError('cluster add takes exactly one address: tls:<host>:<port>');
          const response = await callAgent(socket(), 'cluster.add', { address: rest[0], voter: parsed.flags.voter !== false }, 60_000);
          if (!response.ok) return fail(io, response.error.startsWith('cluster add failed') ? response.error : `cluster add failed: ${response.error}`);
          io.stdout(`${String(response.result)}\n`);
          return 0;
        }
        case 'remove': {
          if (rest.length !== 1) throw new CliUsageError('cluster remove takes exactly one controller id');
          const response = await callAgent(socket(), 'cluster.remove', { id: rest[0] }, 60_000);
          if (!response.ok) return fail(io, response.error);
          io.stdout(`${String(response.result)}\n`);
          return 0;
        }
        case 'transfer-leadership': {
          if (rest.length > 1) throw new CliUsageError('cluster transfer-leadership takes at most one controller id');
          const response = await callAgent(socket(), 'cluster.transfer', rest[0] ? { id: rest[0] } : {}, 60_000);
          if (!response.ok) return fail(io, response.error);
          io.stdout(`${String(response.result)}\n`);
          return 0;
        }
        default:
          throw new CliUsageError(`unknown cluster command '${action ?? ''}'`);
      }
    }
    if (group === 'controller' && action === 'init') {
      const username = parsed.flags.username as string | undefined;
      const passwordFile = parsed.flags['password-file'] as string | undefined;
      if (!username) throw new CliUsageError('--username is required');
      if (!passwordFile) throw new CliUsageError('--password-file is required (the password is never taken on the command line)');
      let password: string;
      try {
        password = readFileSync(passwordFile, 'utf8').replace(/\r?\n$/, '');
      } catch (error) {
        throw new CliUsageError(`cannot read the password file ${passwordFile}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      }
      const response = await callAgent(socket(), 'controller.init', { username, password, name: parsed.flags.name ?? 'Default Admin' });
      if (!response.ok) return fail(io, response.error);
      io.stdout(`success, created default admin ${username} (identity ${(response.result as { identityId: string }).identityId})\n`);
      return 0;
    }
    throw new CliUsageError(`unknown agent command '${parsed.positional.join(' ')}'`);
  } catch (error) {
    if (error instanceof CliUsageError) {
      io.stderr(`error: ${error.message}\n\n${usage}`);
      return 2;
    }
    return fail(io, (error as Error).message);
  }
}

function fail(io: CliIo, message: string): number {
  io.stderr(`error: ${message}\n`);
  return 1;
}
