/** Public surface of engine/catalog: format, reader, builder, bundled catalogs. */
export * from './schema.ts';
export { CatalogError, type CatalogErrorCode } from './errors.ts';
export {
  openCatalog,
  readShard,
  rowRecord,
  listCatalogs,
  validateManifest,
  type Catalog,
  type ShardData,
} from './reader.ts';
export { encodeShard, sha256Hex, type ShardColumns } from './shard-writer.ts';
export {
  buildCatalog,
  type BuildCatalogOptions,
  type BuildCatalogResult,
  type AdmetPredictor,
} from './builder/build-catalog.ts';
export { runCatalogBuild, CATALOG_BUILD_USAGE, type CatalogBuildHooks } from './builder/cli.ts';
export {
  publishCatalog,
  openPublishedCatalog,
  readPublication,
  listPublishedCatalogs,
  catalogKey,
  hashFile,
  PUBLICATION_FILE,
  PUBLICATION_FORMAT,
  CATALOGS_PREFIX,
  type CatalogObjectStore,
  type Publication,
  type PublishedCatalog,
  type PublishedFile,
  type PublishOptions,
  type PublishResult,
} from './published.ts';
export {
  createShardMemoryCache,
  type CacheCounters,
  type ShardFileLease,
  type ShardFileSource,
  type ShardMemoryCache,
  type ShardMemoryCacheOptions,
  type ShardObjectRef,
} from './shard-cache.ts';
export {
  ensureBundledCatalogs,
  readBundledList,
  type BundledCatalog,
  type EnsureBundledOptions,
} from './bundled.ts';
export { splitQuoted } from './builder/input.ts';
