// Everything a running controller needs, already read and checked: built from the YAML config by
// controller-from-config.ts, or directly by tests.
import type { ApiBinding } from '../web/routes/version-routes.ts';
import type { EventSubscription } from '../events/event-dispatcher.ts';

export interface TlsMaterial {
  readonly certPem: string;
  readonly keyPem: string;
  readonly caPem: string;
}

export interface WebListener {
  readonly name: string;
  readonly bindPoints: ReadonlyArray<{ readonly interfaceHost: string; readonly interfacePort: number; readonly address: string }>;
  readonly apis: readonly ApiBinding[];
  readonly tls: TlsMaterial;
  readonly maxBodyBytes: number;
  readonly idleTimeoutMs: number;
  readonly readTimeoutMs: number;
  readonly writeTimeoutMs: number;
  readonly minTlsVersion: 'TLSv1.2' | 'TLSv1.3';
  readonly maxTlsVersion: 'TLSv1.2' | 'TLSv1.3';
}

export interface EventHandlerOptions {
  readonly name: string;
  readonly subscriptions: readonly EventSubscription[];
  readonly handler: { readonly type: 'file'; readonly path: string } | { readonly type: 'stdout' };
}

export interface ControllerOptions {
  readonly id: string;
  readonly dataDir: string;
  readonly webs: readonly WebListener[];
  readonly sessionTimeoutMs: number;
  readonly activityUpdateIntervalMs: number;
  readonly activityUpdateBatchSize: number;
  readonly events: readonly EventHandlerOptions[];
  readonly agentSocket: string;
}
