// The all-in-one controller process (entry.ts says what it runs).
import { runMain } from '@metal3-ts/shared/entry/run-main';
import { allInOneEntry } from './entry.ts';

await runMain(allInOneEntry);
