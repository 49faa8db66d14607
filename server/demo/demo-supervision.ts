// How the demo supervises each of its processes: restarted when it fails (Restart=on-failure), its pid kept current
// in demo.json when it has one there, and a restart followed until the process is ready again.
import type { ChildProcess } from 'node:child_process';
import { Supervisor } from './supervisor.ts';

export interface SupervisionContext {
  readonly log: (line: string) => void;
  readonly stateFile: string;
  /** Writes demo.json again (a pid changed); may throw. */
  readonly persist: () => void;
  readonly stopping: () => boolean;
  /** The demo cannot go on (a process keeps failing). */
  readonly endDemo: (reason: string) => void;
}

export interface SupervisedProcess {
  readonly name: string;
  readonly spawn: () => ChildProcess;
  readonly logFile: string;
  /** Records the pid of each start in the demo's state (written to demo.json). */
  readonly onPid?: (pid: number) => void;
  /** Resolves once a restarted process is ready again; `current` is false once that child is gone. */
  readonly readyAgain: (current: () => boolean) => Promise<unknown>;
  /** Logged when a restarted process is ready again. */
  readonly readyAgainLine: string;
  readonly onCleanExit?: () => void;
}

export function supervised(context: SupervisionContext, spec: SupervisedProcess): Supervisor {
  const { log } = context;
  return new Supervisor({
    name: spec.name,
    spawn: spec.spawn,
    log,
    logFile: spec.logFile,
    onStart: (child, restarted) => {
      if (spec.onPid) {
        spec.onPid(child.pid!);
        try {
          context.persist();
        } catch (error) {
          log(`could not update ${context.stateFile}: ${(error as Error).message}`);
        }
      }
      if (restarted) {
        const current = () => !context.stopping() && child.exitCode === null && child.signalCode === null;
        spec.readyAgain(current).then(
          () => log(spec.readyAgainLine),
          () => undefined,
        );
      }
    },
    onGiveUp: (reason) => context.endDemo(reason),
    ...(spec.onCleanExit ? { onCleanExit: spec.onCleanExit } : {}),
  });
}
