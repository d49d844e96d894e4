/**
 * The wire names of the network trace document (decisions.md D1), in ONE place.
 * Canonical spelling is snake_case; the reader also accepts the camelCase spelling of every name.
 * Internally every member is camelCase.
 */

/**
 * How a member's value is checked: JSON type, plus `decimal` for a decimal-string counter (kept as a string, exact).
 * @internal
 */
export type MemberType = 'string' | 'decimal' | 'integer' | 'boolean' | 'strings';

/**
 * A member of the trace document: its snake_case wire name and how its value is checked.
 * @internal
 */
export type MemberSpec = readonly [snake: string, type: MemberType];

/** The members every observation may carry, whatever its protocol. */
export const COMMON_MEMBERS: readonly MemberSpec[] = [
  ['protocol', 'string'],
  ['observed_at', 'string'],
  ['sequence', 'integer'],
];

/**
 * The members of an observation of each known protocol (besides `COMMON_MEMBERS`).
 * @internal
 */
export const PROTOCOL_MEMBERS: Readonly<Record<string, readonly MemberSpec[]>> = {
  http: [
    ['method', 'string'], ['url', 'string'], ['remote_ip', 'string'], ['status_code', 'integer'],
    ['response_body_size', 'decimal'], ['denied', 'boolean'], ['denied_reason', 'string'], ['matched_rule', 'string'],
  ],
  dns: [['resolver_ip', 'string'], ['query_name', 'string'], ['query_type', 'string'], ['answers', 'strings']],
  tcp: [
    ['allowed', 'boolean'], ['bytes_received', 'decimal'], ['bytes_sent', 'decimal'], ['denied_reason', 'string'],
    ['duration', 'string'], ['error', 'string'], ['matched_rule', 'string'], ['remote_port', 'integer'],
    ['remote_ip', 'string'], ['hostnames', 'strings'], ['alpn', 'strings'], ['server_name', 'string'],
  ],
  ssh_git: [
    ['allowed', 'boolean'], ['bytes_received_upstream', 'decimal'], ['bytes_sent_upstream', 'decimal'],
    ['denied_reason', 'string'], ['forced_shallow', 'boolean'], ['duration', 'string'], ['exit_status', 'integer'],
    ['host', 'string'], ['port', 'integer'], ['user', 'string'], ['repository_path', 'string'],
    ['git_service', 'string'], ['remote_url', 'string'], ['matched_rule', 'string'],
  ],
};

/**
 * Members an observation of a protocol must carry for the model to evaluate it.
 * @internal
 */
export const REQUIRED_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  http: ['url'],
  tcp: ['remote_port'],
  ssh_git: ['host', 'port'],
};

/** The top-level members of a trace besides `job` and `observations`. */
export const TOP_MEMBERS: readonly MemberSpec[] = [['schema_version', 'string']];

/**
 * The members of a trace's `job`.
 * @internal
 */
export const JOB_MEMBERS: readonly MemberSpec[] = [
  ['provider', 'string'], ['repository', 'string'], ['job_id', 'decimal'], ['job_name', 'string'],
  ['run_id', 'decimal'], ['run_attempt', 'integer'], ['workflow', 'string'], ['branch', 'string'],
  ['commit', 'string'], ['status', 'string'],
];

/**
 * The camelCase spelling of a snake_case wire name (`remote_ip` -> `remoteIp`), which the reader accepts too.
 * @internal
 */
export function camelOf(snake: string): string {
  return snake.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
}
