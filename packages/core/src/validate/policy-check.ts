/**
 * The evaluator's check of the policy it is handed: a plain object that meets the policy schema,
 * else an `InputError` with the first schema diagnostic (message, code, pointer). Objects that
 * passed, here or in `validate`, are remembered by identity (a WeakSet), so a policy validated once
 * is not validated again by every `explainTrace` or `compilePolicy` (the hot path stays as it was).
 * A policy changed after it passed is not checked again, as `compilePolicy` does not compile it
 * again: build a new object instead.
 */
import { policyValidator } from '../generated/validators-policy';
import type { Policy } from '../policy/types';
import { describeValue, InputError } from './input-error';
import { translateSchemaErrors } from './schema-errors';

const schemaChecked = new WeakSet<object>();

/** Remembers a value that `policyValidator` accepted (validate calls it: no second run later). */
export function noteSchemaChecked(value: unknown): void {
  if (typeof value === 'object' && value !== null) schemaChecked.add(value);
}

/** Throws an `InputError` naming `fn` unless `policy` meets the policy schema. */
export function checkPolicy(policy: unknown, fn: string, argument = 'policy'): asserts policy is Policy {
  if (typeof policy === 'object' && policy !== null && schemaChecked.has(policy)) return;
  if (typeof policy !== 'object' || policy === null || Array.isArray(policy)) {
    throw new InputError(`${fn}: ${argument} must be a policy object, got ${describeValue(policy)}${typeof policy === 'string' ? ' (parse and check it with validate(text) first)' : ''}`, argument);
  }
  if (!policyValidator(policy)) {
    const first = translateSchemaErrors(policyValidator.errors ?? [], policy)[0];
    const where = first && first.pointer !== '' ? ` at ${first.pointer}` : '';
    throw new InputError(`${fn}: ${argument} is not a valid policy: ${first ? `${first.message}${where} (${first.code})` : 'it does not meet the policy schema'}`, argument, first ? { code: first.code, pointer: first.pointer } : {});
  }
  schemaChecked.add(policy);
}
