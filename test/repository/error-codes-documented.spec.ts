import { errorCodesTable, expectGeneratedTable } from './generated-tables';

describe('the error codes are documented', () => {
  it('docs/api.md shows the table src/platform/common/errors/error-catalog.ts produces, row for row', () => {
    expectGeneratedTable('docs/api.md', 'error codes', errorCodesTable());
  });
});
