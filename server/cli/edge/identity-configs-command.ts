// `edgeward edge update identity-configs <identity> <service> <config> [-r|--remove]`: for one identity, use this
// config for this service in place of the service's config of that type (`POST /identities/{id}/service-configs`),
// or stop doing so (`--remove`: `DELETE` with the same pair), in `ziti edge update identity-configs`'s grammar; and
// `edgeward edge list identity service-configs <identity>`, the identity's pairs, as ziti's sub-list. Names are
// looked up as everywhere in `edge` (id:<id> gives an id).
import { flagHelp, type FlagDef, type ParsedFlags } from './edge-args.ts';
import { kindNamed, type Column } from './edge-entities.ts';
import type { EdgeIo } from './edge-command.ts';
import { renderData, renderList, type OutputFormat } from './edge-output.ts';
import { resolveEntityId } from './entity-lookup.ts';
import type { ManagementClient } from './management-client.ts';

/** The word after `update` that names this command. */
export const identityConfigsWord = 'identity-configs';

export const identityConfigsOwnFlags: readonly FlagDef[] = [{ name: 'remove', short: 'r', kind: 'boolean', help: "stop using the config for the identity (the service's own config of that type applies again)" }];

export function identityConfigsUsage(otherFlags: readonly FlagDef[]): string {
  return `Usage: edgeward edge update identity-configs <identity> <service> <config> [-r|--remove] [flags]

For the identity, use the config for the service: the identity's service list shows it in place of the service's
own config of the same type (other identities are not affected). An identity has one config of each type per
service: another config of that type replaces the first. --remove takes the pair off again.

Flags:
${flagHelp([...identityConfigsOwnFlags, ...otherFlags])}`;
}

/** What is wrong with the words of the command line, if anything. */
export function identityConfigsArgumentProblem(parsed: ParsedFlags): string | undefined {
  const count = parsed.positional.length;
  return count === 3 ? undefined : `update identity-configs takes <identity> <service> <config>${count > 0 ? `, not: ${parsed.positional.join(' ')}` : ''}`;
}

export async function runIdentityConfigs(parsed: ParsedFlags, format: OutputFormat, io: EdgeIo, client: ManagementClient): Promise<number> {
  const [identityRef, serviceRef, configRef] = parsed.positional as [string, string, string];
  const identityId = await resolveEntityId(client, kindNamed('identity'), identityRef);
  const serviceId = await resolveEntityId(client, kindNamed('service'), serviceRef);
  const configId = await resolveEntityId(client, kindNamed('config'), configRef);
  const remove = parsed.bool('remove');
  const answer = await client.call(remove ? 'DELETE' : 'POST', `/identities/${encodeURIComponent(identityId)}/service-configs`, { body: [{ serviceId, configId }] });
  if (format !== 'table') io.stdout(renderData(answer.data ?? {}, format));
  else io.stdout(remove ? `Identity ${identityRef} no longer uses config ${configRef} for service ${serviceRef}\n` : `Identity ${identityRef} now uses config ${configRef} for service ${serviceRef}\n`);
  return 0;
}

/** The words after `list` that name the identity's service-config list: `identity service-configs <identity>` (or
 * `identity <identity> service-configs`); the words left for the flags, the identity first. */
export function identityServiceConfigListWords(words: readonly string[]): string[] | undefined {
  const [owner, second, third] = words;
  if (owner !== 'identity' && owner !== 'identities') return undefined;
  if (second === 'service-configs') return words.slice(2);
  if (second !== undefined && !second.startsWith('-') && third === 'service-configs') return [second, ...words.slice(3)];
  return undefined;
}

export function identityServiceConfigListUsage(flags: readonly FlagDef[]): string {
  return `Usage: edgeward edge list identity service-configs <identity name or id> [--json | --yaml]

Lists the configs the identity uses for services in place of the services' own (GET /identities/{id}/service-configs).
Columns: SERVICE NAME, CONFIG NAME; --json and --yaml print every field.

Flags:
${flagHelp(flags)}`;
}

export function identityServiceConfigListProblem(parsed: ParsedFlags): string | undefined {
  return parsed.positional.length === 1 ? undefined : `list identity service-configs takes the name or id of one identity${parsed.positional.length > 0 ? `, not: ${parsed.positional.join(' ')}` : ''}`;
}

const pairColumns: readonly Column[] = [
  { title: 'SERVICE NAME', value: (row) => (row.service as { name?: unknown } | undefined)?.name },
  { title: 'CONFIG NAME', value: (row) => (row.config as { name?: unknown } | undefined)?.name },
];

export async function runIdentityServiceConfigList(parsed: ParsedFlags, format: OutputFormat, io: EdgeIo, client: ManagementClient): Promise<number> {
  const identityId = await resolveEntityId(client, kindNamed('identity'), parsed.positional[0]!);
  const result = await client.list(`/identities/${encodeURIComponent(identityId)}/service-configs`, undefined);
  io.stdout(format === 'table' ? renderList(pairColumns, result.items, result.totalCount, result.offset) : renderData(result.items, format));
  return 0;
}
