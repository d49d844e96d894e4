/**
 * @netpolicy/language-service: editor features for policy files as plain functions over a parsed
 * document (core's `parsePolicyDocument`) and LSP positions, returning LSP data types. No
 * connection, no file access: it runs in Node and in a browser worker alike.
 * @module @netpolicy/language-service
 */
export { parsePolicyDocument, type PolicyDocument } from '@netpolicy/core';
export * from './settings';
export { doValidation, policyDiagnostics, toLspDiagnostic, SOURCE, type DiagnosticPayload } from './diagnostics';
export { getCodeActions, toLspEdits, FIX_ALL_KIND } from './code-actions';
export { doComplete } from './completion';
export { doHover, describeCidr, describeHostPattern, describeUrl, describePermits, ruleSummary } from './hover';
export {
  findDocumentSymbols, documentSymbolSteps, getFoldingRanges, getSelectionRanges, format, formatSteps, runSteps, FORMAT_REFUSED, MAX_FORMAT_EDITS, findDocumentLinks,
} from './structure';
export {
  addResult, emptyUsage, traceCodeLenses, unusedRuleHints, MAX_TRACE_REFERENCES, type TraceUsage, type RuleUsage, type Denial, type TraceFileRead, type LensReferences,
} from './trace-usage';
export { carryUsage } from './usage-carry';
export { SOURCE_SKELETONS, CONNECTION_SKELETONS, snippetOf } from './skeletons';
export { offsetOf, rangeOf, pointerRange } from './ranges';
export { carryScanStates } from './location';
export {
  PRESET_SCHEME, presetAt, testPresetAt, configPathAt, catalogEntryOf, catalogNames, catalogNameAt, presetDocumentUri, presetOfDocumentUri, presetDocumentText, type NamedValue,
} from './definition';
export { testRuleOccurrences, presetRenameEdits, presetNameProblem, type PresetFileKind } from './rename';
export {
  presetOccurrences, referenceTargetAt, ruleRanges, testRuleRanges, ruleObservations, ObservationPlaces, type ReferenceTarget, type ObservationRef,
} from './references';
export { documentHighlights, MAX_HIGHLIGHTS } from './highlight';
export {
  POLICY_TEST_CODE, POLICY_TEST_BINDING_CODE, policyTestFileProblems, policyTestLensTitle, policyTestFailureDiagnostics, policyTestBindingDiagnostic, policyTestDiagnostics,
  policyTestCodeLenses, policyTestCodeActions, type PolicyTestFailure,
} from './policy-tests';
export { getInlayHints, addressCount, MAX_INLAY_HINTS, type InlayHintOptions } from './inlay-hints';
export { serviceOfPort } from './well-known-ports';
export {
  WorkspaceSymbolIndex, workspaceSymbolSteps, findWorkspaceSymbols, parseSymbolQuery, MAX_WORKSPACE_SYMBOLS, MAX_SYMBOL_QUERY_LENGTH,
  type WorkspaceSymbolFile, type WorkspaceSymbolOptions, type SymbolQuery,
} from './workspace-symbols';
