import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { unexpectedSkips } from './check-skips';

const SCRIPT = resolve(__dirname, 'check-skips.js');

/** A jest --json report's shape (the fields the script reads), one file with tests of the given statuses. */
function report(tests: Array<[title: string, status: string]>) {
  return {
    numPendingTests: tests.filter(([, status]) => status === 'pending').length,
    testResults: [
      {
        name: '/repo/test/some.e2e-spec.ts',
        assertionResults: tests.map(([title, status]) => ({
          ancestorTitles: ['a suite'],
          title,
          fullName: `a suite ${title}`,
          status,
        })),
      },
    ],
  };
}

describe('check-skips', () => {
  it('lists every skipped and todo test, and none that ran', () => {
    const found = unexpectedSkips(
      report([
        ['passes', 'passed'],
        ['fails', 'failed'],
        ['is skipped', 'pending'],
        ['is left to do', 'todo'],
        ['is disabled', 'disabled'],
      ]),
      [],
    );
    expect(found).toEqual([
      { file: '/repo/test/some.e2e-spec.ts', name: 'a suite is skipped', status: 'pending' },
      { file: '/repo/test/some.e2e-spec.ts', name: 'a suite is left to do', status: 'todo' },
      { file: '/repo/test/some.e2e-spec.ts', name: 'a suite is disabled', status: 'disabled' },
    ]);
  });

  it('lets through a skip the allow-list names, by full name only', () => {
    const skips = report([
      ['may skip', 'pending'],
      ['may not skip', 'pending'],
    ]);
    const allowList = [{ name: 'a suite may skip', reason: 'why' }];
    expect(unexpectedSkips(skips, allowList).map((skip) => skip.name)).toEqual(['a suite may not skip']);
    // A title alone, without its describe, allows nothing.
    expect(unexpectedSkips(skips, [{ name: 'may skip', reason: 'why' }])).toHaveLength(2);
  });

  it('refuses an allow-list entry without a reason, and a file that is not a jest report', () => {
    expect(() => unexpectedSkips(report([]), [{ name: 'a suite x' }])).toThrow('needs a "name" and a "reason"');
    expect(() => unexpectedSkips(report([]), [{ name: 'a suite x', reason: ' ' }])).toThrow('reason');
    expect(() => unexpectedSkips(report([]), {})).toThrow('JSON array');
    expect(() => unexpectedSkips({ success: true }, [])).toThrow('not a jest --json report');
  });

  it('the allow-list in the repository is valid', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const list = require('../test/skip-allow-list.json') as unknown;
    expect(() => unexpectedSkips(report([]), list)).not.toThrow();
  });

  describe('from the command line', () => {
    let dir: string;
    beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'check-skips-'))));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    const run = (value: unknown, allowList: unknown = []) => {
      writeFileSync(join(dir, 'report.json'), JSON.stringify(value));
      writeFileSync(join(dir, 'allow.json'), JSON.stringify(allowList));
      return spawnSync(process.execPath, [SCRIPT, join(dir, 'report.json'), join(dir, 'allow.json')], {
        encoding: 'utf8',
      });
    };

    it('exits 0 when nothing skipped outside the allow-list', () => {
      const result = run(
        report([
          ['ran', 'passed'],
          ['allowed', 'pending'],
        ]),
        [{ name: 'a suite allowed', reason: 'r' }],
      );
      expect(result.status).toBe(0);
      expect(result.stdout).toContain('no skipped or todo test outside the allow-list');
    });

    it('exits 1 and names each unexpected skip and its file', () => {
      const result = run(
        report([
          ['ran', 'passed'],
          ['skipped one', 'pending'],
          ['todo one', 'todo'],
        ]),
      );
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('2 skipped or todo test(s)');
      expect(result.stderr).toContain('[pending] a suite skipped one');
      expect(result.stderr).toContain('[todo] a suite todo one');
      expect(result.stderr).toContain('/repo/test/some.e2e-spec.ts');
    });

    it('exits 2 on no report, or one it cannot read', () => {
      expect(spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8' }).status).toBe(2);
      expect(run({ not: 'a report' }).status).toBe(2);
    });
  });
});
