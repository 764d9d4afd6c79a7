/**
 * Debian's Chromium for the page tests, and the flags it runs with: headless, and with nothing
 * of its own going to the network (this machine has none, and a refused connection of
 * Chromium's would show among the page's own).
 */

/** CHROMIUM_PATH only exists so the skip path can be exercised; Debian's is the default. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
