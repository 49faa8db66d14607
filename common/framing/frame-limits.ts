// The limits a controller holds the frames it receives to: from other controllers, from routers, and from anyone
// before their hello. Each must let every legitimate frame through and still bound what a hostile one costs: its
// bytes bound the buffer, its depth what recursive code (JSON.stringify, the log's encoding) does with it, and its
// keys and items in all the memory of the values parsed from it.
import { maxFrameBytes, type FrameLimits } from './frame-codec.ts';

/**
 * Controller to controller. Depth: a request body may nest 64 deep (the web edge's limit); in a raft append it
 * sits under the frame, the message, the entries array, the entry and the command, its top level being the
 * command's entity (depth 6), so it reaches depth 69; in a snapshot's first frame a row sits at depth 7 (frame,
 * message, snapshot, data, tables, table, row), 70; a forwarded proposal is shallower. 128 leaves room for
 * commands that wrap a body once more. Keys and items: an append carries at most 512 entries (raft-node.ts), each a
 * command from one body of at most 10,000 keys and items plus what the controller adds (ids, timestamps,
 * authenticators: well under 1,000) and the entry's own 4 keys and its `entryLengths` item, so at most
 * 512 x 11,005 + a few dozen = 5.64M; a snapshot part holds about 256 KiB of rows, or one larger row; the snapshot's
 * first frame holds the tables of at most 16 rows whole, about 20 tables x 16 rows x 11,000 = 3.5M; the
 * expired-session sweep holds one id per session, and 8M sessions are gigabytes of model, more than a controller
 * holds. 8 Mi (8,388,608) covers them all; at most that many values is a few hundred MB while parsed, where the
 * 256 MiB byte limit alone would let a frame of 128M one-character items through.
 */
export const peerFrameLimits: FrameLimits = { maxBytes: maxFrameBytes, maxDepth: 128, maxMembers: 8 * 1024 * 1024 };

/**
 * Router to controller: a hello, heartbeats, answers to pings and `edgeModel` requests, metrics (a few gauges per
 * link), the link list (three fields per link) and terminator creates and removes (at most 1,000 entries of two
 * short strings each: terminatorLimits, well under 3 MiB), nested at most 4 deep. 16 MiB is over 100,000 links of either;
 * one value per 16 bytes of that is 1M keys and items.
 */
export const routerFrameLimits: FrameLimits = { maxBytes: 16 * 1024 * 1024, maxDepth: 32, maxMembers: 1024 * 1024 };

/**
 * Controller to router, as the router holds them: welcomes, membership and the edge model, whose rows sit at depth 5
 * (frame, model, table, row, field) with a body's nesting below; the edge model of a large network runs to many MB.
 * The same bounds as between controllers.
 */
export const controllerToRouterFrameLimits: FrameLimits = peerFrameLimits;

/**
 * Router to router over a link: hellos, heartbeats and link control messages, a few keys each, nested at most 3
 * deep. 16 MiB, depth 32 and 1M keys and items leave room for what links carry later and still bound a hostile peer.
 */
export const linkFrameLimits: FrameLimits = { maxBytes: 16 * 1024 * 1024, maxDepth: 32, maxMembers: 1024 * 1024 };

/** The first frame on the control port, before anyone is known (`ctrl.options.maxHelloBytes`). */
export const defaultMaxHelloBytes = 8 * 1024;

/**
 * A hello: a controller's is an id, an address, a version and a flag; a router's adds its link listeners and edge
 * listeners, 4 deep. The bytes bound the count; 16 levels is more than any hello nests.
 */
export function helloFrameLimits(maxBytes: number): FrameLimits {
  return { maxBytes, maxDepth: 16, maxMembers: maxBytes };
}
