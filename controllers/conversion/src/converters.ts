// The converter the process serves: the API's conversion rules (src/convert/, one pure function per
// kind, `convertObject(object, desiredAPIVersion)`). MERGE NOTE: src/convert/ lands from its own
// branch; until it does, this build refuses every conversion by name (the server, its TLS, limits and
// probes are whole without it), and this file becomes
//   export { convertObject as converter } from './convert/index.ts';
// (or wherever that branch exports convertObject from).
import { ConversionFailure, type Converter } from './converter.ts';

export const converter: Converter = (object, desiredAPIVersion) => {
  throw new ConversionFailure(
    `this build has no conversion rules for ${object.kind} (to ${desiredAPIVersion})`,
  );
};
