// Unit tests of the extension's glue (no editor needed).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import {
  CLIENT_COMMANDS,
  documentSelector,
  EXCLUDE_COMMAND,
  excludeEntry,
  hintsTarget,
  initializationOptions,
  LANGUAGES,
  parseStatus,
  probeMessage,
  RELOAD_KEYS,
  RESTART_KEYS,
  serverLaunch,
  statusItem,
  withExcluded,
} from "../../src/config";

function reader(values: Record<string, unknown>) {
  return { get: <T>(key: string) => values[key] as T | undefined };
}

test("interpreter: rlm.interpreter, then rlm.pythonPath, then the Python extension, then python3", () => {
  const args = ["-m", "rlm_lsp"];
  assert.deepEqual(serverLaunch(reader({ interpreter: ["/venv/bin/python", "-X", "utf8"], pythonPath: "/p" }), "/ext"), {
    command: "/venv/bin/python", args: ["-X", "utf8", ...args], source: "rlm.interpreter",
  });
  assert.deepEqual(serverLaunch(reader({ interpreter: [], pythonPath: "  /p y/python  " }), "/ext"), {
    command: "/p y/python", args, source: "rlm.pythonPath",
  });
  assert.deepEqual(serverLaunch(reader({ interpreter: [""], pythonPath: "" }), "/ext/python"), {
    command: "/ext/python", args, source: "the Python extension's interpreter",
  });
  assert.deepEqual(serverLaunch(reader({})), { command: "python3", args, source: "python3 from PATH" });
});

test("one message for an interpreter without rlm-lsp names the cause and the fix", () => {
  const launch = serverLaunch(reader({}));
  const missing = probeMessage(launch, "Traceback (most recent call last):\n  File \"<string>\", line 1\n" +
    "ModuleNotFoundError: No module named 'rlm_lsp'\n");
  assert.equal(missing, "rlm: python3 (python3 from PATH) has no rlm_lsp (No module named 'rlm_lsp'). " +
    "Install rlm-lsp into it from your rlm-lsp checkout with `python3 -m pip install <path to the checkout>` " +
    "(or a wheel built from it: `python3 -m pip install rlm_lsp-*.whl`), " +
    "or select an interpreter that has it (rlm.interpreter).");
  assert.match(probeMessage(serverLaunch(reader({ pythonPath: "/nope/python" })), "ENOENT"),
    /^rlm: \/nope\/python \(rlm.pythonPath\) was not found\. Install/);
  assert.match(probeMessage(launch, "SyntaxError: bad\n"), /cannot run the server: SyntaxError: bad\./);
});

test("initializationOptions carries the server settings with the server's keys", () => {
  const options = initializationOptions(
    reader({
      pythonPath: "/venv/bin/python",
      modelPath: "/models/m",
      device: "cpu",
      threads: 2,
      debounceMs: 100,
      metrics: { memory: true, latency: false },
      features: { inlayHints: true, codeLens: false, hover: true, diagnostics: true },
      budgets: { memory: "512 MB", latency: "" },
      regressionRatio: 2,
      gpu: "H100",
      exclude: ["**/tests/**"],
      logLevel: "info",
      showNotifications: "off",
      n: "1e5",
      trace: { server: "off" },
    }),
  );
  assert.deepEqual(options, {
    modelPath: "/models/m",
    device: "cpu",
    threads: 2,
    debounceMs: 100,
    metrics: { memory: true, latency: false },
    features: { inlayHints: true, codeLens: false, hover: true, diagnostics: true },
    budgets: { memory: "512 MB", latency: "" },
    regressionRatio: 2,
    gpu: "H100",
    exclude: ["**/tests/**"],
    logLevel: "info",
    showNotifications: "off",
    n: "1e5",
  });
  assert.deepEqual(initializationOptions(reader({})), {});
});

test("only the interpreter settings restart the server; model settings reload it in place", () => {
  assert.deepEqual(RESTART_KEYS, ["rlm.interpreter", "rlm.pythonPath"]);
  assert.deepEqual(RELOAD_KEYS, ["rlm.modelPath", "rlm.device", "rlm.threads", "rlm.gpu"]);
});

test("status bar texts", () => {
  assert.equal(statusItem("ready", "the shipped model on CPU").text, "$(pulse) rlm: ready");
  assert.match(statusItem("ready", "the shipped model on CPU").tooltip, /ready: the shipped model on CPU/);
  assert.equal(statusItem("loading").text, "$(loading~spin) rlm: loading model");
  assert.equal(statusItem("working").text, "$(sync~spin) rlm: predicting");
  assert.equal(statusItem("off").text, "$(eye-closed) rlm: hints off");
  assert.match(statusItem("error", "no model").tooltip, /error: no model/);
  assert.match(statusItem("working").tooltip, /predicting/);
});

test("rlm/status notifications are validated", () => {
  assert.deepEqual(parseStatus({ state: "ready", message: "m" }), { state: "ready", message: "m" });
  assert.deepEqual(parseStatus({ state: "error" }), { state: "error", message: "" });
  assert.equal(parseStatus({ state: "exploded" }), undefined);
  assert.equal(parseStatus(null), undefined);
  assert.equal(parseStatus("ready"), undefined);
});

test("package.json settings are namespaced, described, scoped and defaulted", () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pkg = require("../../../package.json");
  const props = pkg.contributes.configuration.properties as Record<string, Record<string, unknown>>;
  for (const [key, spec] of Object.entries(props)) {
    assert.match(key, /^rlm\./);
    assert.ok(spec.description, `${key} has a description`);
    assert.ok(spec.scope, `${key} has a scope`);
    // code-server applied a User-level change of a machine-overridable setting at start-up only
    assert.notEqual(spec.scope, "machine-overridable", `${key} is read again after a change`);
    assert.ok("default" in spec, `${key} has a default`);
  }
  for (const key of ["rlm.pythonPath", "rlm.modelPath", "rlm.device", "rlm.threads", "rlm.debounceMs",
    "rlm.regressionRatio", "rlm.budgets.memory", "rlm.metrics.latency", "rlm.features.inlayHints", "rlm.gpu",
    "rlm.interpreter", "rlm.exclude", "rlm.logLevel", "rlm.showNotifications"]) {
    assert.ok(props[key], `${key} is contributed`);
  }
  assert.deepEqual(props["rlm.device"].enum, ["auto", "cpu", "cuda"]);
  const commands = pkg.contributes.commands.map((c: { command: string }) => c.command);
  for (const command of ["rlm.restartServer", "rlm.toggleHints", "rlm.toggleHintsGlobally", "rlm.selectInterpreter",
    "rlm.showLog", ...CLIENT_COMMANDS]) {
    assert.ok(commands.includes(command), `${command} is contributed`);
  }
  assert.equal(props["rlm.features.codeLens"].default, false);
  assert.equal(props["rlm.showNotifications"].default, "off");
  assert.equal(pkg.license, "Apache-2.0");
  assert.ok(pkg.repository && pkg.icon);
});

test("Toggle Hints writes to this workspace; all workspaces only when asked or with no folder open", () => {
  assert.deepEqual(hintsTarget(false, true, false), { write: "workspace", clearWorkspace: false });
  assert.deepEqual(hintsTarget(false, true, true), { write: "workspace", clearWorkspace: false });
  // asked for all workspaces: the User value, and this workspace's own value would hide it
  assert.deepEqual(hintsTarget(true, true, true), { write: "global", clearWorkspace: true });
  assert.deepEqual(hintsTarget(true, true, false), { write: "global", clearWorkspace: false });
  assert.deepEqual(hintsTarget(false, false, false), { write: "global", clearWorkspace: false }); // no folder
});

test("the exclude quick fix adds an anchored glob of the file to the effective rlm.exclude", () => {
  assert.equal(EXCLUDE_COMMAND, "rlm.excludeFile");
  assert.equal(excludeEntry("/w/proj/demo.py", "/w/proj"), "/demo.py"); // that file, not every demo.py
  assert.equal(excludeEntry("/w/proj/pkg/gen.py", "/w/proj/"), "/pkg/gen.py");
  assert.equal(excludeEntry("C:\\w\\proj\\pkg\\gen.py", "C:\\w\\proj"), "/pkg/gen.py");
  assert.equal(excludeEntry("/w/projx/a.py", "/w/proj"), "/w/projx/a.py"); // outside the folder: absolute
  assert.equal(excludeEntry("/tmp/a.py"), "/tmp/a.py"); // no folder open
  assert.deepEqual(withExcluded(["**/tests/**"], "/demo.py"), ["**/tests/**", "/demo.py"]);
  assert.deepEqual(withExcluded(["/demo.py"], "/demo.py"), ["/demo.py"]);
  assert.deepEqual(withExcluded(undefined, "/demo.py"), ["/demo.py"]);
  assert.deepEqual(withExcluded(["a", 3], "/demo.py"), ["a", "/demo.py"]);
});

test("the extension starts and sends documents for Python, C++, C, Java and Go, as package.json activates it", () => {
  const pkg = JSON.parse(readFileSync(path.join(__dirname, "..", "..", "..", "package.json"), "utf8"));
  assert.deepEqual(pkg.activationEvents, LANGUAGES.map((lang) => `onLanguage:${lang}`));
  assert.deepEqual(new Set(LANGUAGES), new Set(["python", "cpp", "c", "java", "go"]));
  assert.deepEqual(documentSelector().filter((s) => s.language === "cpp"), [
    { scheme: "file", language: "cpp" }, { scheme: "untitled", language: "cpp" },
  ]);
});
