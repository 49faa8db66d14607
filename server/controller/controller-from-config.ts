// Turns a validated controller config into runtime options: reads the certificate files, takes the controller id
// from the SPIFFE id in its certificate, and reports unreadable or mismatched files as problems (never throws).
import { readFile } from 'node:fs/promises';
import type { ConfigProblem, ControllerConfig, IdentityConfig } from '../config/controller-config.ts';
import { spiffeIdOf } from '../../common/pki/spiffe-id.ts';
import { parseCertificates } from '../../common/pki/x509-runtime.ts';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import type { ControllerOptions, RaftOptions, TlsMaterial, WebListener } from './controller-options.ts';

const tlsVersion = (version: 'TLS1.2' | 'TLS1.3') => (version === 'TLS1.2' ? 'TLSv1.2' : 'TLSv1.3');

async function readIdentity(identity: IdentityConfig, path: string, problems: ConfigProblem[]): Promise<(TlsMaterial & { clientCertPem: string }) | undefined> {
  const read = async (key: keyof IdentityConfig) => {
    try {
      return await readFile(identity[key], 'utf8');
    } catch (error) {
      problems.push({ severity: 'error', path: `${path}.${key}`, rule: 'file-readable', message: `cannot read ${identity[key]}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` });
      return undefined;
    }
  };
  const [clientCertPem, clientKeyPem, certPem, keyPem, caPem] = await Promise.all([read('cert'), read('key'), read('server_cert'), read('server_key'), read('ca')]);
  if (clientCertPem === undefined || clientKeyPem === undefined || certPem === undefined || keyPem === undefined || caPem === undefined) return undefined;
  const pairs: Array<[string, string, 'cert' | 'server_cert', 'key' | 'server_key']> = [
    [clientCertPem, clientKeyPem, 'cert', 'key'],
    [certPem, keyPem, 'server_cert', 'server_key'],
  ];
  let ok = true;
  for (const [pem, key, certKey, keyKey] of pairs) {
    try {
      parseCertificates(pem, `${path}.${certKey}`);
      if (!new X509Certificate(pem).checkPrivateKey(createPrivateKey(key))) {
        problems.push({ severity: 'error', path: `${path}.${keyKey}`, rule: 'key-matches-cert', message: `the key in ${identity[keyKey]} does not belong to the certificate in ${identity[certKey]}` });
        ok = false;
      }
    } catch (error) {
      problems.push({ severity: 'error', path: `${path}.${certKey}`, rule: 'pem', message: `${identity[certKey]}: ${(error as Error).message}` });
      ok = false;
    }
  }
  try {
    parseCertificates(caPem, `${path}.ca`);
  } catch (error) {
    problems.push({ severity: 'error', path: `${path}.ca`, rule: 'pem', message: `${identity.ca}: ${(error as Error).message}` });
    ok = false;
  }
  return ok ? { certPem, keyPem, caPem, clientCertPem } : undefined;
}

export async function controllerOptionsFromConfig(config: ControllerConfig): Promise<{ options?: ControllerOptions; problems: ConfigProblem[] }> {
  const problems: ConfigProblem[] = [];
  const identity = await readIdentity(config.identity, 'identity', problems);
  let id: string | undefined;
  let trustDomain = '';
  if (identity) {
    // The controller's id is the one its identity certificate names, as its peers will see it.
    const spiffe = spiffeIdOf(identity.clientCertPem);
    if (spiffe?.kind === 'controller') {
      id = spiffe.id;
      trustDomain = spiffe.trustDomain;
    }
    else problems.push({ severity: 'error', path: 'identity.cert', rule: 'spiffe-id', message: `the certificate ${config.identity.cert} has no spiffe://<trust-domain>/controller/<id> URI SAN` });
  }
  const webs: WebListener[] = [];
  for (const [index, web] of config.web.entries()) {
    const tls = web.identity ? await readIdentity(web.identity, `web[${index}].identity`, problems) : identity;
    if (!tls) continue;
    webs.push(webListenerOf(web, tls));
  }
  const signer = config.edge.enrollment.signingCert ? await readSigningCert(config.edge.enrollment.signingCert, problems) : undefined;
  if (problems.length > 0 || id === undefined || !identity) return { problems };
  const listener = config.ctrl.listener;
  const heartbeat = config.ctrl.options.peerHeartbeatOptions;
  return {
    problems,
    options: {
      id,
      dataDir: config.cluster.dataDir,
      cluster: {
        address: tlsAddress(config.ctrl.options.advertiseAddress ?? listener),
        listen: { host: listener.host, port: listener.port },
        trustDomain,
        preferredLeader: config.cluster.preferredLeader,
        warnWhenLeaderlessForMs: config.cluster.warnWhenLeaderlessFor,
        heartbeat: { sendIntervalMs: heartbeat.sendInterval, checkIntervalMs: heartbeat.checkInterval, closeUnresponsiveTimeoutMs: heartbeat.closeUnresponsiveTimeout },
        tls: { certPem: identity.certPem, keyPem: identity.keyPem, caPem: identity.caPem },
        allowJoinRequests: config.cluster.allowJoinRequests,
        controlPort: {
          handshakeTimeoutMs: config.ctrl.options.handshakeTimeout,
          helloTimeoutMs: config.ctrl.options.helloTimeout,
          maxHelloBytes: config.ctrl.options.maxHelloBytes,
          maxConnectionsPerSource: config.ctrl.options.maxConnectionsPerSource,
        },
      },
      raft: raftOptionsFromConfig(config.cluster),
      webs,
      enrollment: { ...(signer ? { signer } : {}), identityDurationMs: config.edge.enrollment.edgeIdentity.duration, routerDurationMs: config.edge.enrollment.edgeRouter.duration },
      totp: {
        hostname: config.edge.totp.hostname,
        ...(config.edge.totp.secretKeyFile ? { secretKeyFile: config.edge.totp.secretKeyFile } : {}),
        maxFailedCodes: config.edge.totp.maxFailedCodes,
        lockoutMs: config.edge.totp.lockoutDuration,
      },
      authThrottle: {
        enabled: config.edge.authThrottle.enabled,
        windowMs: config.edge.authThrottle.window,
        maxFailuresPerAddress: config.edge.authThrottle.maxFailuresPerAddress,
        maxFailuresPerUser: config.edge.authThrottle.maxFailuresPerUser,
        maxTrackedKeys: config.edge.authThrottle.maxTrackedKeys,
      },
      passwordHashing: { concurrency: config.edge.passwordHashing.concurrency, maxQueued: config.edge.passwordHashing.maxQueued },
      extJwt: { allowPrivateJwksAddresses: config.edge.extJwt.allowPrivateJwksAddresses },
      oidc: {
        enabled: config.edge.oidc.enabled,
        accessTokenMs: config.edge.oidc.accessTokenDuration,
        refreshTokenMs: config.edge.oidc.refreshTokenDuration,
        idTokenMs: config.edge.oidc.idTokenDuration,
        keyRotationMs: config.edge.oidc.keyRotation,
      },
      sessionTimeoutMs: config.edge.api.sessionTimeout,
      activityUpdateIntervalMs: config.edge.api.activityUpdateInterval,
      activityUpdateBatchSize: config.edge.api.activityUpdateBatchSize,
      agentSocket: config.agent.socket,
      backup: { intervalMs: config.cluster.backup.interval, dir: config.cluster.backup.dir, retain: config.cluster.backup.retain },
      events: Object.entries(config.events).map(([name, handler]) => ({
        name,
        subscriptions: handler.subscriptions.map((subscription) =>
          subscription.type === 'entityChange' || subscription.type === 'apiSession'
            ? { type: subscription.type, propagateAlways: subscription.propagateAlways, include: subscription.include }
            : subscription.type === 'authentication'
              ? { type: subscription.type, include: subscription.include }
              : { type: subscription.type },
        ),
        handler:
          handler.handler.type === 'file'
            ? { type: 'file', path: handler.handler.path, maxsizemb: handler.handler.maxsizemb, maxbackups: handler.handler.maxbackups }
            : { type: 'stdout' },
      })),
    },
  };
}

/** One `web` entry as the controller serves it. */
function webListenerOf(web: ControllerConfig['web'][number], tls: TlsMaterial): WebListener {
  return {
    name: web.name,
    bindPoints: web.bindPoints.map((point) => ({ interfaceHost: point.interface.host, interfacePort: point.interface.port, address: `${point.address.host}:${point.address.port}` })),
    apis: web.apis.map((api) => api.binding),
    tls,
    maxBodyBytes: web.options.maxBodyBytes,
    idleTimeoutMs: web.options.idleTimeout,
    readTimeoutMs: web.options.readTimeout,
    writeTimeoutMs: web.options.writeTimeout,
    requestTimeoutMs: web.options.requestTimeout,
    handshakeTimeoutMs: web.options.handshakeTimeout,
    maxConnections: web.options.maxConnections,
    minTlsVersion: tlsVersion(web.options.minTLSVersion),
    maxTlsVersion: tlsVersion(web.options.maxTLSVersion),
  };
}

/** edge.enrollment.signingCert: a CA certificate (with its issuers after it) and the key that belongs to it. */
async function readSigningCert(paths: { cert: string; key: string }, problems: ConfigProblem[]): Promise<{ certPem: string; keyPem: string } | undefined> {
  const path = 'edge.enrollment.signingCert';
  let certPem: string;
  let keyPem: string;
  try {
    [certPem, keyPem] = await Promise.all([readFile(paths.cert, 'utf8'), readFile(paths.key, 'utf8')]);
  } catch (error) {
    problems.push({ severity: 'error', path, rule: 'file-readable', message: `cannot read the signing certificate or key: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` });
    return undefined;
  }
  try {
    const certificate = new X509Certificate(certPem);
    if (!certificate.ca) {
      problems.push({ severity: 'error', path: `${path}.cert`, rule: 'ca', message: `${paths.cert} is not a CA certificate (no CA:TRUE basic constraint): it cannot sign client certificates` });
      return undefined;
    }
    if (!certificate.checkPrivateKey(createPrivateKey(keyPem))) {
      problems.push({ severity: 'error', path: `${path}.key`, rule: 'key-matches-cert', message: `the key in ${paths.key} does not belong to the certificate in ${paths.cert}` });
      return undefined;
    }
    const key = createPrivateKey(keyPem);
    if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
      problems.push({ severity: 'error', path: `${path}.key`, rule: 'key-type', message: `${paths.key} must be an ECDSA P-256 key: the enrollment CA signs client certificates with ECDSA P-256 (SHA-256)` });
      return undefined;
    }
  } catch (error) {
    problems.push({ severity: 'error', path, rule: 'pem', message: `${paths.cert}: ${(error as Error).message}` });
    return undefined;
  }
  return { certPem, keyPem };
}

function tlsAddress(address: { host: string; port: number }): string {
  return `tls:${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}`;
}

/** The raft timing and snapshot policy of the `cluster` section. */
function raftOptionsFromConfig(cluster: ControllerConfig['cluster']): RaftOptions {
  return {
    electionTimeoutMs: cluster.electionTimeout,
    heartbeatTimeoutMs: cluster.heartbeatTimeout,
    commitTimeoutMs: cluster.commitTimeout,
    snapshotIntervalMs: cluster.snapshotInterval,
    snapshotThreshold: cluster.snapshotThreshold,
    trailingLogs: cluster.trailingLogs,
    snapshotLogEntries: cluster.snapshotLogEntries,
    snapshotLogBytes: cluster.snapshotLogBytes,
    ownThread: cluster.raftThread,
  };
}
