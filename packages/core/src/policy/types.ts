/** Types of the network policy document (the service's "Network policy document"; schemas/network-policy.schema.json). */
import { BUILTIN_PRESET_NAMES } from '../generated/data';

/**
 * What happens to an access that no rule permits (`Policy.default`; absent means `deny`).
 * @public
 */
export type DefaultAction = 'deny' | 'allow';

/**
 * The source kinds that are plain HTTP registries: each takes `{ urls }` (`HttpSource`).
 * @public
 */
export const HTTP_SOURCE_KINDS = ['pypi', 'npm', 'rubygems', 'apk', 'golang', 'nix'] as const;
/**
 * The key of an HTTP registry source, such as `npm`.
 * @public
 */
export type HttpSourceKind = (typeof HTTP_SOURCE_KINDS)[number];
/**
 * Every kind of software source, in the order the schema lists them: a `Source` has exactly one of these keys.
 * @public
 */
export const SOURCE_KINDS = [...HTTP_SOURCE_KINDS, 'oci', 'git', 'apt', 'cargo'] as const;
/**
 * The key of a software source, such as `npm` or `oci`.
 * @public
 */
export type SourceKind = (typeof SOURCE_KINDS)[number];
/**
 * Every kind of raw connection: a `Connection` has exactly one of these keys.
 * @public
 */
export const CONNECTION_KINDS = ['tls', 'tcp', 'udp', 'icmp'] as const;
/**
 * The key of a raw connection, such as `tls`.
 * @public
 */
export type ConnectionKind = (typeof CONNECTION_KINDS)[number];

/**
 * Names of the built-in presets, generated at build time from schemas/presets.json (the one list).
 * @public
 */
export const PRESET_NAMES = BUILTIN_PRESET_NAMES;
/**
 * A built-in preset name. A user catalog may add others (see `PresetCatalog`): `Policy.presets` takes any string.
 * @public
 */
export type PresetName = (typeof PRESET_NAMES)[number];

/**
 * An HTTP registry (pypi, npm, rubygems, apk, golang, nix): the URLs it serves from. A URL covers
 * requests to its scheme, host and port whose path starts with its path at a `/` boundary.
 * @public
 */
export interface HttpSource { urls: string[] }
/**
 * A registry operation: `pull` (GET, HEAD), `push` (POST, PUT, PATCH), `delete` (DELETE).
 * @public
 */
export type OciOperation = 'pull' | 'push' | 'delete';
/**
 * An OCI (container) registry: its URLs, the repositories it may be used for (absent: any) and the operations allowed.
 * @public
 */
export interface OciSource { urls: string[]; repositoryPatterns?: string[]; operations: OciOperation[] }
/**
 * An SSH transport of a Git server; `user`, when given, must equal the user of the command.
 * @public
 */
export interface SshTransport { host: string; port: number; user?: string; upstreamKnownHosts?: string[] }
/**
 * A Git server over smart HTTPS and/or SSH (at least one), for the repositories its patterns name (absent: any).
 * @public
 */
export interface GitSource { repositoryPatterns?: string[]; https?: { baseUrl: string }[]; ssh?: SshTransport[] }
/**
 * An APT repository; `purlNamespace` is the distribution's package-URL namespace (such as `debian`), naming the packages it serves.
 * @public
 */
export interface AptSource { urls: string[]; purlNamespace?: string }
/**
 * A Cargo registry: its sparse index and the URL crates are downloaded from.
 * @public
 */
export interface CargoSource { indexUrl: string; downloadUrl: string }

/**
 * A software source the job may use: an object with exactly one key of `SOURCE_KINDS`.
 * @public
 */
export type Source =
  | { pypi: HttpSource } | { npm: HttpSource } | { rubygems: HttpSource } | { apk: HttpSource }
  | { golang: HttpSource } | { nix: HttpSource } | { oci: OciSource } | { git: GitSource }
  | { apt: AptSource } | { cargo: CargoSource };

/**
 * TLS connections by server name (SNI) and/or address, on the given ports (at least one of
 * `serverNamePatterns`, `cidrs`); `alpn`, when not empty, must share a protocol with the handshake's offer.
 * @public
 */
export interface TlsConnection { serverNamePatterns?: string[]; cidrs?: string[]; ports: number[]; alpn?: string[] }
/**
 * TCP connections by host name and/or address (at least one); `ports` absent or empty means any port.
 * @public
 */
export interface TcpConnection { hostPatterns?: string[]; cidrs?: string[]; ports?: number[] }
/**
 * UDP traffic to IPv4 addresses or prefixes, on the given ports (absent: any).
 * @public
 */
export interface UdpConnection { cidrs: string[]; ports?: number[] }
/**
 * ICMP traffic to IPv4 addresses or prefixes.
 * @public
 */
export interface IcmpConnection { cidrs: string[] }

/**
 * A raw connection the job may make: an object with exactly one key of `CONNECTION_KINDS`.
 * @public
 */
export type Connection =
  | { tls: TlsConnection } | { tcp: TcpConnection } | { udp: UdpConnection } | { icmp: IcmpConnection };

/**
 * A network policy document: which network accesses a CI job may make. `presets` absent enables
 * every preset of the catalog; an empty list enables none.
 * @public
 */
export interface Policy {
  /** What happens to an access that no rule permits (absent: `deny`). */
  default?: DefaultAction;
  /** Preset names of the catalog in force (the built-in names, or those a user catalog adds). */
  presets?: Array<PresetName | (string & {})>;
  sources?: Source[];
  connections?: Connection[];
}
