// Unit tests of the extension's glue (no editor needed).
import assert from "node:assert/strict";
import { test } from "node:test";

import { initializationOptions, parseStatus, RESTART_KEYS, serverLaunch, statusItem } from "../../src/config";

function reader(values: Record<string, unknown>) {
  return { get: <T>(key: string) => values[key] as T | undefined };
}

test("server launch uses the configured interpreter, python3 by default", () => {
  assert.deepEqual(serverLaunch("/venv/bin/python"), { command: "/venv/bin/python", args: ["-m", "rlm_lsp"] });
  assert.deepEqual(serverLaunch(""), { command: "python3", args: ["-m", "rlm_lsp"] });
  assert.deepEqual(serverLaunch(undefined), { command: "python3", args: ["-m", "rlm_lsp"] });
  assert.deepEqual(serverLaunch("  /p y/python  "), { command: "/p y/python", args: ["-m", "rlm_lsp"] });
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
  });
  assert.deepEqual(initializationOptions(reader({})), {});
});

test("only the interpreter setting restarts the server", () => {
  assert.deepEqual(RESTART_KEYS, ["rlm.pythonPath"]);
});

test("status bar texts", () => {
  assert.equal(statusItem("ready", "model tiny").text, "$(pulse) rlm");
  assert.match(statusItem("ready", "model tiny").tooltip, /model loaded: model tiny/);
  assert.match(statusItem("loading").text, /spin/);
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
    assert.ok("default" in spec, `${key} has a default`);
  }
  for (const key of ["rlm.pythonPath", "rlm.modelPath", "rlm.device", "rlm.threads", "rlm.debounceMs",
    "rlm.regressionRatio", "rlm.budgets.memory", "rlm.metrics.latency", "rlm.features.inlayHints", "rlm.gpu"]) {
    assert.ok(props[key], `${key} is contributed`);
  }
  assert.deepEqual(props["rlm.device"].enum, ["auto", "cpu", "cuda"]);
  const commands = pkg.contributes.commands.map((c: { command: string }) => c.command);
  assert.ok(commands.includes("rlm.restartServer"));
});
