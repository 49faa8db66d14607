// How `./edgeward agent controller check-integrity` and `integrity-results` print a data-integrity report: one
// summary line, then each finding with whether it was fixed, so an operator sees what is left to do by hand.
import type { IntegrityReport } from '../edge/database-admin.ts';

const epoch = new Date(0).toISOString();

/** The report as text (each line ends in a newline). */
export function integrityReportText(report: IntegrityReport): string {
  const kind = report.fixingErrors ? 'data integrity check and fix' : 'data integrity check';
  if (report.startTime === epoch && !report.inProgress) return 'no data integrity check has run on this controller since it started\n';
  if (report.inProgress) return `a ${kind} is running on this controller since ${report.startTime}\n`;
  const fixed = report.results.filter((result) => result.fixed).length;
  const left = report.results.length - fixed;
  const counts = report.results.length === 0 ? 'no findings' : `${report.results.length} finding${report.results.length === 1 ? '' : 's'}, ${fixed} fixed, ${left} not fixed`;
  const lines = [`${kind} from ${report.startTime} to ${report.endTime}: ${counts}`];
  for (const result of report.results) lines.push(`  ${result.fixed ? 'fixed    ' : 'not fixed'}  ${result.description}`);
  if (report.tooManyErrors) lines.push(`more findings than listed: only the first ${report.results.length} are shown (run the check again after fixing these)`);
  if (report.error !== '') lines.push(`error: ${report.error}`);
  return `${lines.join('\n')}\n`;
}

/** Whether the report leaves something to do: a finding not fixed, more than were listed, or a run that failed. */
export function integrityReportFailed(report: IntegrityReport): boolean {
  return report.error !== '' || report.tooManyErrors || report.results.some((result) => !result.fixed);
}
