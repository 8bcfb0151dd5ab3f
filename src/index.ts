// The cidx library: profiles, similarity metrics, interests, and index keys.

export type { Notification } from './index/inbox.ts';
// The index node.
export { DEFAULT_SWARM, type SwarmParams } from './index/swarm.ts';
export { attributeHash } from './keys/attribute-hash.ts';
export type { LshFamily } from './keys/family.ts';
export { indexKeys } from './keys/index-keys.ts';
export { estimateJaccard, lshFamily, lshIdentifiers, lshSignature } from './keys/lsh.ts';
export {
  DEFAULT_BITS,
  DEFAULT_FAMILY,
  FAMILIES,
  type IndexParams,
  type LshParams,
  ParamsError,
  resolveIndexParams,
  resolveLshParams,
} from './keys/params.ts';
export { attributeKey, bandKey } from './keys/rehash.ts';
export {
  collisionProbability,
  DEFAULT_BAND_COST,
  evaluateLsh,
  falseNegativeArea,
  falsePositiveArea,
  integrate,
  type ResolvedTuneOptions,
  resolveTuneOptions,
  type TuneCandidate,
  type TuneOptions,
  type TuneResult,
  tuneLsh,
} from './keys/tune.ts';
// Reachability, relays and private swarms of a node's host.
export type {
  DhtMode,
  Reachability,
  ReachabilityMode,
  ReachabilityState,
} from './net/reachability.ts';
export { DEFAULT_RELAY, type RelaySettings } from './net/relay.ts';
export { newSwarmKey, parseSwarmKey, SwarmKeyError } from './net/swarm-key.ts';
export {
  DEFAULT_LIMITS,
  DEFAULT_TIMING,
  type Limits,
  type NodeOptions,
  type Timing,
} from './node/config.ts';
export type { ContactsChange } from './node/contacts-refresh.ts';
export type { ChangeResult, CreateOptions } from './node/create.ts';
export {
  NetworkError,
  NodeError,
  NotOwnerError,
  SwarmMismatchError,
  UnknownCommunityError,
} from './node/errors.ts';
export { CidxNode, type CommunityInfo, type NodeEvents, type PeersInfo } from './node/node.ts';
export type { CommunityResult, JoinOptions, JoinResult } from './node/search.ts';
export {
  type BuildOptions,
  type BuiltProfile,
  buildProfile,
  DEFAULT_FIELD_WEIGHTS,
  DEFAULT_TOP_TERMS,
  type FieldWeights,
} from './profile/build.ts';
export {
  type DocumentLanguages,
  detectLanguage,
  documentLanguages,
  type LanguageCount,
  MIN_DETECT_WORDS,
} from './profile/detect.ts';
export {
  DocumentError,
  parseDocument,
  parseJsonLines,
  type UserDocument,
} from './profile/documents.ts';
export { FieldError, ProfileError } from './profile/errors.ts';
export { type InterestOptions, interests } from './profile/interests.ts';
export {
  AUTO,
  DEFAULT_LANGUAGE,
  isLanguageCode,
  STEMMED_LANGUAGES,
} from './profile/languages.ts';
export {
  DEFAULT_MAX_ATTRIBUTES,
  DEFAULT_MAX_RELATIONS,
  MAX_ATTRIBUTE_BYTES,
  type ParseOptions,
  parseProfile,
} from './profile/parse.ts';
export { Profile, type ProfileJSON, type Relation } from './profile/profile.ts';
export { jaccard, similarity, similarityMatrix, similarityVector } from './profile/similarity.ts';
export { type AnalyzeOptions, analyze, ENGLISH_STOPWORDS, stopwordsFor } from './profile/text.ts';
