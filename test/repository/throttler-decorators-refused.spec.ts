import { lintSource as lint } from '../support/lint-source';

const FIXTURE = (name: string) => `import { Controller, Get } from '@nestjs/common';
import { ${name} } from '@nestjs/throttler';

@Controller('notes')
export class NotesController {
  @Get()
  @${name}(${name === 'Throttle' ? '{ default: { limit: 1, ttl: 1000 } }' : ''})
  list(): string[] {
    return [];
  }
}
`;

/**
 * The service counts requests with its own guard, so @nestjs/throttler's decorators would compile and silently do
 * nothing: ESLint refuses them (eslint.config.mjs, no-restricted-imports) and points to @RateLimit/@NoRateLimit.
 */
describe('@Throttle and @SkipThrottle', () => {
  it.each(['Throttle', 'SkipThrottle'])('%s is refused in a feature module, naming the decorator to use', (name) => {
    const result = lint('src/features/notes/notes.controller.ts', FIXTURE(name));
    expect(result.status).toBe(1);
    expect(result.out).toContain(`'${name}' import from '@nestjs/throttler' is restricted`);
    expect(result.out).toContain('@RateLimit({ limits })');
    expect(result.out).toContain('src/access/rules/rate-limit.decorator.ts');
  });

  it('the same file without them passes (the fixture is otherwise clean)', () => {
    const clean = FIXTURE('Throttle')
      .replace("import { Throttle } from '@nestjs/throttler';\n", '')
      .replace('  @Throttle({ default: { limit: 1, ttl: 1000 } })\n', '');
    expect(lint('src/features/notes/notes.controller.ts', clean)).toEqual({ status: 0, out: '' });
  });

  it('the rate-limiting code may still import the package (its storage contract)', () => {
    const result = lint(
      'src/rate-limiting/limiter/example.ts',
      "import { Throttle } from '@nestjs/throttler';\nexport const t = Throttle;\n",
    );
    expect(result).toEqual({ status: 0, out: '' });
  });
});
