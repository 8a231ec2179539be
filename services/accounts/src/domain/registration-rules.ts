import { z } from 'zod';
import { AppError } from '@cardlens/errors';

/** The spec's field rules for POST /v1/agents, enforced where agents are created. */
const registrationSchema = z.object({
  name: z
    .string({ error: 'name is required and must be a string' })
    .trim()
    .min(1, 'name must not be empty')
    .max(100, 'name must be at most 100 characters')
    .refine((v) => ![...v].some(isControlCharacter), 'name must not contain control characters'),
  contactEmail: z
    .email({ error: 'contactEmail must be a valid email address' })
    .max(256, 'contactEmail must be at most 256 characters')
    .nullish(),
  operatorUrl: z
    .string({ error: 'operatorUrl must be a string' })
    .max(512, 'operatorUrl must be at most 512 characters')
    .refine(isAbsoluteHttpUrl, 'operatorUrl must be an absolute http(s) URL')
    .nullish(),
  commercialOnly: z.boolean({ error: 'commercialOnly must be a boolean' }).default(false),
});

export type RegistrationRequest = z.output<typeof registrationSchema>;

export function parseRegistration(input: unknown): RegistrationRequest {
  const result = registrationSchema.safeParse(input);
  if (!result.success) {
    const detail = result.error.issues.map((i) => i.message).join('; ');
    throw new AppError('invalid_body', detail);
  }
  return result.data;
}

function isControlCharacter(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  return code < 0x20 || code === 0x7f;
}

function isAbsoluteHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
}
