// Real VS Code (code-server) in headless Chromium, as a new user meets the extension:
//  1. no interpreter set (python3 from PATH lacks rlm-lsp): the notifications shown;
//  2. rlm.pythonPath set in the User settings (JSON editor), then "rlm: Restart Server": hints;
//  3. the hint texts, the status bar text, a hover;
//  4. "rlm: Toggle Hints" off and on;
//  5. rlm.exclude (User settings) and a file it matches;
//  6. an edit of a committed function that the model is confident grew: the Problems panel;
//  7. its quick fixes (Ctrl+.): the allow-regression pragma, then (after an undo) exclude the file.
// Screenshots along the way go to SHOTS (a folder). Driven by tests/test_vscode_browser.py.
//
//   RLM_EDITORS_DIR=... URL=http://127.0.0.1:PORT/?folder=/ws SETTINGS=.../User/settings.json \
//     PYTHON=/venv/bin/python SHOTS=docs/images node e2e.cjs
// Prints one JSON line with what it saw; `error` is set when a step timed out.
const fs = require("node:fs");
const path = require("node:path");
const os = require("node:os");

const editorsDir = process.env.RLM_EDITORS_DIR || path.join(os.homedir(), ".cache", "rlm-editors");
const { chromium } = require(path.join(editorsDir, "node_modules", "playwright-core"));

const URL = process.env.URL;
const SETTINGS = process.env.SETTINGS;
const PYTHON = process.env.PYTHON;
const SHOTS = process.env.SHOTS || ".";
const WS = process.env.WS; // the workspace folder: its .vscode/settings.json is read after the toggle
const TIMEOUT = Number(process.env.TIMEOUT_MS || 90000);
const clean = (t) => t.replace(/\u00a0/g, " ").trim();


async function main() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
  });
  const result = { step: "", notifications: [], later_notifications: [], hints: [], status: "", hover: "",
    toggled_off: null, status_off: "", toggled_on: null, excluded_hints: null, problems: [], error: null,
    user_settings_after_toggle: null, workspace_settings_after_toggle: null, quick_fixes: [], allowed_text: "",
    problems_after_allow: [], exclude_setting: null, hints_after_exclude: null };
  const readJson = (file) => (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : null);
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  const hint = page.locator(".monaco-editor .view-lines .view-line span", { hasText: /≈\s(⚠\s)?mem\s/ });
  const toasts = page.locator(".notifications-toasts .notification-list-item-message");
  const statusText = async () => {
    const item = page.locator(".statusbar-item", { hasText: /rlm: / });
    return (await item.count()) ? clean(await item.first().innerText()) : "";
  };
  const command = async (title) => { // returns when it ran (Date.now() at the Enter)
    await page.keyboard.press("F1");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ timeout: TIMEOUT });
    await input.fill(`>${title}`);
    await page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first().waitFor({ timeout: TIMEOUT });
    const ran = Date.now();
    await page.keyboard.press("Enter");
    return ran;
  };
  const noHints = () => page.waitForFunction(() => ![...document.querySelectorAll(".monaco-editor .view-line span")]
    .some((s) => /≈\s(⚠\s)?mem\s/.test(s.textContent.replace(/\u00a0/g, " "))), null, { timeout: TIMEOUT });
  // Change User settings as a user does: Preferences: Open User Settings (JSON), edit, save.
  const editSettings = async (change) => {
    const now = JSON.parse(fs.readFileSync(SETTINGS, "utf8"));
    await command("Preferences: Open User Settings (JSON)");
    await page.locator(".tab.active", { hasText: "settings.json" }).first().waitFor({ timeout: TIMEOUT });
    await page.locator(".monaco-editor .view-lines").first().click();
    await page.keyboard.press("Control+A");
    await page.keyboard.insertText(JSON.stringify({ ...now, ...change }));
    await page.keyboard.press("Control+Shift+End"); // drop what the editor closed for us (`"}`)
    await page.keyboard.press("Delete");
    await page.keyboard.press("Control+S");
    await page.waitForTimeout(1000);
    await page.keyboard.press("Control+W");
  };
  const open = async (file) => {
    const row = page.locator(".explorer-folders-view .monaco-list-row", { hasText: file });
    await row.first().waitFor({ timeout: TIMEOUT });
    await row.first().click();
    await page.locator(".tab.active", { hasText: file }).first().waitFor({ timeout: TIMEOUT });
  };
  try {
    result.step = "open";
    await page.goto(URL);
    await page.waitForSelector(".monaco-workbench", { timeout: TIMEOUT });
    await open("demo.py");

    result.step = "default interpreter";
    await toasts.filter({ hasText: "rlm" }).first().waitFor({ timeout: TIMEOUT });
    await page.waitForTimeout(8000); // anything else (a crash loop) would show by now
    result.notifications = (await toasts.allInnerTexts()).map(clean);
    await page.screenshot({ path: path.join(SHOTS, "vscode-interpreter.png") });

    result.step = "user settings + restart";
    await editSettings({ "rlm.pythonPath": PYTHON }); // this restarts the server on its own ...
    await hint.first().waitFor({ timeout: TIMEOUT });
    await page.locator(".statusbar-item", { hasText: "rlm: ready" }).first().waitFor({ timeout: TIMEOUT });
    // ... so the command below is one stop/start cycle: the old server stops (its hints go), a new
    // Python process starts and loads the model from disk, the open file gets its first hint
    const restarted = await command("rlm: Restart Server");
    const timeline = []; // [ms after the command, status bar text] at each change, for the bench
    let watching = true;
    const watch = (async () => {
      while (watching) {
        const text = await statusText().catch(() => "");
        if (!timeline.length || timeline[timeline.length - 1][1] !== text) timeline.push([Date.now() - restarted, text]);
        await page.waitForTimeout(25);
      }
    })();
    await noHints();
    result.stopped_ms = Date.now() - restarted;
    await hint.first().waitFor({ timeout: TIMEOUT });
    result.first_hint_ms = Date.now() - restarted; // #61: the first hint after the restart (bench, not a test)
    watching = false;
    await watch;
    result.restart_timeline = timeline;
    await page.locator(".statusbar-item", { hasText: "rlm: ready" }).first().waitFor({ timeout: TIMEOUT });
    result.later_notifications = (await toasts.allInnerTexts()).map(clean);
    // close the interpreter message (it was answered) so the screenshots show the editor
    for (const close of await page.locator(".notifications-toasts .codicon-notifications-clear").all()) {
      await close.click().catch(() => {});
    }
    await page.waitForTimeout(1500);
    result.hints = (await hint.allInnerTexts()).map(clean);
    result.status = await statusText();
    await page.screenshot({ path: path.join(SHOTS, "vscode.png") });

    result.step = "hover";
    await page.locator(".monaco-editor .view-line span", { hasText: /^make_table$/ }).first().hover();
    const hover = page.locator(".monaco-hover-content", { hasText: "rlm's estimate" });
    await hover.first().waitFor({ timeout: TIMEOUT });
    result.hover = clean(await hover.first().innerText());
    await page.waitForTimeout(800); // the hover fades in: a shot taken at once shows it half transparent
    await page.screenshot({ path: path.join(SHOTS, "vscode-hover.png") });
    await page.keyboard.press("Escape");

    result.step = "toggle";
    await command("rlm: Toggle Hints");
    await noHints();
    result.toggled_off = await hint.count();
    await page.locator(".statusbar-item", { hasText: "rlm: hints off" }).first().waitFor({ timeout: TIMEOUT });
    result.status_off = await statusText();
    await page.waitForTimeout(1000); // the settings write is on disk
    result.user_settings_after_toggle = readJson(SETTINGS);
    result.workspace_settings_after_toggle = readJson(path.join(WS, ".vscode", "settings.json"));
    await command("rlm: Toggle Hints");
    await hint.first().waitFor({ timeout: TIMEOUT });
    result.toggled_on = await hint.count();

    result.step = "exclude";
    await page.waitForTimeout(1000); // the toggle's own write of settings.json is done
    await editSettings({ "rlm.exclude": ["**/skipped_*.py"] });
    await open("skipped_demo.py");
    await page.waitForTimeout(8000); // time enough for hints to come, were it not excluded
    result.excluded_hints = await hint.count();

    result.step = "regression";
    await open("demo.py");
    await hint.first().waitFor({ timeout: TIMEOUT });
    const body = page.locator(".monaco-editor .view-line", { hasText: "return sum(values)" }).first();
    await body.click();
    await page.keyboard.press("End");
    await page.keyboard.press("Shift+Home");
    // insertText: one edit, no auto-indent of the pasted lines
    await page.keyboard.insertText("out = []\n    for v in values:\n        out.append(sorted(values * 100))\n" +
      "    return sum(len(o) for o in out)");
    await page.keyboard.press("Control+Shift+M"); // the Problems panel
    const problem = page.locator(".markers-panel .monaco-list-row", { hasText: "predicted" });
    await problem.first().waitFor({ timeout: TIMEOUT });
    await page.waitForTimeout(3000); // a second warning, were there one, would be here by now
    result.problems = (await page.locator(".markers-panel .monaco-list-row").allInnerTexts()).map(clean);
    await page.screenshot({ path: path.join(SHOTS, "vscode-regression.png") });

    result.step = "quick fixes";
    const editor = page.locator(".monaco-editor .view-lines").first();
    const fixes = page.locator(".action-widget .monaco-list-row", { hasText: "rlm:" });
    const quickFix = async () => {
      await page.locator(".monaco-editor .view-line span", { hasText: /^total$/ }).first().click();
      await page.keyboard.press("Control+.");
      await fixes.first().waitFor({ timeout: TIMEOUT });
    };
    const choose = async (text) => { // by keyboard: a pointer block lies over the menu
      const focused = page.locator(".action-widget .monaco-list-row.focused");
      for (let i = 0; i < 8 && !(await focused.innerText().catch(() => "")).includes(text); i++) {
        await page.keyboard.press("ArrowDown");
      }
      await page.keyboard.press("Enter");
    };
    await quickFix();
    result.quick_fixes = (await fixes.allInnerTexts()).map(clean);
    await page.screenshot({ path: path.join(SHOTS, "vscode-quickfix.png") });
    await choose("allow this regression");
    await page.locator(".monaco-editor .view-line", { hasText: "rlm: allow-regression" }).first()
      .waitFor({ timeout: TIMEOUT });
    result.allowed_text = clean(await editor.innerText());
    await page.waitForFunction(() => ![...document.querySelectorAll(".markers-panel .monaco-list-row")]
      .some((r) => r.textContent.includes("total: predicted")), null, { timeout: TIMEOUT });
    result.problems_after_allow = (await page.locator(".markers-panel .monaco-list-row").allInnerTexts()).map(clean);
    await page.keyboard.press("Control+Z"); // the pragma gone: the warning comes back
    await problem.first().waitFor({ timeout: TIMEOUT });
    await quickFix();
    await choose("exclude");
    const folderSettings = path.join(WS, ".vscode", "settings.json");
    const deadline = Date.now() + TIMEOUT;
    while (!(readJson(folderSettings) || {})["rlm.exclude"] && Date.now() < deadline) {
      await page.waitForTimeout(300);
    }
    result.exclude_setting = (readJson(folderSettings) || {})["rlm.exclude"] || null;
    await page.waitForFunction(() => ![...document.querySelectorAll(".monaco-editor .view-line span")]
      .some((s) => /≈\smem/.test(s.textContent.replace(/\u00a0/g, " "))), null, { timeout: TIMEOUT });
    result.hints_after_exclude = await hint.count();
    result.step = "done";
  } catch (err) {
    result.error = `${result.step}: ${String(err)}`;
    result.status = result.status || (await statusText().catch(() => ""));
    await page.screenshot({ path: process.env.FAILED_SHOT || "vscode-failed.png" }).catch(() => {});
  } finally {
    await browser.close();
  }
  console.log(JSON.stringify(result));
  process.exit(result.error ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(2);
});
