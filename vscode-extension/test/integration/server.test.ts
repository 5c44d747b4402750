// Integration: the real Python server over stdio, driven through vscode-languageserver-protocol
// (the library vscode-languageclient is built on), launched the way the extension launches it.
//
//   RLM_TEST_MODEL_DIR=/path/to/model RLM_PYTHON=/path/to/python npm run test:integration
//
// Without RLM_TEST_MODEL_DIR the test is skipped (tests/test_vscode_extension.py sets both).
import assert from "node:assert/strict";
import { ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";
import { pathToFileURL } from "node:url";
import {
  CodeLensRequest,
  ConfigurationRequest,
  createProtocolConnection,
  DidOpenTextDocumentNotification,
  ExitNotification,
  HoverRequest,
  InitializedNotification,
  InitializeRequest,
  InlayHintRefreshRequest,
  InlayHintRequest,
  MarkupContent,
  ProtocolConnection,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  WorkDoneProgressCreateRequest,
  CodeLensRefreshRequest,
} from "vscode-languageserver-protocol/node";

import { initializationOptions, serverLaunch } from "../../src/config";

const MODEL = process.env.RLM_TEST_MODEL_DIR;
const REPO_ROOT = path.resolve(__dirname, "../../../..");
const PYTHON = process.env.RLM_PYTHON ?? path.join(REPO_ROOT, ".venv/bin/python");
const SOURCE = [
  "def make_table(n):",
  "    return [[i * j for j in range(n)] for i in range(n)]",
  "",
  "",
  "class Parser:",
  "    def parse(self, text):",
  "        return text.split()",
  "",
].join("\n");

let server: ChildProcess;
let connection: ProtocolConnection;
let refreshed: Promise<void>;
let workspace: string;

before(async () => {
  if (!MODEL) {
    return;
  }
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), "rlm-vscode-it-"));
  fs.writeFileSync(path.join(workspace, "demo.py"), SOURCE);
  const settings = {
    modelPath: MODEL, debounceMs: 50, metrics: { memory: true, latency: true }, features: { codeLens: true },
  };
  const launch = serverLaunch({ get: <T>(key: string) => (key === "pythonPath" ? PYTHON : undefined) as T | undefined });
  server = spawn(launch.command, launch.args, { cwd: REPO_ROOT, stdio: ["pipe", "pipe", "inherit"] });
  connection = createProtocolConnection(
    new StreamMessageReader(server.stdout!),
    new StreamMessageWriter(server.stdin!),
  );
  connection.onRequest(ConfigurationRequest.type, (params) => params.items.map(() => settings));
  connection.onRequest(WorkDoneProgressCreateRequest.type, () => undefined);
  connection.onRequest(CodeLensRefreshRequest.type, () => undefined);
  refreshed = new Promise((resolve) => {
    connection.onRequest(InlayHintRefreshRequest.type, () => {
      resolve();
    });
  });
  connection.listen();
  const result = await connection.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    rootUri: pathToFileURL(workspace).href,
    workspaceFolders: null,
    initializationOptions: initializationOptions({ get: <T>(k: string) => (settings as Record<string, unknown>)[k] as T }),
    capabilities: {
      workspace: { configuration: true, inlayHint: { refreshSupport: true }, codeLens: { refreshSupport: true } },
      window: { workDoneProgress: true },
      textDocument: { inlayHint: {}, codeLens: {}, hover: { contentFormat: ["markdown"] } },
    },
  });
  assert.ok(result.capabilities.inlayHintProvider, "the server offers inlay hints");
  assert.ok(result.capabilities.codeLensProvider, "the server offers code lenses");
  assert.ok(result.capabilities.hoverProvider, "the server offers hovers");
  await connection.sendNotification(InitializedNotification.type, {});
});

after(async () => {
  if (!MODEL) {
    return;
  }
  await connection.sendRequest(ShutdownRequest.type);
  await connection.sendNotification(ExitNotification.type);
  if (server.exitCode === null) {
    await new Promise((resolve) => server.once("exit", resolve));
  }
  connection.dispose();
  fs.rmSync(workspace, { recursive: true, force: true });
});

test("inlay hints, code lenses and a hover from the real server", { skip: !MODEL && "RLM_TEST_MODEL_DIR not set" }, async () => {
  const uri = pathToFileURL(path.join(workspace, "demo.py")).href;
  await connection.sendNotification(DidOpenTextDocumentNotification.type, {
    textDocument: { uri, languageId: "python", version: 1, text: SOURCE },
  });
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    refreshed,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error("no inlayHint/refresh within 60 s")), 60_000);
    }),
  ]);
  clearTimeout(timer);

  const hints = await connection.sendRequest(InlayHintRequest.type, {
    textDocument: { uri },
    range: { start: { line: 0, character: 0 }, end: { line: 8, character: 0 } },
  });
  assert.ok(hints);
  assert.deepEqual(
    hints.map((h) => h.position),
    [
      { line: 0, character: 18 },
      { line: 5, character: 26 },
    ],
  );
  for (const hint of hints) {
    assert.match(String(hint.label), /^≈ (⚠ )?mem \S+ \S+ · (⚠ )?time \S+ \S+$/);
  }

  const lenses = await connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } });
  assert.ok(lenses);
  assert.deepEqual(
    lenses.map((l) => l.range.start.line),
    [0, 5],
  );
  for (const lens of lenses) {
    assert.match(lens.command?.title ?? "", /^rlm likely: mem .+ · time .+ \(p10–p90\)$/);
  }

  const hover = await connection.sendRequest(HoverRequest.type, {
    textDocument: { uri },
    position: { line: 5, character: 10 },
  });
  assert.ok(hover);
  const value = (hover.contents as MarkupContent).value;
  assert.match(value, /\*\*Parser\.parse\*\*: rlm's estimate per call, for a typical large input/);
  assert.match(value, /\*\*peak memory\*\* ≈ /);
  assert.match(value, /\*\*run time\*\* ≈ /);
  assert.match(value, /(fairly sure|unsure|very unsure): likely between .+ \(p10–p90/);
});
