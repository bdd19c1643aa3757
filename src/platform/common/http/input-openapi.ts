import type { OpenAPIObject, OperationObject, ParameterObject, ReferenceObject, SchemaObject } from '@nestjs/swagger';
import { ErrorCode } from '../errors/error-codes';
import { takesBody } from './body-methods';

/**
 * The errors a route's input can meet, whatever it declares: the input-sanity guard checks every path, query and
 * body value (NUL, unpaired surrogates, nesting depth) and the validation pipe every DTO (error_validation); a
 * method that reads a body can meet one too large or of the wrong type (413, 415); an id in the path names a
 * company record, so a malformed id or another company's record is "not found" (RecordId).
 */
export function inputErrors(method: string, operation: OperationObject): ErrorCode[] {
  const codes: ErrorCode[] = [ErrorCode.Validation];
  if (takesBody(method)) codes.push(ErrorCode.PayloadTooLarge, ErrorCode.UnsupportedMediaType);
  const parameters = (operation.parameters ?? []) as ParameterObject[];
  if (parameters.some((parameter) => parameter.in === 'path')) codes.push(ErrorCode.NotFound);
  return codes;
}

/** Query parameters are never pre-filled in "Try it out": an example value there would filter records out. */
export function dropQueryExamples(operation: OperationObject): void {
  for (const parameter of (operation.parameters ?? []) as ParameterObject[]) {
    if (parameter.in !== 'query') continue;
    delete parameter.example;
    delete parameter.examples;
    if (parameter.schema && !('$ref' in parameter.schema)) delete parameter.schema.example;
  }
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Request bodies refuse unknown fields (the validation pipe's forbidNonWhitelisted): say so in their schemas. */
export function closeRequestSchemas(document: OpenAPIObject): void {
  const schemas = document.components?.schemas ?? {};
  const closed = new Set<string>();
  const close = (schema: SchemaObject | ReferenceObject | undefined): void => {
    if (!schema) return;
    if ('$ref' in schema) {
      const name = schema.$ref.replace('#/components/schemas/', '');
      if (closed.has(name)) return;
      closed.add(name);
      return close(schemas[name]);
    }
    if (schema.type === 'object' || schema.properties) {
      schema.additionalProperties = false;
      for (const property of Object.values(schema.properties ?? {})) close(property);
    }
    if (schema.items) close(schema.items);
    for (const part of [...(schema.allOf ?? []), ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])]) close(part);
  };
  for (const item of Object.values(document.paths)) {
    for (const method of HTTP_METHODS) {
      const body = item[method]?.requestBody;
      if (body && !('$ref' in body)) close(body.content['application/json']?.schema);
    }
  }
}
