import { readFileSync } from 'node:fs';

/** Kernel clock ticks per second of `/proc/.../stat` times (USER_HZ, 100 on Linux). */
const ticksPerSecond = 100;

/**
 * CPU time (user + system) the calling OS thread has used since it started, in milliseconds with a
 * 10 ms resolution, read from `/proc/thread-self/stat`; `undefined` where that file does not exist
 * (not Linux). Node 20 has no per-thread CPU clock for worker threads (`process.cpuUsage()` sums
 * the whole process), and the speed report needs each worker's own cost.
 */
export function threadCpuMs(): number | undefined {
  let stat: string;
  try {
    stat = readFileSync('/proc/thread-self/stat', 'utf8');
  } catch {
    return undefined;
  }
  // Fields after the command name (which may hold spaces) start at field 3: state; utime is 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const user = Number(fields[11]);
  const system = Number(fields[12]);
  return Number.isFinite(user) && Number.isFinite(system) ? ((user + system) * 1000) / ticksPerSecond : undefined;
}
