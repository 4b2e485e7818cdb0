// The Metal3Cluster controller process (entry.ts says what it runs).
import { runMain } from '@metal3-ts/shared/entry/run-main';
import { clusterEntry } from './entry.ts';

await runMain(clusterEntry);
