// `./edgeward agent controller check-integrity [--fix] [--wait=false] [--json]` and
// `./edgeward agent controller integrity-results [--json]`: the data-integrity check through the agent socket.
// check-integrity starts a run (refused while one runs, as the API's 429) and, by default, waits for its report and
// prints it; both exit 1 when the report leaves findings unfixed or the run failed, so a script can act on it.
import { callAgent } from '../agent/agent-client.ts';
import type { IntegrityReport } from '../edge/database-admin.ts';
import type { CliIo } from './main.ts';
import { integrityReportFailed, integrityReportText } from './integrity-report-text.ts';

/** How long check-integrity waits for its report (a check of 100k identities takes seconds), and how often it asks. */
export const integrityWaitMs = 10 * 60_000;
const pollMs = 250;

export interface IntegrityFlags {
  readonly fix: boolean;
  readonly wait: boolean;
  readonly json: boolean;
}

export async function runCheckIntegrity(socket: string, flags: IntegrityFlags, io: CliIo): Promise<number> {
  const started = await callAgent(socket, 'controller.checkIntegrity', { fix: flags.fix });
  if (!started.ok) return fail(io, started.error);
  const { startTime } = started.result as { startTime: string };
  if (!flags.wait) {
    io.stdout(flags.json ? `${JSON.stringify(started.result)}\n` : `started a data integrity check${flags.fix ? ' and fix' : ''} at ${startTime}; read its report with ./edgeward agent controller integrity-results\n`);
    return 0;
  }
  const deadline = Date.now() + integrityWaitMs;
  for (;;) {
    const answer = await callAgent(socket, 'controller.integrityResults');
    if (!answer.ok) return fail(io, answer.error);
    const report = answer.result as IntegrityReport;
    if (report.startTime !== startTime) return fail(io, `another data integrity check (started ${report.startTime}) replaced this one's report before it was read`);
    if (!report.inProgress) return print(report, flags.json, io);
    if (Date.now() > deadline) return fail(io, `the data integrity check started at ${startTime} has not finished after ${integrityWaitMs / 1000} s; read its report later with ./edgeward agent controller integrity-results`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

export async function runIntegrityResults(socket: string, json: boolean, io: CliIo): Promise<number> {
  const answer = await callAgent(socket, 'controller.integrityResults');
  if (!answer.ok) return fail(io, answer.error);
  return print(answer.result as IntegrityReport, json, io);
}

function print(report: IntegrityReport, json: boolean, io: CliIo): number {
  io.stdout(json ? `${JSON.stringify(report)}\n` : integrityReportText(report));
  return !report.inProgress && integrityReportFailed(report) ? 1 : 0;
}

function fail(io: CliIo, message: string): number {
  io.stderr(`error: ${message}\n`);
  return 1;
}
