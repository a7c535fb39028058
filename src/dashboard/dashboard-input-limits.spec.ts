import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { INPUT_LIMITS } from '../../dashboard/src/api/input-limits';

interface Property {
  minLength?: number;
  maxLength?: number;
}
interface Document {
  components: { schemas: Record<string, { properties: Record<string, Property> }> };
}

/** docs/openapi.json is the served document (test/e2e/swagger.e2e-spec.ts fails when they differ). */
const document = JSON.parse(readFileSync(resolve(__dirname, '../../docs/openapi.json'), 'utf8')) as Document;
const property = (schema: string, name: string): Property => document.components.schemas[schema].properties[name];

describe('INPUT_LIMITS', () => {
  it.each([
    ['SignupDto', 'password'],
    ['AcceptInvitationDto', 'password'],
    ['AcceptPasswordResetDto', 'newPassword'],
    ['ChangePasswordDto', 'newPassword'],
  ])('gives a new password the length the API takes in %s.%s', (schema, name) => {
    expect(property(schema, name)).toMatchObject({ minLength: INPUT_LIMITS.password.min, maxLength: INPUT_LIMITS.password.max });
  });

  it.each([
    ['SignupDto', 'email'],
    ['CreateInvitationDto', 'email'],
  ])('caps an email address as the API does in %s.%s', (schema, name) => {
    expect(property(schema, name).maxLength).toBe(INPUT_LIMITS.email.max);
  });

  it.each([
    ['SignupDto', 'accountName'],
    ['UpdateAccountDto', 'name'],
    ['CreateApiKeyDto', 'name'],
    ['UpdateApiKeyDto', 'name'],
  ])('caps a name as the API does in %s.%s', (schema, name) => {
    expect(property(schema, name).maxLength).toBe(INPUT_LIMITS.name.max);
  });
});
