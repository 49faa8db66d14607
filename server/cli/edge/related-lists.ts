// `edgeward edge list <entity> <related> <name or id> ['<filter>']`: the Management API's relationship lists
// (`/identities/{id}/services`, ...) in `ziti edge`'s grammar (`ziti edge list identity services alice`). The order
// `list identity alice services` is read the same way. Each relation is one row of the table below. Pure.
import { entityKind, kindNamed, type EntityKind } from './edge-entities.ts';

export interface RelatedList {
  readonly owner: EntityKind;
  /** The related entities' kind: their columns, and the path's last segment (its plural). */
  readonly related: EntityKind;
}

/** owner → the related kinds its relationship lists name. Edge router policies add their relations here. */
const relations: ReadonlyArray<readonly [owner: string, related: readonly string[]]> = [
  ['identity', ['service', 'service-policy']],
  ['service', ['identity', 'service-policy', 'config']],
  ['service-policy', ['identity', 'service', 'posture-check']],
  ['config', ['service']],
  ['config-type', ['config']],
];

export const relatedLists: readonly RelatedList[] = relations.flatMap(([owner, related]) => related.map((kind) => ({ owner: kindNamed(owner), related: kindNamed(kind) })));

/** The API path of the list for the owner with this id. */
export const relatedListPath = (list: RelatedList, ownerId: string) => `${list.owner.path}/${encodeURIComponent(ownerId)}/${list.related.plural}`;

function relationNamed(owner: EntityKind, word: string | undefined): RelatedList | undefined {
  if (word === undefined) return undefined;
  const related = entityKind(word);
  return related ? relatedLists.find((list) => list.owner === owner && list.related === related) : undefined;
}

/**
 * The relationship list `list` words name (the words after `list`), and the words left for the flags (the owner's name
 * or id first); undefined when they name an ordinary list.
 */
export function relatedListOf(words: readonly string[]): { list: RelatedList; rest: string[] } | undefined {
  const [first, second, third] = words;
  const owner = first === undefined ? undefined : entityKind(first);
  if (!owner) return undefined;
  const named = relationNamed(owner, second);
  if (named) return { list: named, rest: words.slice(2) };
  if (second !== undefined && !second.startsWith('-')) {
    const after = relationNamed(owner, third);
    if (after) return { list: after, rest: [second, ...words.slice(3)] };
  }
  return undefined;
}
