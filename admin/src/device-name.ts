/**
 * A session's name from what the session list returns (`user_agent`, `ip`): browser with its major version,
 * system, and address, so that two logins from the same kind of browser still read apart. Headless browsers
 * (scripts, tests) say so rather than pass for a person's Chrome.
 */
export function browserOf(userAgent: string | null): string {
  if (!userAgent) return 'Unknown client';
  const browser =
    /(HeadlessChrome|Edg|OPR|Firefox|Chrome|Chromium|Version(?=\/[\d.]+ .*Safari)|curl|node|PostmanRuntime|undici)[/ ]?(\d*)/.exec(
      userAgent,
    );
  const os = /(Windows|Mac OS X|Android|iPhone|iPad|CrOS|Linux)/.exec(userAgent);
  if (!browser) return userAgent.slice(0, 60);
  const names: Record<string, string> = {
    HeadlessChrome: 'Headless Chrome',
    Edg: 'Edge',
    OPR: 'Opera',
    Version: 'Safari',
  };
  const name = `${names[browser[1]] ?? browser[1]}${browser[2] ? ` ${browser[2]}` : ''}`;
  const system = os ? (({ 'Mac OS X': 'macOS', CrOS: 'ChromeOS' } as Record<string, string>)[os[1]] ?? os[1]) : null;
  return system ? `${name} on ${system}` : name;
}

export function sessionName(session: { user_agent: string | null; ip: string | null }): string {
  return `${browserOf(session.user_agent)} · ${session.ip ?? 'unknown address'}`;
}
