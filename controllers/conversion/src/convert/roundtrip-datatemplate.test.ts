import { roundTripSuite } from './testing/trips.ts';

roundTripSuite(['Metal3DataTemplate']);
