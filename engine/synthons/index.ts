/** Public surface of engine/synthons: synthon-space format, builder, assembly and searches. */
export { parseSynthonText, fixConnectors, SynthonFormatError, type RejectedLine } from './parse.ts';
export { buildSpace, type BuildSpaceOptions, type BuildSpaceResult } from './build-space.ts';
export { runSpaceBuild, SPACE_BUILD_USAGE } from './cli.ts';
export { readManifest, type SpaceManifest, type ReactionInfo } from './format.ts';
export { assembleProduct, encodeProductId, decodeProductId } from './assemble.ts';
export {
  openSpace,
  enumerateSpace,
  tupleId,
  tupleOfId,
  tupleSmiles,
  type OpenSpace,
  type ProductTuple,
} from './space.ts';
