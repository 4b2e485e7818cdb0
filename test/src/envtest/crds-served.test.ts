// waitForCrds counts a resource as served when its LIST fails only for want of a conversion webhook
// (the real Cluster API installs its CRDs before its managers serve; objects stored at the old version
// need them), and still fails on anything else.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { servedButUnconverted } from './crds.ts';

const apiError = (code: number, message: string) => Object.assign(new Error(message), { code });
const CONVERSION = 'GET /apis/cluster.x-k8s.io/v1beta2/clusters?limit=1: 500 conversion webhook for cluster.x-k8s.io/v1beta1, Kind=Cluster failed: ' +
  'Post "https://127.0.0.1:42589/convert?timeout=30s": dial tcp 127.0.0.1:42589: connect: connection refused';

const cases: [string, unknown, boolean][] = [
  ['a conversion webhook not serving yet: served', apiError(500, CONVERSION), true],
  ['another 500: not served', apiError(500, 'GET /apis/x/v1/ys: 500 etcdserver: request timed out'), false],
  ['404 (not served at all)', apiError(404, 'GET /apis/x/v1/ys: 404 page not found'), false],
  ['a conversion message on a non-500: not served', apiError(503, CONVERSION), false],
  ['not an API error', new TypeError('fetch failed'), false],
];

for (const [title, error, served] of cases) {
  test(`servedButUnconverted: ${title}`, () => {
    if (served) servedButUnconverted(error);
    else assert.throws(() => servedButUnconverted(error));
  });
}

test.run();
