// The converter the process serves: the API's conversion rules (src/convert/, pure functions per
// kind) behind the server's one seam. A ConversionError from the rules becomes the ConversionFailure
// the server answers with, so the apiserver's error names the field a user has to fix.
import type { KubeObject } from '@metal3-ts/generated';
import { ConversionError, convertObject } from './convert/index.ts';
import { ConversionFailure, type Converter, type ConvertibleObject } from './converter.ts';

export const converter: Converter = (object, desiredAPIVersion) => {
  try {
    return convertObject(object as KubeObject, desiredAPIVersion) as ConvertibleObject;
  } catch (e) {
    if (e instanceof ConversionError) throw new ConversionFailure(e.reason, e.field || undefined);
    throw e;
  }
};
