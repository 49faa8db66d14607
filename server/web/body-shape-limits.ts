// How much structure one request body may hold besides its bytes (web[].options.maxBodyBytes): how deep its objects
// and arrays nest and how many keys and items it has in all. No request of either Edge API needs more than a few
// levels or a few thousand members (the longest lists the schemas take are 1,000 role attributes each); what is
// deeper or wider is refused before it is parsed, so it never reaches the schema checks, the raft log's encoder or
// anything else that walks a value by recursion. docs/api-reference.md names both limits.
import type { JsonShapeLimits } from '../../common/json/json-shape.ts';

export const bodyShapeLimits: JsonShapeLimits = { maxDepth: 64, maxMembers: 10_000 };
