// The label-sync controller process (entry.ts says what it runs).
import { runMain } from '@metal3-ts/shared/entry/run-main';
import { labelSyncEntry } from './entry.ts';

await runMain(labelSyncEntry);
