// edgeward's own description of one Edge API as a Swagger 2.0 document, made from the API's route table (paths,
// methods, path parameters) at the moment it is asked, so it always says what the controller serves. It names no
// request or response schema: the envelopes are described in docs/api-reference.md.
import type { RouteEntry } from './api-router.ts';

export interface SpecDocumentOptions {
  /** `edge-client` or `edge-management`. */
  readonly name: string;
  readonly title: string;
  readonly version: string;
  /** The API's prefix (`/edge/management/v1`): the document's basePath; routes outside it are left out. */
  readonly basePath: string;
}

interface Operation {
  readonly operationId: string;
  readonly tags: string[];
  readonly produces: string[];
  readonly parameters?: Array<{ name: string; in: 'path'; required: true; type: 'string' }>;
  readonly responses: Record<string, { description: string }>;
}

/** `/identities/:id` -> `/identities/{id}`; `:name` segments are path parameters. */
const templateOf = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** `get`, `/identities/{id}/authenticators` -> `getIdentitiesIdAuthenticators`: unique per method and path. */
function operationIdOf(method: string, template: string): string {
  const words = template.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return method.toLowerCase() + words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('');
}

const specialProduces: Record<string, string[]> = {
  'GET /cas/{id}/jwt': ['application/jwt'],
  'GET /.well-known/est/cacerts': ['application/pkcs7-mime'],
  'GET /current-identity/mfa/qr-code': ['image/png'],
};

export function specDocument(routes: readonly RouteEntry[], options: SpecDocumentOptions): Record<string, unknown> {
  const paths: Record<string, Record<string, Operation>> = {};
  const seen = new Set<string>();
  for (const route of routes) {
    if (!route.path.startsWith(options.basePath)) continue;
    const template = templateOf(route.path.slice(options.basePath.length)).replace(/(.)\/$/, '$1') || '/';
    const method = route.method.toLowerCase();
    if (seen.has(`${method} ${template}`)) continue;
    seen.add(`${method} ${template}`);
    const parameters = [...template.matchAll(/\{([^}]+)\}/g)].map((match) => ({ name: match[1]!, in: 'path' as const, required: true as const, type: 'string' as const }));
    const operation: Operation = {
      operationId: operationIdOf(method, template),
      tags: [template.split('/')[1] || 'root'],
      produces: specialProduces[`${route.method} ${template}`] ?? ['application/json'],
      ...(parameters.length > 0 ? { parameters } : {}),
      responses: { '200': { description: 'success, in the API envelope' }, default: { description: 'an error, in the API error envelope' } },
    };
    (paths[template] ??= {})[method] = operation;
  }
  const sorted = Object.fromEntries(Object.keys(paths).sort().map((template) => [template, paths[template]!]));
  return {
    swagger: '2.0',
    info: { title: options.title, version: options.version, description: `The ${options.name} API of this edgeward controller, generated from its route table.` },
    basePath: options.basePath,
    schemes: ['https'],
    consumes: ['application/json'],
    produces: ['application/json'],
    paths: sorted,
  };
}
