// The webhook process with the test's Metal3Cluster converter instead of the build's converters, for
// the latency and memory figures of latency.test.ts (the server's own cost: TLS, parsing, the review
// loop, serialising; the real converters' cost is measured by their own tests).
import { nodeProcess } from '@metal3-ts/shared/manager/signals';
import { runWebhook } from '../src/run.ts';
import { metal3ClusterConverter } from './metal3cluster-converter.ts';

nodeProcess.exit(await runWebhook({ name: 'metal3-ts-conversion-bench', converter: metal3ClusterConverter }));
