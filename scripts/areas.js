/**
 * Where a file of src/ sits: the areas of src/areas.json (lowest first) and their modules, src/<area>/<module>/.
 * Files directly in src/ are the composition root that wires the areas; they belong to no module.
 */
const { existsSync, readFileSync } = require('node:fs');

/** The area names of `src/areas.json` under the current directory, lowest first. */
function readAreas() {
  if (!existsSync('src/areas.json'))
    throw new Error('src/areas.json is missing: it names the areas of src/, lowest first');
  return JSON.parse(readFileSync('src/areas.json', 'utf8')).areas.map(({ area }) => area);
}

/** `src/<area>/<module>` for a file inside a module, `src/<area>` for a file directly in an area, null for the root. */
function moduleOf(file) {
  const parts = file.split('/');
  if (parts[0] !== 'src' || parts.length < 3) return null;
  return parts.length > 3 ? `src/${parts[1]}/${parts[2]}` : `src/${parts[1]}`;
}

const areaOf = (file) => (moduleOf(file) ? file.split('/')[1] : null);

module.exports = { readAreas, moduleOf, areaOf };
