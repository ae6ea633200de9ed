import { AgentInfo, DEVICE_CLASSES, NO_AGENT, describeAgent } from './user-agent';

const AGENTS: [string, string, AgentInfo][] = [
  [
    'Chrome on Windows',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
    { device: 'desktop', browser: 'Chrome', os: 'Windows' },
  ],
  [
    'Safari on macOS',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
    { device: 'desktop', browser: 'Safari', os: 'macOS' },
  ],
  [
    'Firefox on Linux',
    'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0',
    { device: 'desktop', browser: 'Firefox', os: 'Linux' },
  ],
  [
    'Edge',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.2592.68',
    { device: 'desktop', browser: 'Microsoft Edge', os: 'Windows' },
  ],
  [
    'Safari on iPhone',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
    { device: 'mobile', browser: 'Safari', os: 'iOS' },
  ],
  [
    'Chrome on an Android phone',
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.122 Mobile Safari/537.36',
    { device: 'mobile', browser: 'Chrome', os: 'Android' },
  ],
  [
    'iPad',
    'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
    { device: 'tablet', browser: 'Safari', os: 'iOS' },
  ],
  [
    'an Android tablet',
    'Mozilla/5.0 (Linux; Android 13; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.122 Safari/537.36',
    { device: 'tablet', browser: 'Chrome', os: 'Android' },
  ],
  [
    'Googlebot (a bot is other)',
    'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    { device: 'other', browser: 'Googlebot', os: null },
  ],
  [
    'a smart TV (other)',
    'Mozilla/5.0 (SMART-TV; Linux; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) 76.0.3809.146/6.0 TV Safari/537.36',
    { device: 'other', browser: 'Tizen', os: 'Tizen' },
  ],
  ['curl (nothing recognised)', 'curl/8.5.0', { device: 'other', browser: null, os: null }],
];

describe('describeAgent', () => {
  it.each(AGENTS)('describes %s', (_, userAgent, info) => {
    expect(describeAgent(userAgent)).toEqual(info);
  });

  it.each([null, '', '   '])('describes %j as no agent', (userAgent) => {
    expect(describeAgent(userAgent)).toBe(NO_AGENT);
  });

  it('has no agent as other, without browser and OS', () => {
    expect(NO_AGENT).toEqual({ device: 'other', browser: null, os: null });
    expect(describeAgent('curl/8.5.0')).toBe(NO_AGENT);
  });

  it('remembers an agent: the same frozen description again', () => {
    const agent = AGENTS[0][1];
    const first = describeAgent(agent);
    expect(describeAgent(agent)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it('describes a very long agent without keeping it', () => {
    const long = `${AGENTS[0][1]} ${'x'.repeat(5000)}`;
    const first = describeAgent(long);
    expect(first).toEqual(AGENTS[0][2]);
    expect(describeAgent(long)).not.toBe(first);
  });

  it('lists every device class', () => {
    expect(DEVICE_CLASSES).toEqual(['desktop', 'mobile', 'tablet', 'other']);
    for (const [, userAgent] of AGENTS) {
      expect(DEVICE_CLASSES).toContain(describeAgent(userAgent).device);
    }
  });
});
