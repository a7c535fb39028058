import { freeKeyName } from '../../dashboard/src/key-names';
import { CreateApiKeyDto } from '../api-keys/dto/create-api-key.dto';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';

/** Names the dashboard gives the keys it makes itself ("Protect your first form"): unique among the account's, and ones the API takes. */
describe('key names the dashboard makes', () => {
  const accepted = (name: string) =>
    validateSync(plainToInstance(CreateApiKeyDto, { name, scopes: ['widget'], allowedOrigins: [] })).filter((e) => e.property === 'name');

  it('takes the base, or the first free number after it', () => {
    expect(freeKeyName('Server verify key', [])).toBe('Server verify key');
    expect(freeKeyName('Server verify key', ['Server verify key'])).toBe('Server verify key (2)');
    expect(freeKeyName('Server verify key', ['Server verify key', 'Server verify key (2)'])).toBe('Server verify key (3)');
  });

  it('cuts a long site address to a name the API takes, and still numbers it', () => {
    const host = `${'checkout-'.repeat(12)}shop.example.com`;
    const base = `Widget for ${host}`;
    expect(accepted(base)).not.toEqual([]); // what the dashboard sent before: refused, "name must be shorter…"
    const first = freeKeyName(base, []);
    expect(first).toHaveLength(100);
    expect(first).toMatch(/^Widget for checkout-checkout-.*…$/);
    expect(accepted(first)).toEqual([]);
    const second = freeKeyName(base, [first]);
    expect(second).toHaveLength(100);
    expect(second).toMatch(/… \(2\)$/);
    expect(accepted(second)).toEqual([]);
    expect(freeKeyName(base, [first, second])).toMatch(/… \(3\)$/);
  });
});
