// `edgeward edge use [<name>]`, as `ziti edge use`: an operator logged in to several controllers (or as several
// administrators: `edgeward edge login ... -i <name>`) switches the session every later command uses, or, without a
// name, sees the stored sessions and which one is in use.
import type { ParsedFlags } from './edge-args.ts';
import { EdgeUsageError } from './edge-args.ts';
import { renderData, renderTable } from './edge-output.ts';
import { readSessionBook, sessionFilePath, sessionNamePattern, useSession } from './edge-session-store.ts';

export interface UseIo {
  readonly stdout: (text: string) => void;
}

export function useUsage(flagText: string): string {
  return `Usage: edgeward edge use [<name>]

Switches the session later commands use to the one stored as <name> (edgeward edge login ... -i <name>). Without a
name, lists the stored sessions: the one in use is marked with *.

Flags:
${flagText}`;
}

/** The session name given, if any; a bad one is a usage error. */
export function useArgumentProblem(positional: readonly string[]): string | undefined {
  if (positional.length > 1) return `use takes one session name, not: ${positional.join(' ')}`;
  if (positional[0] !== undefined && !sessionNamePattern.test(positional[0])) return `'${positional[0]}' is not a session name (letters, digits, '.', '_', '-'; at most 64)`;
  return undefined;
}

export function runUse(parsed: ParsedFlags, io: UseIo, env: NodeJS.ProcessEnv): number {
  const problem = useArgumentProblem(parsed.positional);
  if (problem) throw new EdgeUsageError(problem);
  const file = sessionFilePath(parsed.text('cli-config'), env);
  const name = parsed.positional[0];
  if (name !== undefined) {
    const session = useSession(file, name);
    io.stdout(`Using session ${name}: ${session.controllerUrl} as ${session.identityName} (username ${session.username})\n`);
    return 0;
  }
  const book = readSessionBook(file);
  const rows = Object.entries(book.sessions)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([sessionName, session]) => ({ inUse: sessionName === book.current, name: sessionName, controller: session.controllerUrl, username: session.username, identity: session.identityName, loggedInAt: session.loggedInAt }));
  if (parsed.bool('json')) {
    io.stdout(renderData(rows, 'json'));
    return 0;
  }
  if (rows.length === 0) {
    io.stdout(`no sessions in ${file}: log in with edgeward edge login <controller url> -u <username> [-i <name>]\n`);
    return 0;
  }
  io.stdout(
    renderTable(
      [
        { title: '', value: (row) => (row.inUse ? '*' : '') },
        { title: 'NAME', value: (row) => row.name },
        { title: 'CONTROLLER', value: (row) => row.controller },
        { title: 'USERNAME', value: (row) => row.username },
        { title: 'LOGGED IN AT', value: (row) => row.loggedInAt },
      ],
      rows,
    ),
  );
  if (book.current === undefined) io.stdout('no session is in use: pick one with edgeward edge use <name>\n');
  return 0;
}
