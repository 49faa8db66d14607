// A new connection on the control port, watched until its first whole frame (the hello): cut off, with the reason,
// when that frame is over the hello limits (ctrl.options.maxHelloBytes, a shallow structure) or has not arrived
// within helloTimeoutMs. The channel that owns the socket (a peer's or a router's) reads the same bytes itself; a
// connection cut off here is destroyed before that channel sees the offending frame.
import type { TLSSocket } from 'node:tls';
import { FrameDecoder } from '../../common/framing/frame-codec.ts';
import { helloFrameLimits } from '../../common/framing/frame-limits.ts';
import type { ControlPortLimits } from './control-port-limits.ts';

export function guardFirstFrame(socket: TLSSocket, limits: Pick<ControlPortLimits, 'helloTimeoutMs' | 'maxHelloBytes'>, cutOff: (reason: string) => void): void {
  const decoder = new FrameDecoder(undefined, helloFrameLimits(limits.maxHelloBytes));
  const done = () => {
    clearTimeout(timer);
    socket.off('data', onData);
    socket.off('close', done);
  };
  const fail = (reason: string) => {
    done();
    socket.destroy();
    cutOff(reason);
  };
  const onData = (chunk: Buffer) => {
    decoder.append(chunk);
    try {
      if (decoder.next() !== undefined) done();
    } catch (error) {
      fail(`first frame refused: ${(error as Error).message}`);
    }
  };
  const timer = setTimeout(() => fail(`no hello within ${limits.helloTimeoutMs} ms (ctrl.options.helloTimeout)`), limits.helloTimeoutMs);
  timer.unref();
  socket.on('data', onData);
  socket.once('close', done);
}
