import { Type, type TProperties } from '@sinclair/typebox';

/** The error envelope, for response schemas. */
export const ErrorSchema = Type.Object({
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    request_id: Type.String(),
    retryable: Type.Boolean(),
    details: Type.Optional(Type.Array(Type.Any())),
    field: Type.Optional(Type.String()),
  }),
});
export const WarningSchema = Type.Object({ code: Type.String(), message: Type.String() });
/** v2 bodies are open objects in the response: clients keep unknown fields. */
export const Open = <T extends TProperties>(props: T, description?: string) =>
  Type.Object(props, { additionalProperties: true, description });

export const errorResponses = {
  401: ErrorSchema,
  404: ErrorSchema,
  409: ErrorSchema,
  413: ErrorSchema,
  422: ErrorSchema,
  429: ErrorSchema,
  503: ErrorSchema,
};
