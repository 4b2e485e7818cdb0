// The Metal3Machine controller process (entry.ts says what it runs).
import { runMain } from '@metal3-ts/shared/entry/run-main';
import { machineEntry } from './entry.ts';

await runMain(machineEntry);
