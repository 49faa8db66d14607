// The `edge` commands over the Management API's read-only views: `list summary`, the relationship lists
// (`list identity services alice`) and `policy-advisor identities|services`. Their parse (words in, what to run or
// what is wrong) and their run (a client in, text out).
import { flagHelp, type FlagDef, type ParsedFlags } from './edge-args.ts';
import { kindNamed, type Column } from './edge-entities.ts';
import { renderData, renderList, renderTable, type OutputFormat } from './edge-output.ts';
import { resolveEntityId } from './entity-lookup.ts';
import type { ManagementClient } from './management-client.ts';
import { adviceLines, noIdentitiesForService, noServicesForIdentity, unrelatedLines, type Advice } from './policy-advisor.ts';
import { relatedListOf, relatedListPath, relatedLists, type RelatedList } from './related-lists.ts';
import type { SubcommandInfo } from '../../../common/cli/command-line.ts';
import type { EdgeIo } from './edge-command.ts';

export type ListExtra = { readonly kind: 'summary' } | { readonly kind: 'related'; readonly list: RelatedList };

interface ExtraParse<T> {
  readonly command: string;
  readonly words: string[];
  readonly flags: readonly FlagDef[];
  /** What is wrong with the parsed arguments, if anything. */
  readonly check: (parsed: ParsedFlags) => string | undefined;
  readonly extra: T;
}

/** `list summary` or a relationship list; undefined when the words name an ordinary list. */
export function parseListExtra(words: readonly string[], flags: { list: readonly FlagDef[]; single: readonly FlagDef[] }): ExtraParse<ListExtra> | undefined {
  if (words[0] === 'summary') {
    return {
      command: 'edge list summary',
      words: words.slice(1),
      flags: flags.single,
      check: (parsed) => (parsed.positional.length > 0 ? `list summary takes no arguments, not: ${parsed.positional.join(' ')}` : undefined),
      extra: { kind: 'summary' },
    };
  }
  const related = relatedListOf(words);
  if (!related) return undefined;
  const { owner, related: kind } = related.list;
  return {
    command: `edge list ${owner.name} ${kind.plural}`,
    words: related.rest,
    flags: flags.list,
    check: (parsed) => {
      if (parsed.positional.length === 0) return `list ${owner.name} ${kind.plural} takes the name or id of one ${owner.title}`;
      if (parsed.positional.length > 2) return `list ${owner.name} ${kind.plural} takes one ${owner.title} and one filter, not: ${parsed.positional.join(' ')}`;
      const limit = parsed.integer('limit');
      return limit !== undefined && limit < 1 ? '--limit takes a number of at least 1' : undefined;
    },
    extra: { kind: 'related', list: related.list },
  };
}

export function listExtraUsage(extra: ListExtra, flags: readonly FlagDef[]): string {
  if (extra.kind === 'summary') {
    return `Usage: edgeward edge list summary [--json | --yaml]

Counts the entities of each kind (GET /summary): identities, services, service policies, sessions, ...

Flags:
${flagHelp(flags)}`;
  }
  const { owner, related } = extra.list;
  return `Usage: edgeward edge list ${owner.name} ${related.plural} <${owner.title} name or id> ['<filter>'] [--json | --yaml] [--limit <n>]

Lists the ${related.plural} related to one ${owner.title} (GET ${owner.path}/{id}/${related.plural}), filtered with the
API's ZitiQL filter. 'list ${owner.name} <name or id> ${related.plural}' is the same command.
Columns: ${related.columns.map((column) => column.title).join(', ')}; --json and --yaml print every field.

Relationship lists: ${relatedLists.map((list) => `${list.owner.name} ${list.related.plural}`).join(', ')}.

Flags:
${flagHelp(flags)}`;
}

const summaryColumns: readonly Column[] = [
  { title: 'ENTITY TYPE', value: (row) => row.kind },
  { title: 'COUNT', value: (row) => row.count },
];

export async function runListExtra(extra: ListExtra, parsed: ParsedFlags, format: OutputFormat, io: EdgeIo, client: ManagementClient): Promise<number> {
  if (extra.kind === 'summary') {
    const counts = await client.get('/summary');
    const rows = Object.keys(counts).sort().map((kind) => ({ kind, count: counts[kind] }));
    io.stdout(format === 'table' ? renderTable(summaryColumns, rows) : renderData(counts, format));
    return 0;
  }
  const [reference, filter] = parsed.positional as [string, string | undefined];
  const ownerId = await resolveEntityId(client, extra.list.owner, reference);
  const result = await client.list(relatedListPath(extra.list, ownerId), filter, parsed.integer('limit'));
  io.stdout(format === 'table' ? renderList(extra.list.related.columns, result.items, result.totalCount, result.offset) : renderData(result.items, format));
  return 0;
}

// ---------------------------------------------------------------------------------------------------------------

const quietFlag: FlagDef = { name: 'quiet', short: 'q', kind: 'boolean', help: 'print only the pairs in error' };

export function policyAdvisorUsage(commonFlags: readonly FlagDef[]): string {
  return `Usage: edgeward edge policy-advisor identities [<identity>] [<service>] [-q]
       edgeward edge policy-advisor services [<service>] [<identity>] [-q]

For each identity and each service it may use (or each service and each identity that may use it), asks the
controller's policy advice (GET /identities/{id}/policy-advice/{serviceId}) and prints one entry:

  STATUS: IDENTITY (IDENTITY ROUTERS) -> SERVICE (SERVICE ROUTERS) Common Routers: (ONLINE/COMMON) Dial: Y|N Bind: Y|N

STATUS is OKAY, or ERROR followed by what to adjust ('  - ...' lines). An identity no service policy grants any
service (a service no identity may use) is one ERROR entry. Names or ids narrow the walk to one identity or service,
or one pair.

Flags:
${flagHelp([quietFlag, ...commonFlags])}`;
}

export function parsePolicyAdvisor(words: readonly string[], commonFlags: readonly FlagDef[]): ExtraParse<undefined> | string {
  const [subject, ...rest] = words;
  if (subject !== 'identities' && subject !== 'services') return subject === undefined ? 'policy-advisor takes identities or services' : `unknown policy-advisor subject '${subject}': identities or services`;
  return {
    command: `edge policy-advisor ${subject}`,
    words: [subject, ...rest],
    flags: [quietFlag, ...commonFlags],
    check: (parsed) => (parsed.positional.length > 3 ? `policy-advisor ${subject} takes at most two names, not: ${parsed.positional.slice(1).join(' ')}` : undefined),
    extra: undefined,
  };
}

export async function runPolicyAdvisor(parsed: ParsedFlags, io: EdgeIo, client: ManagementClient): Promise<number> {
  const [subject, first, second] = parsed.positional as ['identities' | 'services', string | undefined, string | undefined];
  const quiet = parsed.bool('quiet') === true;
  const identity = kindNamed('identity');
  const service = kindNamed('service');
  const [own, other] = subject === 'identities' ? [identity, service] : [service, identity];
  const owners = first !== undefined ? [await client.get(`${own.path}/${encodeURIComponent(await resolveEntityId(client, own, first))}`)] : (await client.list(own.path, undefined)).items;
  if (owners.length === 0) io.stdout(`No ${own.plural} found\n`);
  for (const owner of owners) {
    const ownerId = String(owner.id);
    const partners = second !== undefined ? [{ id: await resolveEntityId(client, other, second) }] : (await client.list(`${own.path}/${encodeURIComponent(ownerId)}/${other.plural}`, undefined)).items;
    if (partners.length === 0) {
      io.stdout(unrelatedLines(String(owner.name), subject === 'identities' ? noServicesForIdentity : noIdentitiesForService));
      continue;
    }
    for (const partner of partners) {
      const [identityId, serviceId] = subject === 'identities' ? [ownerId, String(partner.id)] : [String(partner.id), ownerId];
      const advice = (await client.get(`/identities/${encodeURIComponent(identityId)}/policy-advice/${encodeURIComponent(serviceId)}`)) as unknown as Advice;
      io.stdout(adviceLines(advice, quiet));
    }
  }
  return 0;
}

/** The subcommands these add to `edge`, for the tests that walk the command tree. */
export function listExtraSubcommands(): SubcommandInfo[] {
  return [
    { path: ['list', 'summary'], example: ['--json'], needsArguments: false },
    ...relatedLists.map((list) => ({ path: ['list', list.owner.name, list.related.plural], example: ['x', 'name contains "a"'], needsArguments: true })),
    { path: ['policy-advisor'], example: [], needsArguments: true },
    { path: ['policy-advisor', 'identities'], example: ['alice', 'web', '-q'], needsArguments: false },
    { path: ['policy-advisor', 'services'], example: ['web'], needsArguments: false },
  ];
}
