// Preloaded with --import into both servers when BENCH_CPU_PROF is set (the controller through NODE_OPTIONS, which
// refuses --cpu-prof): profiles the main thread and writes a .cpuprofile to $BENCH_CPU_PROF_FILE when it exits.
// --cpu-prof itself would also profile tsx's loader thread and, with a fixed name, let that idle profile overwrite
// the main thread's. Plain JavaScript because NODE_OPTIONS imports load before the tsx loader is registered.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { isMainThread } from 'node:worker_threads';

const file = process.env.BENCH_CPU_PROF_FILE;
if (file && isMainThread) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.start');
  // A same-thread inspector session answers synchronously, so this completes inside the 'exit' handler.
  process.once('exit', () => {
    session.post('Profiler.stop', (error, result) => {
      if (!error) writeFileSync(file, JSON.stringify(result.profile));
    });
  });
}
