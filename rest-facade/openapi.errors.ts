// The OpenAPI parts every operation shares: the error responses of CONTRACT §10 and search Metadata.

export type Json = Record<string, unknown>;

export const errorResponses: Readonly<Record<string, { name: string; description: string }>> = {
  '400': {
    name: 'BadRequest',
    description: 'Invalid input: `Errors` names each field (or a `RuleViolation`)',
  },
  '401': { name: 'Unauthorized', description: 'No, bad, expired or revoked token' },
  '403': { name: 'Forbidden', description: 'Authenticated but not allowed' },
  '404': { name: 'NotFound', description: 'Unknown route or id, or a resource the caller may not see' },
  '406': { name: 'NotAcceptable', description: 'Unknown `format` (`UnsupportedFormat`)' },
  '409': { name: 'Conflict', description: 'A state conflict' },
  '413': { name: 'PayloadTooLarge', description: 'The body is over 1 MiB' },
  '415': { name: 'UnsupportedMediaType', description: 'The body is neither JSON nor a form' },
  '429': { name: 'TooManyRequests', description: 'Rate limited; see `Retry-After`' },
  '500': { name: 'InternalServerError', description: 'A bug; quote `Meta.RequestId` to support' },
  '503': {
    name: 'ServiceUnavailable',
    description: 'Overloaded: the request could not start within 5 s; see `Retry-After`',
  },
};

export const errorSchemas: Record<string, Json> = {
  ResponseError: {
    type: 'object',
    properties: {
      ErrorCode: { type: 'string' },
      FieldName: { type: 'string' },
      Message: { type: 'string' },
      Meta: { type: 'object' },
    },
    required: ['ErrorCode', 'FieldName', 'Message'],
  },
  ResponseStatus: {
    type: 'object',
    properties: {
      ErrorCode: { type: 'string' },
      Message: { type: 'string' },
      Errors: { type: 'array', items: { $ref: '#/components/schemas/ResponseError' } },
      Meta: {
        type: 'object',
        description: '`Help` is always there; other keys depend on the code.',
        properties: {
          Help: {
            type: 'string',
            format: 'uri',
            description: 'The section of /docs that explains `ErrorCode` and what to do about it',
          },
        },
        required: ['Help'],
      },
    },
    required: ['ErrorCode', 'Message', 'Errors', 'Meta'],
  },
  ErrorResponse: {
    type: 'object',
    properties: { ResponseStatus: { $ref: '#/components/schemas/ResponseStatus' } },
    required: ['ResponseStatus'],
  },
  Metadata: {
    type: 'object',
    description: 'What a search applied, with defaults filled in.',
    properties: {
      Total: { type: 'integer' },
      Limit: { type: 'integer' },
      Offset: { type: 'integer' },
      Sort: {
        type: 'object',
        properties: {
          By: { type: 'string' },
          Direction: { type: 'string', enum: ['Ascending', 'Descending'] },
        },
        required: ['By', 'Direction'],
      },
      Filter: {
        type: 'object',
        properties: { Fields: { type: 'array', items: { type: 'string' } } },
        required: ['Fields'],
      },
      Distinct: { type: ['string', 'null'] },
    },
    required: ['Total', 'Limit', 'Offset', 'Sort', 'Filter'],
  },
};
