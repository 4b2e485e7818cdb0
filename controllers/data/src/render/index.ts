// The Metal3Data renderer: pure functions from a Metal3DataTemplate spec and
// already-fetched objects to the exact Secret contents upstream CAPM3 writes
// (research §5.3 – §5.5). No I/O.

export { defaultMetadataProviderID, metaDataMap, renderMetaData } from './metadata.ts';
export { networkDataDocument, renderNetworkData } from './networkdata.ts';
export { defaultPoolRef, isMetal3IPPool, poolsReferenced } from './pools.ts';
export { isMacAddress } from './objects.ts';
export { keyLess, sortedKeys, toYaml, type YamlValue } from './yaml.ts';
export {
  METAL3_IPAM_GROUP,
  METAL3_IPAM_POOL_KIND,
  type PoolAllocation,
  type PoolLookup,
  type PoolRef,
  type PoolRefInput,
  type RelatedHost,
  type RelatedMachine,
  type RelatedMetal3Machine,
  type RelatedObjects,
  type RenderContext,
  RenderError,
  type RenderErrorCode,
} from './types.ts';
