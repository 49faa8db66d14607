// The demo's SDK path (issue 39): an identity `demo-client` allowed to Dial the demo service, enrolled with an ott
// enrollment by the module `./edgeward edge enroll` uses into an identity file (mode 0600) under the data folder, and
// `./edgeward tunnel run <that file> --proxy demo-echo:<port>` offering the service on a local port. Idempotent, like
// the rest of the data plane: a later start reuses the identity and its file when the file still logs in; otherwise
// (the file is gone, or its certificate no longer works) the identity's certificate is dropped and it is enrolled
// again, since an enrollment once used cannot be used again.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EdgeSdk } from '../../sdk/edge-sdk.ts';
import { enrollIdentity } from '../cli/edge/identity-enrollment.ts';
import { identityFileText, prepareIdentityFile } from '../cli/edge/identity-file.ts';
import { findByName, upsert } from './demo-data-plane.ts';
import { demoRouterHost, demoServiceName } from './demo-router-config.ts';
import type { ManagementApi } from './demo-routers.ts';

export const demoClientName = 'demo-client';
/** The tunnel's proxy port when it is free (router1's is 8480). */
export const preferredSdkProxyPort = 8481;
/** A fresh enrollment's lifetime: the demo uses it at once. */
const enrollmentLifetimeMs = 60 * 60_000;
const enrollTimeoutMs = 15_000;

export interface SdkClientPlan {
  readonly identityFile: string;
  readonly logFile: string;
  /** `host:port` of the tunnel's proxy listener for the demo service. */
  readonly proxy: string;
  readonly port: number;
}

export function planSdkClient(root: string, port: number): SdkClientPlan {
  const folder = join(root, demoClientName);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  return { identityFile: join(folder, `${demoClientName}.json`), logFile: join(folder, 'tunnel.log'), proxy: `${demoRouterHost}:${port}`, port };
}

/** `./edgeward tunnel run` for the client identity, offering only the demo service on the plan's port. */
export function tunnelArguments(plan: SdkClientPlan): string[] {
  return ['tunnel', 'run', plan.identityFile, '--proxy', `${demoServiceName}:${plan.port}`, '--poll-interval', '5s'];
}

/** The tunnel's port from an earlier start's demo.json, so that `dataPlane.sdkProxy` stays the same. */
export function storedSdkProxyPort(stateFile: string): number | undefined {
  if (!existsSync(stateFile)) return undefined;
  try {
    const proxy = (JSON.parse(readFileSync(stateFile, 'utf8')) as { dataPlane?: { sdkProxy?: unknown } }).dataPlane?.sdkProxy;
    const match = typeof proxy === 'string' ? /:(\d+)$/.exec(proxy) : null;
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** The identity, its Dial policy, and a working identity file. `controllerOrigins`: every controller's https://host:port. */
export async function ensureDemoClient(api: ManagementApi, plan: SdkClientPlan, controllerOrigins: readonly string[], log: (line: string) => void): Promise<void> {
  const identityId = await ensureIdentity(api);
  const service = await findByName(api, 'services', demoServiceName);
  if (!service) throw new Error(`the service ${demoServiceName} is missing`);
  await upsert(api, 'service-policies', { name: `${demoServiceName}-sdk-dial`, type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${identityId}`], serviceRoles: [`@${service.id}`], postureCheckRoles: [] });
  const problem = existsSync(plan.identityFile) ? await identityFileProblem(plan.identityFile, identityId) : 'there is none yet';
  if (problem === undefined) {
    log(`identity ${demoClientName} logs in with ${plan.identityFile}; reusing it`);
    return;
  }
  log(`enrolling identity ${demoClientName} into ${plan.identityFile} (${problem})`);
  const jwt = await openEnrollmentJwt(api, identityId);
  const enrolled = await enrollIdentity({ jwt, keyAlgorithm: 'ec', nowMs: Date.now(), timeoutMs: enrollTimeoutMs });
  const issuer = enrolled.claims.issuer;
  const pending = await prepareIdentityFile(plan.identityFile, true);
  await pending.commit(
    identityFileText({
      controllerOrigin: issuer,
      controllerOrigins: [issuer, ...controllerOrigins.filter((origin) => origin !== issuer)],
      caPem: enrolled.caPem,
      ...(enrolled.keyPem !== undefined ? { keyPem: enrolled.keyPem } : {}),
      ...(enrolled.certPem !== undefined ? { certPem: enrolled.certPem } : {}),
    }),
  );
  log(`enrolled identity ${demoClientName} (${identityId}) at ${issuer}: ${plan.identityFile}`);
}

/** Found by name, or created with an ott enrollment. */
async function ensureIdentity(api: ManagementApi): Promise<string> {
  const existing = await findByName(api, 'identities', demoClientName);
  if (existing) return existing.id;
  const created = await api.request('POST', '/identities', { name: demoClientName, type: 'Default', isAdmin: false, roleAttributes: ['demo-clients'], enrollment: { ott: true } });
  const id = (created.data as { id?: unknown } | undefined)?.id;
  if (created.status !== 201 || typeof id !== 'string') throw new Error(`creating identity ${demoClientName}: HTTP ${created.status} ${created.text}`);
  return id;
}

/** Why the file cannot serve the identity, or undefined when it logs in as it. */
async function identityFileProblem(file: string, identityId: string): Promise<string | undefined> {
  let sdk: EdgeSdk | undefined;
  try {
    sdk = EdgeSdk.fromIdentityFile(file, { timeoutMs: enrollTimeoutMs });
    const identity = await sdk.login();
    return identity.id === identityId ? undefined : `it logs in as another identity, ${identity.name} (${identity.id})`;
  } catch (error) {
    return `it does not log in: ${(error as Error).message}`;
  }
  finally {
    sdk?.close();
  }
}

type Row = { id: string; [key: string]: unknown };

async function listOf(api: ManagementApi, path: string): Promise<Row[]> {
  const listed = await api.request('GET', path);
  if (listed.status !== 200 || !Array.isArray(listed.data)) throw new Error(`listing ${path}: HTTP ${listed.status} ${listed.text}`);
  return listed.data as Row[];
}

/** An ott enrollment JWT valid for a while: the open one, or a new one once the identity's certificate is dropped. */
async function openEnrollmentJwt(api: ManagementApi, identityId: string): Promise<string> {
  const enrollments = (await listOf(api, `/identities/${identityId}/enrollments`)).filter((row) => row.method === 'ott');
  const open = enrollments.find((row) => typeof row.jwt === 'string' && typeof row.expiresAt === 'string' && Date.parse(row.expiresAt) > Date.now() + 60_000);
  if (open) return open.jwt as string;
  for (const stale of enrollments) await expectStatus(api, 'DELETE', `/enrollments/${stale.id}`, 'deleting an expiring enrollment');
  // An identity with a certificate cannot enroll another: the certificate of the lost or broken file goes first.
  for (const authenticator of await listOf(api, `/identities/${identityId}/authenticators`)) {
    if (authenticator.method === 'cert') await expectStatus(api, 'DELETE', `/authenticators/${authenticator.id}`, `deleting ${demoClientName}'s old certificate`);
  }
  const created = await api.request('POST', '/enrollments', { method: 'ott', identityId, expiresAt: new Date(Date.now() + enrollmentLifetimeMs).toISOString() });
  const id = (created.data as { id?: unknown } | undefined)?.id;
  if (created.status !== 201 || typeof id !== 'string') throw new Error(`creating an ott enrollment for ${demoClientName}: HTTP ${created.status} ${created.text}`);
  const detail = await api.request('GET', `/enrollments/${id}`);
  const jwt = (detail.data as { jwt?: unknown } | undefined)?.jwt;
  if (detail.status !== 200 || typeof jwt !== 'string') throw new Error(`reading enrollment ${id}: HTTP ${detail.status} ${detail.text}`);
  return jwt;
}

async function expectStatus(api: ManagementApi, method: string, path: string, what: string): Promise<void> {
  const answer = await api.request(method, path);
  if (answer.status !== 200 && answer.status !== 404) throw new Error(`${what}: HTTP ${answer.status} ${answer.text}`);
}
