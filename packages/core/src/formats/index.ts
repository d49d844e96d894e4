export * from './ip';
export * from './repository-pattern';
export * from './host-pattern';
import { isIpOrPrefix, isIpv4OrPrefix } from './ip';
import { isRepositoryPattern } from './repository-pattern';

/** The custom formats of the policy schema, as Ajv takes them (`new Ajv({ formats: ajvFormats })`). */
export const ajvFormats = {
  'ip-or-prefix': isIpOrPrefix,
  'ipv4-or-prefix': isIpv4OrPrefix,
  'repository-pattern': isRepositoryPattern,
};
