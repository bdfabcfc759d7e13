/**
 * Every contract file format, in the gate's layer order. validate, init's
 * scaffolding, the published JSON Schemas, CODEOWNERS and the layers'
 * `contractFiles` all iterate over this list; a new format is one module of
 * this folder and one line here.
 */
import { layersOn } from '../config/layers-on.js';
import type { PatchgateConfig } from '../config/schema.js';
import { claimLedgerFormat } from './claim-ledger.js';
import { claimMatrixFormat } from './claim-matrix.js';
import { fixtureDigestFormat } from './fixture-digest.js';
import { fixtureLockFormat } from './fixture-lock.js';
import { flakeLedgerFormat } from './flake-ledger.js';
import { type ContractFormat, type ContractPath, roleKey } from './format.js';
import { seedTapeFormat } from './seed-tape.js';
import { signatureFreezeFormat } from './signature-freeze.js';
import { stabilityFreezeFormat } from './stability-freeze.js';

export const CONTRACT_FORMATS: readonly ContractFormat[] = [
  fixtureLockFormat,
  fixtureDigestFormat,
  flakeLedgerFormat,
  seedTapeFormat,
  signatureFreezeFormat,
  stabilityFreezeFormat,
  claimMatrixFormat,
  claimLedgerFormat,
];

/** The format that fills `role` (`fixtures.canonical[2].digest` is `fixtures.canonical[].digest`'s). */
export function formatOfRole(role: string): ContractFormat | undefined {
  const key = roleKey(role);
  return CONTRACT_FORMATS.find((f) => f.roles.includes(key));
}

/** The contract files `config` names for `layer`, whether or not it is on: the layer's `contractFiles`. */
export function contractFilesOf(layer: string, config: PatchgateConfig): ContractPath[] {
  return CONTRACT_FORMATS.filter((f) => f.layer === layer).flatMap((f) => f.files(config));
}

/** The contract files the layers `config` turns on read, in the gate's order. */
export function contractFilesFor(config: PatchgateConfig): ContractPath[] {
  return layersOn(config).flatMap((layer) => contractFilesOf(layer, config));
}
