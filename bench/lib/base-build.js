'use strict';
const { execFileSync } = require('node:child_process');
const { existsSync, symlinkSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');
const { randomBytes } = require('node:crypto');

function requireBuild(root) {
  if (!existsSync(join(root, 'dist', 'src', 'main.js'))) throw new Error(`${root}/dist is not built`);
  return root;
}

/** The base build: BASE_ROOT as is, or BASE checked out and built in a worktree of its own. */
function baseBuild(HERE) {
  if (process.env.BASE_ROOT) return { root: requireBuild(resolve(process.env.BASE_ROOT)), rev: 'BASE_ROOT', done() {} };
  const rev = process.env.BASE;
  if (!rev) throw new Error('set BASE=<git rev> (checked out and built in /tmp) or BASE_ROOT=<built checkout>');
  const commit = execFileSync('git', ['rev-parse', '--short', `${rev}^{commit}`], {
    cwd: HERE,
    encoding: 'utf8',
  }).trim();
  const root = join(tmpdir(), `staff-auth-base-${commit}-${randomBytes(3).toString('hex')}`);
  const done = () => {
    execFileSync('git', ['worktree', 'remove', '--force', root], { cwd: HERE, stdio: 'ignore' });
  };
  execFileSync('git', ['worktree', 'add', '--detach', root, commit], { cwd: HERE, stdio: 'ignore' });
  try {
    // The dependencies of this checkout: a base whose package-lock.json differs is measured on today's packages.
    symlinkSync(join(HERE, 'node_modules'), join(root, 'node_modules'));
    process.stderr.write(`compare: building ${rev} (${commit}) in ${root}\n`);
    execFileSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    return { root: requireBuild(root), rev: `${rev} (${commit})`, done };
  } catch (error) {
    done();
    throw error;
  }
}

module.exports = { baseBuild, requireBuild };
