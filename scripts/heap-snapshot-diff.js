#!/usr/bin/env node
'use strict';
/**
 * What a process holds more of in one heap snapshot than in an earlier one of the same process
 * (`node scripts/heap-snapshot-diff.js before.heapsnapshot after.heapsnapshot [top]`), the way DevTools'
 * "Comparison" view counts it: objects whose id is only in the later snapshot, grouped by constructor (or by
 * kind for strings, arrays, code), with their count and self size, and for the largest groups the path from
 * the GC roots that keeps one of them alive. V8 keeps an object's id across snapshots of one process, so
 * "new" means allocated in between and still reachable (a snapshot collects garbage first).
 *
 * Snapshots: `HEAP_SNAPSHOT_DIR=/tmp/x npm run test:memory` writes one after each forced collection of the test.
 */
const { readFileSync } = require('node:fs');

function load(file) {
  const raw = JSON.parse(readFileSync(file, 'utf8'));
  const meta = raw.snapshot.meta;
  const nodeFields = meta.node_fields;
  const edgeFields = meta.edge_fields;
  const snapshot = {
    nodes: raw.nodes,
    edges: raw.edges,
    strings: raw.strings,
    nodeTypes: meta.node_types[0],
    edgeTypes: meta.edge_types[0],
    N: nodeFields.length,
    E: edgeFields.length,
    type: nodeFields.indexOf('type'),
    name: nodeFields.indexOf('name'),
    id: nodeFields.indexOf('id'),
    self: nodeFields.indexOf('self_size'),
    edgeCount: nodeFields.indexOf('edge_count'),
    edgeType: edgeFields.indexOf('type'),
    edgeName: edgeFields.indexOf('name_or_index'),
    edgeTo: edgeFields.indexOf('to_node'),
  };
  snapshot.count = snapshot.nodes.length / snapshot.N;
  // First edge of each node: edges are stored node after node.
  snapshot.firstEdge = new Uint32Array(snapshot.count + 1);
  for (let n = 0, e = 0; n < snapshot.count; n++) {
    snapshot.firstEdge[n] = e;
    e += snapshot.nodes[n * snapshot.N + snapshot.edgeCount] * snapshot.E;
    snapshot.firstEdge[n + 1] = e;
  }
  return snapshot;
}

/** A group name: the constructor for objects, the kind for strings, arrays, code and the like. */
function groupOf(s, n) {
  const type = s.nodeTypes[s.nodes[n * s.N + s.type]];
  const name = s.strings[s.nodes[n * s.N + s.name]];
  if (type === 'object' || type === 'native') return name.length > 60 ? `${name.slice(0, 60)}…` : name;
  if (type === 'closure') return '(closure)';
  if (type === 'array') return `(array ${name.slice(0, 40)})`;
  if (type === 'hidden' || type === 'object shape') return `(${type} ${name.slice(0, 40)})`;
  return `(${type})`;
}

function label(s, n) {
  const type = s.nodeTypes[s.nodes[n * s.N + s.type]];
  let name = s.strings[s.nodes[n * s.N + s.name]];
  if (name.length > 50) name = `${name.slice(0, 50)}…`;
  return `${type === 'string' || type === 'concatenated string' ? JSON.stringify(name) : name}@${s.nodes[n * s.N + s.id]}`;
}

/** Distance from the root over strong edges, and for each node the nearest retainer (node, edge). */
function shortestRetainers(s) {
  const distance = new Int32Array(s.count).fill(-1);
  const via = new Int32Array(s.count).fill(-1);
  const viaEdge = new Int32Array(s.count).fill(-1);
  const queue = new Uint32Array(s.count);
  let head = 0;
  let tail = 0;
  distance[0] = 0;
  queue[tail++] = 0;
  while (head < tail) {
    const n = queue[head++];
    for (let e = s.firstEdge[n]; e < s.firstEdge[n + 1]; e += s.E) {
      if (s.edgeTypes[s.edges[e + s.edgeType]] === 'weak') continue;
      const to = s.edges[e + s.edgeTo] / s.N;
      if (distance[to] !== -1) continue;
      distance[to] = distance[n] + 1;
      via[to] = n;
      viaEdge[to] = e;
      queue[tail++] = to;
    }
  }
  return { distance, via, viaEdge };
}

function pathTo(s, retainers, n) {
  const steps = [];
  for (let at = n, hops = 0; at > 0 && hops < 25; hops++) {
    const from = retainers.via[at];
    if (from < 0) return `${label(s, n)} (unreachable)`;
    const e = retainers.viaEdge[at];
    const edgeType = s.edgeTypes[s.edges[e + s.edgeType]];
    const nameOrIndex = s.edges[e + s.edgeName];
    const edgeName = edgeType === 'element' || edgeType === 'hidden' ? `[${nameOrIndex}]` : s.strings[nameOrIndex];
    steps.unshift(`${label(s, from)} -${edgeName}->`);
    at = from;
  }
  return `${steps.join(' ')} ${label(s, n)}`;
}

function main() {
  const [beforeFile, afterFile, topArg] = process.argv.slice(2);
  if (!beforeFile || !afterFile) {
    console.error('usage: heap-snapshot-diff.js <before.heapsnapshot> <after.heapsnapshot> [top=25]');
    process.exit(2);
  }
  const top = Number(topArg ?? 25);
  const before = load(beforeFile);
  const seen = new Set();
  let beforeBytes = 0;
  for (let n = 0; n < before.count; n++) {
    seen.add(before.nodes[n * before.N + before.id]);
    beforeBytes += before.nodes[n * before.N + before.self];
  }
  const after = load(afterFile);
  const groups = new Map();
  let afterBytes = 0;
  for (let n = 0; n < after.count; n++) {
    const self = after.nodes[n * after.N + after.self];
    afterBytes += self;
    if (seen.has(after.nodes[n * after.N + after.id])) continue;
    const key = groupOf(after, n);
    let group = groups.get(key);
    if (group === undefined) groups.set(key, (group = { count: 0, bytes: 0, largest: n, largestBytes: -1 }));
    group.count++;
    group.bytes += self;
    if (self > group.largestBytes) {
      group.largest = n;
      group.largestBytes = self;
    }
  }
  const mib = (bytes) => (bytes / 1024 / 1024).toFixed(2);
  console.log(`heap: ${mib(beforeBytes)} MiB -> ${mib(afterBytes)} MiB (${after.count - before.count} objects)`);
  const sorted = [...groups.entries()].sort((a, b) => b[1].bytes - a[1].bytes);
  let newBytes = 0;
  for (const [, group] of sorted) newBytes += group.bytes;
  console.log(`new since the first snapshot and still held: ${mib(newBytes)} MiB`);
  console.log('  self MiB     count  group');
  for (const [key, group] of sorted.slice(0, top)) {
    console.log(`${mib(group.bytes).padStart(10)} ${String(group.count).padStart(9)}  ${key}`);
  }
  const retainers = shortestRetainers(after);
  console.log('\nwhat holds the largest object of the top groups:');
  for (const [key, group] of sorted.slice(0, Math.min(top, 8))) {
    console.log(`- ${key}: ${pathTo(after, retainers, group.largest)}`);
  }
}

main();
