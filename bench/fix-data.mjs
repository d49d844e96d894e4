// A policy for `check --fix`: `n` rules, each with one fixable finding, of several kinds and fix
// shapes (pretty-printed, as a user's file would be):
//  - insecure-url: a pypi source on http:// (replace the string),
//  - cidr-host-bits: a tcp prefix with host bits set (replace, the first of two choices),
//  - duplicate-item: a tls server name listed twice (remove an array element),
//  - wrong-type: a port written as a string "5432" (replace with the number),
//  - invalid-value: an oci operation misspelt "pul" (replace with the close match),
//  - unknown-property: a source kind misspelt "pypii" (rename the key to pypi),
//  - duplicate-rule: a copy of an earlier tls rule (remove the rule: every 50th rule).
export function policyWithFixableFindings(n) {
  const sources = [];
  const connections = [];
  for (let i = 0; i < n; i++) {
    if (i % 50 === 49 && connections.length > 0) {
      connections.push(structuredClone(connections[Math.floor(connections.length / 2)]));
      continue;
    }
    switch (i % 6) {
      case 0: sources.push({ pypi: { urls: [`http://pypi-${i}.example/simple`] } }); break;
      case 1: connections.push({ tcp: { cidrs: [`10.${(i >> 8) & 255}.${i & 255}.7/24`], ports: [5432] } }); break;
      case 2: connections.push({ tls: { serverNamePatterns: [`svc-${i}.example`, `*.svc-${i}.example`, `svc-${i}.example`], ports: [443] } }); break;
      case 3: connections.push({ tcp: { cidrs: [`10.${(i >> 8) & 255}.${i & 255}.0/24`], ports: ['5432'] } }); break;
      case 4: sources.push({ oci: { urls: [`https://registry-${i}.example`], repositoryPatterns: [`team-${i}/*`], operations: ['pul'] } }); break;
      default: sources.push({ pypii: { urls: [`https://pypi-${i}.example/simple`] } });
    }
  }
  return JSON.stringify({ default: 'deny', presets: ['pypi', 'npm'], sources, connections }, null, 2);
}
