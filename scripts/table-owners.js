/**
 * Two module rules of scripts/check-boundaries.js that look past single imports.
 *
 * folderCycles: the modules of src/ (src/<area>/<module>) that reach each other through imports, whatever the
 * length of the loop. A pair is caught by the pair rule as well; a loop of three (a → b → c → a) only here.
 *
 * tablesOutsideOwner: a table belongs to the module of its entity (`@Entity({ name: 'membership' })` in
 * src/accounts/membership/ makes src/accounts/membership the owner). Only that module may name the table, in any of the ways
 * TypeORM code reaches a table:
 *   - SQL in a string (upper-case keywords, as this code base writes them): FROM, JOIN, UPDATE, INTO, TABLE;
 *   - a query builder's table argument: `.from('membership', 'm')`, `.innerJoin('membership', …)`;
 *   - the entity class as a call's first argument: `getRepository(Membership)`, `manager.update(Membership, …)`,
 *     `@InjectRepository(Membership)`, `.from(Membership, …)`, or in `TypeOrmModule.forFeature([…])`.
 * Comments are not code and are skipped. Migrations (any module's migrations/ folder) are the schema's history and
 * name every table; unit specs are tests. Files directly in src/ are the composition root.
 */
const { readFileSync } = require('node:fs');

const { moduleOf: folderOf } = require('./areas');

/** Every elementary loop would be too many to read; one loop per strongly connected group is enough to act on. */
function folderCycles(edges) {
  const next = new Map();
  for (const edge of edges) {
    const [from, to] = edge.split(' ');
    if (!next.has(from)) next.set(from, []);
    next.get(from).push(to);
  }
  for (const targets of next.values()) targets.sort();
  // Tarjan's strongly connected components.
  let index = 0;
  const order = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const groups = [];
  const visit = (node) => {
    order.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node) ?? []) {
      if (!order.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node), low.get(to)));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node), order.get(to)));
      }
    }
    if (low.get(node) === order.get(node)) {
      const group = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1) groups.push(new Set(group));
    }
  };
  for (const node of [...next.keys()].sort()) if (!order.has(node)) visit(node);
  return groups.map((group) => loopWithin(group, next));
}

/** The shortest loop through the group's first folder (by name), staying inside the group. */
function loopWithin(group, next) {
  const start = [...group].sort()[0];
  const previous = new Map([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const to of next.get(node) ?? []) {
      if (!group.has(to)) continue;
      if (to === start) {
        const path = [start];
        for (let at = node; at !== start; at = previous.get(at)) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!previous.has(to)) {
        previous.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start, start];
}

/** The file's code and its string literals, comments dropped. Enough of TypeScript's lexis for this purpose. */
function split(text) {
  let code = '';
  const strings = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const pair = text.slice(i, i + 2);
    if (pair === '//') {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end;
    } else if (pair === '/*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 2;
    } else if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === '\\' ? 2 : 1;
      strings.push(text.slice(i + 1, j));
      code += `${c}${c}`;
      i = j + 1;
    } else {
      code += c;
      i++;
    }
  }
  return { code, strings };
}

/** Table name → owner folder, and entity class → table, from the `@Entity` decorators under src/. */
function entitiesOf(files) {
  const tables = new Map();
  const classes = new Map();
  for (const file of files) {
    const folder = folderOf(file);
    if (!folder || !file.endsWith('.ts')) continue;
    const text = readFileSync(file, 'utf8');
    const pattern = /@Entity\(\s*(?:\{\s*name:\s*)?['"](\w+)['"][^)]*\)\s*export\s+class\s+(\w+)/g;
    for (const [, table, entity] of text.matchAll(pattern)) {
      tables.set(table, folder);
      classes.set(entity, table);
    }
  }
  return { tables, classes };
}

const SQL = /\b(?:FROM|JOIN|UPDATE|INTO|TABLE)\s+"?(\w+)"?/g;
const BUILDER =
  /\.(?:from|into|update|delete|innerJoin|leftJoin|innerJoinAndSelect|leftJoinAndSelect)\(\s*['"`](\w+)['"`]/g;

/** The tables a file names, each once. */
function tablesNamedIn(text, tables, classes) {
  const { code, strings } = split(text);
  const named = new Set();
  for (const string of strings) {
    for (const [, word] of string.matchAll(SQL)) if (tables.has(word)) named.add(word);
  }
  for (const [, word] of text.matchAll(BUILDER)) if (tables.has(word)) named.add(word);
  for (const [, entity] of code.matchAll(/\b\w+\(\s*(\w+)\s*[,)]/g)) {
    if (classes.has(entity)) named.add(classes.get(entity));
  }
  for (const [, list] of code.matchAll(/forFeature\(\s*\[([^\]]*)\]/g)) {
    for (const entity of list.split(',').map((name) => name.trim())) {
      if (classes.has(entity)) named.add(classes.get(entity));
    }
  }
  return named;
}

function tablesOutsideOwner(files) {
  const sources = files.filter((file) => /^src\/.*\.ts$/.test(file) && !file.endsWith('.spec.ts'));
  const { tables, classes } = entitiesOf(sources);
  const found = [];
  for (const file of sources) {
    const folder = folderOf(file);
    if (!folder || /\/migrations\//.test(file)) continue;
    for (const table of tablesNamedIn(readFileSync(file, 'utf8'), tables, classes)) {
      const owner = tables.get(table);
      if (owner !== folder) found.push(`table-outside-owner: ${file} names ${table} (owned by ${owner})`);
    }
  }
  return found.sort();
}

module.exports = { folderCycles, tablesOutsideOwner };
