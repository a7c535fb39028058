import { deviceOf } from './session.service';

describe('deviceOf', () => {
  it.each([
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36', 'Chrome on macOS'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0', 'Firefox on Windows'],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1',
      'Safari on iOS',
    ],
    ['curl/8.4.0', 'curl'],
    ['node-superagent/3.8.3', 'node-superagent'],
    ['', 'Unknown device'],
    ['   ', 'Unknown device'],
    ['%%%', 'Unknown device'],
  ])('names %j as %j', (userAgent, device) => {
    expect(deviceOf(userAgent)).toBe(device);
  });
});
