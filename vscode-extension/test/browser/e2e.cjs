// Real VS Code (code-server) in headless Chromium: open a Python file, wait for rlm's inlay
// hint and code lens in the editor's DOM, type a new function and wait for its hint, then take
// a screenshot.
// Driven by tests/test_vscode_browser.py, which starts code-server with our .vsix installed.
//
//   RLM_EDITORS_DIR=... URL=http://127.0.0.1:PORT/?folder=/ws FILE=demo.py SCREENSHOT=out.png node e2e.cjs
// Prints one JSON line: {"hints": [...], "lenses": [...], "status": [...]}; exits 1 when hints or
// lenses are missing.
const path = require("node:path");
const os = require("node:os");

const editorsDir = process.env.RLM_EDITORS_DIR || path.join(os.homedir(), ".cache", "rlm-editors");
const { chromium } = require(path.join(editorsDir, "node_modules", "playwright-core"));

const URL = process.env.URL;
const FILE = process.env.FILE || "demo.py";
const SCREENSHOT = process.env.SCREENSHOT || "vscode.png";
const TIMEOUT = Number(process.env.TIMEOUT_MS || 90000);

async function main() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
  });
  const result = { hints: [], lenses: [], status: [], hover: "", typed: false, error: null };
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await page.goto(URL);
    await page.waitForSelector(".monaco-workbench", { timeout: TIMEOUT });
    const row = page.locator(".explorer-folders-view .monaco-list-row", { hasText: FILE });
    await row.first().waitFor({ timeout: TIMEOUT });
    await row.first().click();
    const hint = page.locator(".monaco-editor .view-lines .view-line span", { hasText: /≈\s\S+/ });
    const lens = page.locator(".monaco-editor .contentWidgets .codelens-decoration", { hasText: "rlm p10–p90" });
    try {
      await hint.first().waitFor({ timeout: TIMEOUT });
      await lens.first().waitFor({ timeout: TIMEOUT });
      // Hover on a function name: the markdown table with the interval and the model version.
      await page.locator(".monaco-editor .view-line span", { hasText: /^make_table$/ }).first().hover();
      const hover = page.locator(".monaco-hover-content", { hasText: "predicted by rlm" });
      await hover.first().waitFor({ timeout: TIMEOUT });
      result.hover = (await hover.first().innerText()).replace(/\u00a0/g, " ");
      await page.keyboard.press("Escape");
      // Type a new function: the server re-predicts after the debounce and asks VS Code to refresh.
      await page.locator(".monaco-editor .view-lines").first().click();
      await page.keyboard.press("Control+End");
      await page.keyboard.type("\ndef added(values):\n", { delay: 5 });
      await page.keyboard.type("return sorted(values)\n", { delay: 5 });
      const added = page.locator(".monaco-editor .view-line", { hasText: /def\s+added\(values\):\s*≈/ });
      await added.first().waitFor({ timeout: TIMEOUT });
      result.typed = true;
      await page.waitForTimeout(500); // let the remaining hints render for the screenshot
    } catch (err) {
      result.error = String(err);
    }
    result.hints = (await hint.allInnerTexts()).map((t) => t.replace(/\u00a0/g, " ").trim());
    result.lenses = (await lens.allInnerTexts()).map((t) => t.replace(/\u00a0/g, " ").trim());
    // our status bar item: its accessible label is the tooltip ("rlm: model loaded: model ... on cpu")
    const status = page.locator(".statusbar-item", { hasText: "rlm" });
    for (const item of await status.all()) {
      result.status.push((await item.getAttribute("aria-label")) || (await item.innerText()));
    }
    await page.screenshot({ path: SCREENSHOT });
  } finally {
    await browser.close();
  }
  console.log(JSON.stringify(result));
  process.exit(result.hints.length && result.lenses.length ? 0 : 1);
}

main().catch((err) => {
  console.error(err);
  process.exit(2);
});
