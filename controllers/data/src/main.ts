// The Metal3Data / Metal3DataTemplate controller process (entry.ts says what it runs).
import { runMain } from '@metal3-ts/shared/entry/run-main';
import { dataEntry } from './entry.ts';

await runMain(dataEntry);
