// CPU time of another process, from /proc: what the benchmark reads of the processes it does not run
// itself (a bundled controller, the Cluster API managers). Linux only, as the test environment is.
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 on Linux). */
const TICKS = 100;

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat. */
export function cpuSeconds(pid: number): number {
  // The command name (field 2) may hold spaces: count from after its closing parenthesis.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}
