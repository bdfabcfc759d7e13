/**
 * patchgate's public API. The library never touches `process`: pass the
 * environment and an AbortSignal in, get a scorecard back.
 */
export type { ReasonCode } from './codes.js';
export { REASON_CODES } from './codes.js';
export { codeownersSnippet } from './config/codeowners.js';
export { type Detection, detectFixtureRoots, detectTests, type TestsDetection } from './config/detect.js';
export { CONFIG_FILE_NAMES, loadConfig } from './config/load.js';
export {
  configSchema,
  defineConfig,
  type PatchgateConfig,
  type PatchgateConfigInput,
} from './config/schema.js';
export { type ContractSchema, installedSchemaRef, jsonSchemaDocument } from './config/schema-files.js';
export { type Claim, type ClaimMatrix, parseClaimMatrix } from './contracts/claim-matrix.js';
export { ALL_JSON_SCHEMAS } from './contracts/json-schemas.js';
export { parseTape, readTape, type Tape, type TapeRow, type TapeSeed } from './contracts/seed-tape.js';
export {
  type CheckedFile,
  type ValidateOptions,
  type ValidationResult,
  validateContracts,
} from './contracts/validate.js';
export { ContractFileError, InputError, InternalError, PatchgateError, type Problem } from './errors.js';
export {
  type ClaimLedger,
  type ClaimLedgerEntry,
  parseClaimLedger,
  readClaimLedger,
  recordRun,
  reopenEntry,
} from './freeze/claim-ledger.js';
export type { AuthorRole, PatchAuthor, PatchIdentity } from './git/authors.js';
export type { Change, ChangeKind } from './git/changes.js';
export { MIGRATIONS, type Migration, migrate, SCHEMA_VERSION } from './history/migrations.js';
export {
  type AgentRecord,
  agentRecords,
  type FileDurations,
  type FlakyTest,
  fileDurations,
  flakyTests,
  type HistoryScope,
  type RejectionCount,
  rejectionsByCode,
  runCounts,
  type SlowTest,
  slowestTests,
} from './history/queries.js';
export { repositoryKey, repositoryKeyOf } from './history/repository.js';
export {
  foldTestRuns,
  type HistoryFinding,
  type HistoryOutcome,
  type HistoryRun,
  type HistorySide,
  runFromCheck,
  runFromRecord,
  type SideRun,
  type TestResult,
  TRUSTED_SIDES,
} from './history/run.js';
export type { Dialect, SqlDb, SqlQueryable, SqlRow, SqlValue } from './history/sql.js';
export {
  DATABASE_URL_VARIABLE,
  guardSqliteLocation,
  HISTORY_FILE,
  type HistoryLocation,
  historyLocation,
  openHistory,
} from './history/store.js';
export { writeRun } from './history/write.js';
export { canonicalDigest, pythonCanonicalJson } from './json/python-dumps.js';
export { JUnitParseError, parseJUnit, parseJUnitFile } from './junit/index.js';
export type { JUnitReport, TestOutcome, TestStatus } from './junit/model.js';
export { lintStatement, type StatementProblem } from './layers/claims/statement-lint.js';
export { type Candidate, type Suggestion, suggestClaims } from './layers/claims/suggest/candidates.js';
export { digestTree } from './layers/fixtures/digest-tree.js';
export { diffFixture, type FixtureDiff, type ValueChange } from './layers/fixtures/fixture-diff.js';
export { relockFixtures } from './layers/fixtures/relock.js';
export {
  type BrandedProperty,
  defineProperty,
  definitionsOf,
  isPropertyDefinition,
  type PropertyDefinition,
} from './layers/hits/define-property.js';
export type { HitReportRow, PropertyInfo, Status } from './layers/hits/model.js';
export {
  type BrandedSeedProperty,
  defineSeedProperty,
  isSeedProperty,
  type SeedPropertyDefinition,
} from './layers/seeds/define-seed-property.js';
export type { ExampleCount, ReplayStatus, SeedReplay } from './layers/seeds/model.js';
export { type ReplayTapeOptions, replayTape, type TapeReplay } from './layers/seeds/replay-tape.js';
export {
  type ArtifactMerge,
  agreed,
  byUnit,
  type MergeContext,
  ShardDisagreement,
  type ShardMerge,
} from './layers/shard-merge.js';
export type {
  Artifact,
  Evidence,
  Finding,
  FrozenItem,
  Layer,
  LayerContext,
  LayerOutcome,
  Override,
  PropertyProof,
  Severity,
} from './layers/types.js';
export {
  type Clock,
  type GateHooks,
  type GateTestRun,
  LAYERS,
  mergeShards,
  type RunGateOptions,
  type RunShardOptions,
  runGate,
  runShard,
} from './pipeline.js';
export { renderMarkdown } from './report/markdown.js';
export type {
  LayerStatus,
  LayerSummary,
  MergedShards,
  Scorecard,
  ShardOfRun,
  Verdict,
} from './report/scorecard.js';
export { stableStringify } from './report/stable-json.js';
export { renderTerminal } from './report/terminal.js';
export {
  MAX_SHARDS,
  parseShardSpec,
  type RecordedDurations,
  ShardSlice,
  type ShardSpec,
  type TestFilePlan,
} from './shard/plan.js';
export { normalizeMessage, type SignatureScheme } from './signatures/normalize.js';
export { failureSignature } from './signatures/signature.js';
export type { MergeResult, SourcedPart } from './steps/merge-parts.js';
export { type LayerPart, parseShardPart, SHARD_PART_SCHEMA, type ShardPart } from './steps/shard-part.js';
export type { DurationSource, ShardRequest } from './steps/shard-plan.js';
