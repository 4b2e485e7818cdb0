// The Metal3MachineTemplate controller process (entry.ts says what it runs).
import { runMain } from '@metal3-ts/shared/entry/run-main';
import { templateEntry } from './entry.ts';

await runMain(templateEntry);
