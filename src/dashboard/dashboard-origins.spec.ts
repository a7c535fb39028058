import { asOrigin, parseOrigins } from '../../dashboard/src/origins';
import { ORIGIN_PATTERN } from '../api-keys/dto/create-api-key.dto';

/** The dashboard's reading of a typed allowed origin (dashboard/src/origins.ts): what a person most likely means. */
describe('allowed origins as typed in the dashboard', () => {
  it.each([
    ['localhost:8081', 'http://localhost:8081'],
    ['LocalHost:3000', 'http://localhost:3000'],
    ['shop.localhost:5173', 'http://shop.localhost:5173'],
    ['127.0.0.1:8080', 'http://127.0.0.1:8080'],
    ['192.168.1.20', 'http://192.168.1.20'],
    ['[::1]:3000', 'http://[::1]:3000'],
    ['shop.example.com', 'https://shop.example.com'],
    ['shop.example.com:8443', 'https://shop.example.com:8443'],
    ['localhost.example.com', 'https://localhost.example.com'],
    ['https://localhost:8081', 'https://localhost:8081'],
    ['http://shop.example.com', 'http://shop.example.com'],
    ['HTTPS://Shop.Example.com:443/', 'https://shop.example.com'],
    ['https://shop.example.com/checkout', 'https://shop.example.com'],
  ])('reads %s as %s, an origin the API takes', (typed, origin) => {
    expect(asOrigin(typed)).toBe(origin);
    expect(origin).toMatch(ORIGIN_PATTERN);
  });

  it.each(['', '   ', 'ftp://shop.example.com', 'not an origin', 'http://'])('finds no origin in %j', (typed) => {
    expect(asOrigin(typed)).toBeUndefined();
  });

  it('reads a list one per line or comma-separated, keeping what is no origin as typed', () => {
    expect(parseOrigins('localhost:8081, shop.example.com\n\nftp://files.example.com')).toEqual([
      { typed: 'localhost:8081', origin: 'http://localhost:8081' },
      { typed: 'shop.example.com', origin: 'https://shop.example.com' },
      { typed: 'ftp://files.example.com', origin: undefined },
    ]);
  });
});
