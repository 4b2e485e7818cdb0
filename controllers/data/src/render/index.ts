// The Metal3Data renderer: pure functions from a Metal3DataTemplate spec and
// already-fetched objects to the exact Secret contents upstream CAPM3 writes
// (research §5.3 – §5.5). No I/O.

export { renderMetaData, metaDataMap, defaultMetadataProviderID } from './metadata.ts';
export { renderNetworkData, networkDataDocument } from './networkdata.ts';
export { poolsReferenced, defaultPoolRef, isMetal3IPPool } from './pools.ts';
export { isMacAddress } from './objects.ts';
export { toYaml, keyLess, sortedKeys, type YamlValue } from './yaml.ts';
export {
  METAL3_IPAM_GROUP,
  METAL3_IPAM_POOL_KIND,
  RenderError,
  type PoolAllocation,
  type PoolLookup,
  type PoolRef,
  type PoolRefInput,
  type RelatedObjects,
  type RenderContext,
  type RenderErrorCode,
} from './types.ts';
