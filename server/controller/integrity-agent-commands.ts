// The agent socket's data-integrity commands (`./edgeward agent controller check-integrity` and
// `integrity-results`): the same check as `POST /database/check-data-integrity`, started on this controller, and
// its report as `GET /database/data-integrity-results` answers it.
import type { AgentCommand } from '../agent/agent-server.ts';
import type { DatabaseAdmin } from '../edge/database-admin.ts';
import { EdgeError } from '../edge/edge-error.ts';

/** What the refusal of a second start says (the API's 429). */
export const integrityCheckRunning = 'a data integrity check is already running on this controller: wait for its report (agent controller integrity-results)';

export function integrityAgentCommands(database: DatabaseAdmin): Array<[string, AgentCommand]> {
  return [
    [
      'controller.checkIntegrity',
      async (args) => {
        const fix = args.fix === true;
        try {
          database.start(fix);
        } catch (error) {
          if (error instanceof EdgeError && error.code === 'SERVER_TOO_MANY_REQUESTS') throw new Error(integrityCheckRunning);
          throw error;
        }
        return { started: true, fixing: fix, startTime: database.results().startTime };
      },
    ],
    ['controller.integrityResults', async () => database.results()],
  ];
}
