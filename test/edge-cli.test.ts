// `edgeward edge` against a real controller process over TLS: the operator's whole scenario (login, an identity with
// a password authenticator, a service and a Dial policy, filtered lists as JSON, YAML and tables, updates, an MFA
// reset, deletes, the API's errors, an ended session, logout), then every other entity's forms.
import { after, before, test } from 'node:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { adminCredentials, ControllerFixture } from './support/controller-fixture.ts';
import { runEdgeCliEntityRoundTrips, runEdgeCliScenario } from './support/edge-cli-scenario.ts';

let controller: ControllerFixture;
let caFile: string;

before(async () => {
  controller = await ControllerFixture.create();
  caFile = join(controller.root, 'ca-bundle.pem');
  writeFileSync(caFile, controller.caPem);
});
after(async () => {
  await controller?.dispose();
});

test('an operator logs in, creates an identity, authenticator, service and Dial policy, lists, updates, resets MFA and deletes with edgeward edge', async () => {
  await runEdgeCliScenario({ managementUrl: controller.managementApi, caFile, admin: adminCredentials, workDir: controller.root });
});

test('auth policies, external JWT signers, CAs, posture checks, edge routers and cert authenticators go through their create, update and delete forms', async () => {
  await runEdgeCliEntityRoundTrips({ managementUrl: controller.origin, caFile, admin: adminCredentials, workDir: controller.root });
});
