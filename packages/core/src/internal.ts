/**
 * Core's helpers that the other netpolicy packages share (the language service, the language
 * server, the client, the CLI and the extension), kept out of the public entry. Not documented,
 * not covered by semver: every export is `@internal` and may change in any release. Import the
 * public API from `@netpolicy/core`.
 * @module @netpolicy/core/internal
 * @internal
 */
export { MAX_DEPTH } from './validate/parse';
export { Locator } from './validate/locate';
export { nodeAt, documentItemSpans, type NodeAtOffset } from './validate/document';
export type { ItemSpans } from './validate/reparse';
export { schemaAt, type SchemaFragment } from './validate/schema-at';
export { toPointer, valueAt } from './validate/pointer';
export { closingQuote } from './validate/parse';
export { closeMatches } from './validate/suggest-names';
export { appendEdit, fixChoices } from './edits/fix-edits';
export { usableGlobPatterns, type GlobPatternProblem } from './files/glob';
export { parseCidr, formatAddress, prefixSize, type ParsedCidr } from './formats/ip';
export { repositoryPatternProblem } from './formats/repository-pattern';
export { camelOf, JOB_MEMBERS, PROTOCOL_MEMBERS, REQUIRED_MEMBERS, type MemberSpec, type MemberType } from './trace/fields';
export { accessHost } from './eval/access';
export { parseUrl } from './eval/url';
export { attributeParsed } from './attribution/index-sbom';
// The evaluator's reading of rules, and whether one item permits an access (workspace symbols).
export { policyRules, itemRules } from './eval/rules';
export { anyPermits } from './eval/naive';
export { readConnection, type ConnectionRead } from './policy/rules-read';
export { ResolvedNames } from './eval/resolved-names';
export { BoundedCache } from './eval/bounded-cache';
export { clipped } from './text/escape';
export { markdownCode, markdownText } from './text/markdown';
