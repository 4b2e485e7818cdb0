import { roundTripSuite } from './testing/trips.ts';

roundTripSuite(['Metal3Cluster', 'Metal3ClusterTemplate', 'Metal3Machine', 'Metal3MachineTemplate']);
