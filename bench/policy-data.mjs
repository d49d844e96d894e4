// The policy the validate and language-server benches measure: `n` clean rules of five shapes
// (no diagnostic), pretty-printed as a user's file would be.
export function policyWithRules(n) {
  const sources = [];
  const connections = [];
  for (let i = 0; i < n; i++) {
    switch (i % 5) {
      case 0: sources.push({ pypi: { urls: [`https://pypi-${i}.example/simple`] } }); break;
      case 1: sources.push({ oci: { urls: [`https://registry-${i}.example`], repositoryPatterns: [`team-${i}/*`], operations: ['pull'] } }); break;
      case 2: sources.push({ git: { repositoryPatterns: [`org-${i}/**`], https: [{ baseUrl: `https://git-${i}.example` }], ssh: [{ host: `git-${i}.example`, port: 22, user: 'git' }] } }); break;
      case 3: connections.push({ tls: { serverNamePatterns: [`*.svc-${i}.example`], ports: [443] } }); break;
      default: connections.push({ tcp: { cidrs: [`10.${(i >> 8) & 255}.${i & 255}.0/24`], ports: [5432] } });
    }
  }
  return JSON.stringify({ default: 'deny', presets: ['pypi', 'npm'], sources, connections }, null, 2);
}

// A compact policy (`JSON.stringify` without indent, as tools write large generated policies) of `n`
// distinct rules, none covering another. `shape` 'connections' (issue 10 item 8's million: alternating
// tls server names and tcp /32 addresses, about 61 bytes a rule) or 'mixed' (the five shapes of
// `policyWithRules`: pypi and oci URLs, git over https and ssh, tls names, tcp /24 networks).
// `duplicates`: copies of that many earlier connections appended (duplicate-rule findings to place).
export function compactPolicyWithRules(n, { shape = 'connections', duplicates = 0 } = {}) {
  const sources = [];
  const connections = [];
  for (let i = 0; i < n; i++) {
    if (shape === 'mixed') {
      switch (i % 5) {
        case 0: sources.push({ pypi: { urls: [`https://pypi-${i}.example/simple`] } }); break;
        case 1: sources.push({ oci: { urls: [`https://registry-${i}.example`], repositoryPatterns: [`team-${i}/*`], operations: ['pull'] } }); break;
        case 2: sources.push({ git: { repositoryPatterns: [`org-${i}/**`], https: [{ baseUrl: `https://git-${i}.example` }], ssh: [{ host: `git-${i}.example`, port: 22, user: 'git' }] } }); break;
        case 3: connections.push({ tls: { serverNamePatterns: [`*.svc-${i}.example`], ports: [443] } }); break;
        default: connections.push({ tcp: { cidrs: [`${10 + ((i >> 16) & 15)}.${(i >> 8) & 255}.${i & 255}.0/24`], ports: [5432] } });
      }
    } else if (i % 2 === 0) connections.push({ tls: { serverNamePatterns: [`*.svc-${i}.example`], ports: [443] } });
    else connections.push({ tcp: { cidrs: [`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}/32`], ports: [5432] } });
  }
  const original = connections.length;
  for (let k = 0; k < duplicates; k++) connections.push(connections[(k * 7) % original]);
  return JSON.stringify({ default: 'deny', presets: ['pypi', 'npm'], sources, connections });
}

// Other shapes of a clean 10,000-rule policy, pretty-printed, for `check` against the peer:
// - 'one-registry': the sources share three hosts (one package index with a path per team, one
//   container registry and one Git server with a repository pattern per team), as a company's
//   own registries do; tls names under one domain, tcp /24 networks;
// - 'one-git-host': git sources over https and ssh on one host, each with its own organisation;
// - 'ipv6': the bench policy's shapes with two IPv6 prefixes per tcp rule.
export function policyOfShape(shape, n = 10000) {
  const sources = [];
  const connections = [];
  for (let i = 0; i < n; i++) {
    const k = i % 5;
    if (shape === 'one-registry') {
      if (k === 0) sources.push({ pypi: { urls: [`https://pypi.corp.example/simple/team-${i}`] } });
      else if (k === 1) sources.push({ oci: { urls: ['https://registry.corp.example'], repositoryPatterns: [`team-${i}/*`], operations: ['pull'] } });
      else if (k === 2) sources.push({ git: { repositoryPatterns: [`org-${i}/**`], https: [{ baseUrl: 'https://git.corp.example' }] } });
      else if (k === 3) connections.push({ tls: { serverNamePatterns: [`svc-${i}.corp.example`, `*.svc-${i}.corp.example`], ports: [443, 8443] } });
      else connections.push({ tcp: { cidrs: [`10.${(i >> 8) & 255}.${i & 255}.0/24`], ports: [5432] } });
    } else if (shape === 'one-git-host') {
      if (k < 3) sources.push({ git: { repositoryPatterns: [`org-${i}/**`], https: [{ baseUrl: 'https://github.com' }], ssh: [{ host: 'github.com', port: 22, user: 'git' }] } });
      else if (k === 3) connections.push({ tls: { serverNamePatterns: [`svc-${i}.corp.example`], ports: [443] } });
      else connections.push({ tcp: { cidrs: [`10.${(i >> 8) & 255}.${i & 255}.0/24`], ports: [5432] } });
    } else if (shape === 'ipv6') {
      if (k === 0) sources.push({ pypi: { urls: [`https://pypi-${i}.example/simple`] } });
      else if (k === 1) sources.push({ oci: { urls: [`https://registry-${i}.example`], repositoryPatterns: [`team-${i}/*`], operations: ['pull'] } });
      else if (k === 2) sources.push({ git: { repositoryPatterns: [`org-${i}/**`], https: [{ baseUrl: `https://git-${i}.example` }] } });
      else if (k === 3) connections.push({ tls: { serverNamePatterns: [`*.svc-${i}.example`], ports: [443] } });
      else connections.push({ tcp: { cidrs: [`fd00:${i.toString(16)}::/64`, `2001:db8:${i.toString(16)}::/48`], ports: [5432] } });
    } else throw new Error(`unknown shape ${shape}`);
  }
  return JSON.stringify({ default: 'deny', presets: ['pypi', 'npm'], sources, connections }, null, 2);
}
