import { adminCredentials, ControllerFixture } from './test/support/controller-fixture.ts';
import { runWrk } from './bench/wrk-runner.ts';
const fixture = await ControllerFixture.create({ nodeArgs: process.env.PROF ? ['--cpu-prof', '--cpu-prof-dir=/work/scratch/cpuprof'] : [] });
const token = await fixture.login(adminCredentials.username, adminCredentials.password, 'management');
const f = await runWrk({ url: `${fixture.managementApi}/identities`, connections: 16, threads: 1, seconds: 8, method: 'POST', headers: { 'zt-session': token, 'content-type': 'application/json' }, script: 'bench/wrk/unique-writes.lua', env: { WRK_WRITE_KIND: 'edgeward', WRK_NAME_PREFIX: `p-${Date.now()}` } });
console.log('w/s', f.requests / 8, 'errors', f.httpErrors);
await fixture.dispose();
