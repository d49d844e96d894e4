// Gestures on the code-server workbench shared by the e2e suites (scripts/e2e.mjs, e2e-trust.mjs):
// the same a person makes (quick open, the command palette, an input box, the explain report's frame).

/** Page helpers of the workbench (the same gestures a person makes). */
export function workbench(page) {
  /**
   * Runs a command from the palette. The palette's list is made when it opens: opened before an
   * extension's commands reach the workbench (a loaded machine, a fresh profile), it never shows
   * them, so an attempt that finds no row within 10 s is closed and the palette opened again. The
   * row whose label holds `title` is clicked (Enter could run a recent command shown before the
   * filter applied).
   */
  const palette = async (title, timeout = 45_000) => {
    const deadline = Date.now() + timeout;
    for (;;) {
      try {
        await page.keyboard.press('F1');
        const input = page.locator('.quick-input-widget input');
        await input.waitFor({ timeout: 10_000 });
        await input.fill(`>${title}`, { timeout: 5_000 });
        const label = page.locator('.quick-input-list .monaco-list-row .label-name').filter({ hasText: title }).first();
        await label.waitFor({ timeout: Math.max(1_000, Math.min(10_000, deadline - Date.now())) });
        await label.click({ timeout: 5_000 });
        return;
      } catch (e) {
        if (Date.now() >= deadline) throw e;
        await page.keyboard.press('Escape');
      }
    }
  };
  const input = async (text, title) => {
    if (title) await page.locator('.quick-input-widget .quick-input-title').filter({ hasText: title }).first().waitFor();
    const box = page.locator('.quick-input-widget input');
    await box.waitFor();
    await box.fill(text);
    await page.keyboard.press('Enter');
  };
  const quickOpen = async (name) => {
    await page.keyboard.press('Control+P');
    const box = page.locator('.quick-input-widget input');
    await box.waitFor();
    await box.fill(name);
    await page.locator('.quick-input-list .monaco-list-row').filter({ hasText: name }).first().waitFor();
    await page.keyboard.press('Enter');
    await page.locator(`.tab.active[aria-label*="${name}"], .tab.active:has-text("${name}")`).first().waitFor();
  };
  const fetchJob = async () => {
    await palette('netpolicy: Fetch Job Trace');
    const another = page.locator('.quick-input-list .monaco-list-row').filter({ hasText: 'Another job' });
    const repoBox = page.locator('.quick-input-widget .quick-input-title').filter({ hasText: 'repository' });
    await Promise.race([another.first().waitFor(), repoBox.first().waitFor()]);
    if (await another.count()) await another.first().click();
    await input('acme/app', 'repository');
    await input('7', 'job id');
  };
  const toast = (text) => page.locator('.notification-toast').filter({ hasText: text }).first();
  return { palette, input, quickOpen, fetchJob, toast };
}

/** The report webview's frame once `#denials` is in it. */
export async function reportFrame(page, timeout) {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    for (const f of page.frames()) {
      try {
        if (await f.locator('#denials').count()) return f;
      } catch {}
    }
    await page.waitForTimeout(200);
  }
  throw new Error('no explain webview');
}

