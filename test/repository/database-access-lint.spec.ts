import { lintSource } from '../support/lint-source';

const SERVICE = (constructor: string, imports: string) => `import { Injectable } from '@nestjs/common';
${imports}
import { Note } from './note.entity';

@Injectable()
export class NotesService {
  ${constructor}

  count(): Promise<number> {
    return this.notes.count();
  }
}
`;

/**
 * One way to a table (docs/adding-a-feature-module.md, "Database access"): its owner module reaches it through the
 * global DataSource, other modules through the owner's records functions. Nest's per-module repositories would be
 * a second way, so ESLint refuses `@InjectRepository`, `getRepositoryToken` and `TypeOrmModule.forFeature`.
 */
describe('database access, as ESLint holds it', () => {
  it('refuses an injected repository, naming the way to use instead', () => {
    const result = lintSource(
      'src/features/notes/notes.service.ts',
      SERVICE(
        'constructor(@InjectRepository(Note) private readonly notes: Repository<Note>) {}',
        "import { InjectRepository } from '@nestjs/typeorm';\nimport { Repository } from 'typeorm';",
      ),
    );
    expect(result.status).toBe(1);
    expect(result.out).toContain("'InjectRepository' import from '@nestjs/typeorm' is restricted");
    expect(result.out).toContain('dataSource.getRepository(Thing)');
  });

  it('refuses TypeOrmModule.forFeature in a module, also in the rate-limiting code', () => {
    const module = `import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Note } from './note.entity';

@Module({ imports: [TypeOrmModule.forFeature([Note])] })
export class NotesModule {}
`;
    for (const path of ['src/features/notes/notes.module.ts', 'src/rate-limiting/notes/notes.module.ts']) {
      const result = lintSource(path, module);
      expect({ path, status: result.status }).toEqual({ path, status: 1 });
      expect(result.out).toContain('through its records functions');
    }
  });

  it('passes the same service on the global DataSource', () => {
    const clean = SERVICE(
      'private readonly notes: Repository<Note>;\n\n  constructor(dataSource: DataSource) {\n    this.notes = dataSource.getRepository(Note);\n  }',
      "import { DataSource, Repository } from 'typeorm';",
    );
    expect(lintSource('src/features/notes/notes.service.ts', clean)).toEqual({ status: 0, out: '' });
  });
});
