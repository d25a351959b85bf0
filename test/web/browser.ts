// Debian's chromium driven by playwright-core for the web UI tests: headless, no network services
// of its own. Playwright gives every launch a fresh temporary profile (its own --user-data-dir).
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.SVC_TEST_CHROMIUM ?? '/usr/bin/chromium';

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
