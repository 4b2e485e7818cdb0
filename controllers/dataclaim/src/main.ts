// The Metal3DataClaim controller process (entry.ts says what it runs).
import { runMain } from '@metal3-ts/shared/entry/run-main';
import { dataClaimEntry } from './entry.ts';

await runMain(dataClaimEntry);
