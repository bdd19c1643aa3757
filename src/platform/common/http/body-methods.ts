/**
 * The HTTP methods Fastify reads a body for: only their routes can meet a body of the wrong type or size, so the
 * media-type check runs on them alone and the OpenAPI document lists 413/415 on them alone.
 */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** `method` in any case (`post` as in an OpenAPI path item, `POST` as in a Fastify route). */
export function takesBody(method: string): boolean {
  return BODY_METHODS.has(method.toUpperCase());
}
