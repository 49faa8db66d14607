// Names on the command line become ids, as `ziti edge` maps them: `alice` is looked up with the filter
// `id = "alice" or name = "alice"` (authenticators by username); exactly one match is its id. `id:<id>` names an
// entity by id without a lookup.
import type { EntityKind } from './edge-entities.ts';
import { EdgeFailure } from './edge-errors.ts';
import { zitiQlString, type ManagementClient } from './management-client.ts';

export async function resolveEntityId(client: ManagementClient, kind: EntityKind, reference: string): Promise<string> {
  if (reference.startsWith('id:') && reference.length > 3) return reference.slice(3);
  if (reference === '') throw new EdgeFailure(`an empty name names no ${kind.title}`);
  const field = kind.lookupField;
  if (!field) return reference;
  const literal = zitiQlString(reference);
  const answer = await client.call('GET', kind.path, { query: { filter: `id = ${literal} or ${field} = ${literal}`, limit: '3' } });
  const rows = Array.isArray(answer.data) ? (answer.data as Array<Record<string, unknown>>) : [];
  if (rows.length === 1) return String(rows[0]!.id);
  if (rows.length === 0) throw new EdgeFailure(`no ${kind.title} has the ${field} or id '${reference}'`);
  throw new EdgeFailure(`'${reference}' names more than one ${kind.title} (ids ${rows.map((row) => String(row.id)).join(', ')}): write id:<id> to pick one by id`);
}
