// Errors a service or route may throw; the server maps each to `{"error": {"code", "message"}}`
// with `code` equal to the HTTP status, as the public API description specifies.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const badRequest = (message: string) => new ApiError(400, message);
export const unauthorized = (message = 'Authentication required: send "Authorization: Bearer <token>"') =>
  new ApiError(401, message, { 'www-authenticate': 'Bearer' });
export const forbidden = (message = 'You do not have permission to perform this action') => new ApiError(403, message);
export const notFound = (message = 'Not found') => new ApiError(404, message);
export const conflict = (message: string) => new ApiError(409, message);
export const payloadTooLarge = (message: string) => new ApiError(413, message);

export function errorBody(status: number, message: string) {
  return { error: { code: status, message } };
}
