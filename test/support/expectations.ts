/** The one error body of docs/contract.md, with exactly this status and code. */
export function expectError(res: { status: number; body: unknown }, status: number, code: string): void {
  expect({ status: res.status, body: res.body }).toEqual({
    status,
    body: { error: [code], message: expect.any(String) },
  });
}

/** 400 error_validation whose details name exactly these fields (each at least once). */
export function expectInvalid(res: { status: number; body: any }, ...fields: string[]): void {
  expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: ['error_validation'] });
  expect(res.body.message).toEqual(expect.any(String));
  const named = [...new Set((res.body.details as { field: string }[]).map((detail) => detail.field))].sort();
  expect(named).toEqual([...fields].sort());
}
