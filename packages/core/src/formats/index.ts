// The schema's formats as predicates; the parsers and checks behind them stay inside core (the
// other packages import the few they use from @netpolicy/core/internal).
export { isIpv4OrPrefix, isIpOrPrefix } from './ip';
export { isRepositoryPattern, matchRepositoryPattern } from './repository-pattern';
export { isHostPattern, matchHostPattern } from './host-pattern';
import { isIpOrPrefix, isIpv4OrPrefix } from './ip';
import { isRepositoryPattern } from './repository-pattern';

/**
 * The custom formats of the policy schema, as Ajv takes them (`new Ajv({ formats: ajvFormats })`).
 * @public
 */
export const ajvFormats = {
  'ip-or-prefix': isIpOrPrefix,
  'ipv4-or-prefix': isIpv4OrPrefix,
  'repository-pattern': isRepositoryPattern,
};
