import { launchChromium, routeHub, startServer } from '/work/main/tests/browser/browser.mjs';
const server = await startServer();
const browser = await launchChromium();
for (const [path, widths] of JSON.parse(process.argv[2])) {
  for (const width of widths) {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    await routeHub(page);
    page.on('pageerror', (e) => console.log('pageerror', path, e.message));
    page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') console.log('console', path, m.text()); });
    await page.goto(`${server.url}${path}`);
    await page.waitForSelector('html[data-ready="true"]', { timeout: 60000 }).catch(() => console.log('not ready', path));
    if (process.argv[3]) await page.locator(process.argv[3]).scrollIntoViewIfNeeded();
    await page.waitForTimeout(2500);
    const name = `${(path + (process.argv[3] ?? '')).replace(/\W/g, '_')}_${width}`;
    if (process.argv[3]) await page.locator(process.argv[3]).screenshot({ path: `/tmp/shots/${name}.png` });
    else await page.screenshot({ path: `/tmp/shots/${name}.png`, fullPage: true });
    console.log(name, await page.evaluate(() => document.documentElement.scrollWidth));
    await page.close();
  }
}
await browser.close(); await server.close();
