// The webhook process as the image runs it (the build's converters, src/converters.ts), under its own
// name, for the latency and memory figures of latency.test.ts: TLS, parsing, the review loop, the
// conversion rules and serialising, per object.
import { nodeProcess } from '@metal3-ts/shared/manager/signals';
import { runWebhook } from '../src/run.ts';
import { converter } from '../src/converters.ts';

nodeProcess.exit(await runWebhook({ name: 'metal3-ts-conversion-bench', converter }));
