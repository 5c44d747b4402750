// Wiring only: output channel, status bar, commands, interpreter check, server start/restart.
// The logic lives in config.ts.
import { execFile } from "node:child_process";
import * as vscode from "vscode";
import {
  CloseAction,
  ErrorAction,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
  TransportKind,
} from "vscode-languageclient/node";

import {
  CLIENT_COMMANDS,
  EXCLUDE_COMMAND,
  excludeEntry,
  documentSelector,
  hintsTarget,
  initializationOptions,
  parseStatus,
  PROBE_ARGS,
  probeMessage,
  RELOAD_KEYS,
  RESTART_KEYS,
  ServerLaunch,
  serverLaunch,
  ServerState,
  statusItem,
  withExcluded,
} from "./config";

let client: LanguageClient | undefined;
let log: vscode.LogOutputChannel;
let status: vscode.StatusBarItem;
let serverState: { state: ServerState; message: string } = { state: "starting", message: "" };

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  log = vscode.window.createOutputChannel("rlm", { log: true });
  status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
  status.command = "rlm.toggleHints";
  context.subscriptions.push(
    log,
    status,
    vscode.commands.registerCommand("rlm.restartServer", () => restart()),
    vscode.commands.registerCommand("rlm.showLog", () => log.show()),
    vscode.commands.registerCommand("rlm.toggleHints", () => toggleHints(false)),
    vscode.commands.registerCommand("rlm.toggleHintsGlobally", () => toggleHints(true)),
    vscode.commands.registerCommand(EXCLUDE_COMMAND, (uri?: string) => excludeFile(uri)),
    vscode.commands.registerCommand("rlm.selectInterpreter", () => selectInterpreter()),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (RESTART_KEYS.some((key) => event.affectsConfiguration(key))) {
        log.info("the interpreter setting changed: restarting the server");
        void restart();
        return;
      }
      // Every other rlm.* setting reaches the running server (workspace/didChangeConfiguration).
      const reload = RELOAD_KEYS.filter((key) => event.affectsConfiguration(key));
      if (reload.length) {
        log.info(`${reload.join(", ")} changed: the server reloads the model (no restart needed)`);
      }
      if (event.affectsConfiguration("rlm.features.inlayHints")) {
        showStatus();
      }
    }),
    { dispose: () => void stop() },
  );
  await watchPythonExtension(context);
  await restart();
}

export async function deactivate(): Promise<void> {
  await stop();
}

function settings(): vscode.WorkspaceConfiguration {
  // One place, read afresh at every start and restart: the first folder's view (User, then
  // Workspace, then Folder values); the server asks per folder itself (scopeUri).
  return vscode.workspace.getConfiguration("rlm", vscode.workspace.workspaceFolders?.[0]?.uri);
}

function hintsOn(): boolean {
  return settings().get<boolean>("features.inlayHints") !== false;
}

function setStatus(state: ServerState, message = ""): void {
  serverState = { state, message };
  showStatus();
}

function showStatus(): void {
  const { state, message } = serverState;
  const shown = state === "ready" && !hintsOn() ? "off" : state;
  const item = statusItem(shown, message);
  status.text = item.text;
  status.tooltip = item.tooltip;
  status.command = state === "error" || state === "stopped" ? "rlm.showLog" : "rlm.toggleHints";
  status.show();
}

/** Hints off or on in this workspace (its settings.json), or for every workspace (User settings)
 * with `global` or when no folder is open. */
async function toggleHints(global: boolean): Promise<void> {
  const config = settings();
  const where = hintsTarget(global, !!vscode.workspace.workspaceFolders?.length,
    config.inspect<boolean>("features.inlayHints")?.workspaceValue !== undefined);
  const next = !hintsOn();
  if (where.clearWorkspace) {
    await config.update("features.inlayHints", undefined, vscode.ConfigurationTarget.Workspace);
  }
  const target = where.write === "global" ? vscode.ConfigurationTarget.Global : vscode.ConfigurationTarget.Workspace;
  await config.update("features.inlayHints", next, target);
  log.info(`inlay hints ${next ? "on" : "off"} (${where.write === "global" ? "all workspaces" : "this workspace"})`);
  showStatus();
}

/** The quick fix "exclude this file": add it to its workspace folder's `rlm.exclude`. */
async function excludeFile(arg?: string): Promise<void> {
  const uri = arg ? vscode.Uri.parse(arg) : vscode.window.activeTextEditor?.document.uri;
  if (!uri || uri.scheme !== "file") {
    return;
  }
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  const config = vscode.workspace.getConfiguration("rlm", uri);
  const entry = excludeEntry(uri.fsPath, folder?.uri.fsPath);
  const target = folder ? vscode.ConfigurationTarget.WorkspaceFolder : vscode.ConfigurationTarget.Global;
  await config.update("exclude", withExcluded(config.get<unknown>("exclude"), entry), target);
  log.info(`rlm.exclude: added ${entry}`);
}

interface PythonApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string };
    resolveEnvironment(env: { path: string }): Promise<{ executable: { uri?: vscode.Uri } } | undefined>;
    onDidChangeActiveEnvironmentPath: vscode.Event<unknown>;
  };
}

async function pythonApi(): Promise<PythonApi | undefined> {
  const ext = vscode.extensions.getExtension<PythonApi>("ms-python.python");
  if (!ext) {
    return undefined;
  }
  try {
    return ext.isActive ? ext.exports : await ext.activate();
  } catch (err) {
    log.warn(`the Python extension did not activate: ${String(err)}`);
    return undefined;
  }
}

async function pythonExtensionInterpreter(): Promise<string | undefined> {
  const api = await pythonApi();
  try {
    const envs = api?.environments;
    if (!envs) {
      return undefined;
    }
    const env = await envs.resolveEnvironment(envs.getActiveEnvironmentPath(vscode.workspace.workspaceFolders?.[0]?.uri));
    return env?.executable.uri?.fsPath;
  } catch (err) {
    log.warn(`no interpreter from the Python extension: ${String(err)}`);
    return undefined;
  }
}

async function watchPythonExtension(context: vscode.ExtensionContext): Promise<void> {
  const envs = (await pythonApi())?.environments;
  if (envs) {
    context.subscriptions.push(
      envs.onDidChangeActiveEnvironmentPath(() => {
        const config = settings();
        if (!config.get<string[]>("interpreter")?.length && !config.get<string>("pythonPath")) {
          log.info("the Python extension's interpreter changed: restarting the server");
          void restart();
        }
      }),
    );
  }
}

async function selectInterpreter(): Promise<void> {
  if (vscode.extensions.getExtension("ms-python.python")) {
    await vscode.commands.executeCommand("python.setInterpreter");
    return;
  }
  const picked = await vscode.window.showOpenDialog({
    title: "rlm: the Python interpreter that has rlm-lsp installed",
    canSelectMany: false,
    openLabel: "Use this interpreter",
  });
  if (picked?.[0]) {
    await settings().update("interpreter", [picked[0].fsPath], vscode.ConfigurationTarget.Global);
  }
}

/** Run the interpreter once before the server: a missing package gives one message, not a crash loop. */
function probe(launch: ServerLaunch): Promise<string | undefined> {
  return new Promise((resolve) => {
    const args = [...launch.args.slice(0, -2), ...PROBE_ARGS];
    execFile(launch.command, args, { timeout: 30000 }, (err, stdout, stderr) => {
      if (!err) {
        log.info(`${launch.command} has rlm-lsp ${stdout.trim()}`);
        resolve(undefined);
      } else {
        resolve(stderr || String((err as NodeJS.ErrnoException).code ?? err.message));
      }
    });
  });
}

async function start(): Promise<void> {
  const config = settings();
  const launch = serverLaunch(config, await pythonExtensionInterpreter());
  log.info(`interpreter: ${launch.command} (${launch.source})`);
  const where = config.inspect<string>("pythonPath");
  log.debug(`rlm.pythonPath: user ${JSON.stringify(where?.globalValue)}, workspace ${JSON.stringify(where?.workspaceValue)}`);
  setStatus("starting");
  const failure = await probe(launch);
  if (failure !== undefined) {
    const message = probeMessage(launch, failure);
    log.error(message);
    log.error(failure.trim());
    setStatus("error", "no usable interpreter");
    void vscode.window.showErrorMessage(message, "Select Interpreter", "Show Log").then((choice) => {
      if (choice === "Select Interpreter") {
        void selectInterpreter();
      } else if (choice === "Show Log") {
        log.show();
      }
    });
    return;
  }
  log.info(`starting ${launch.command} ${launch.args.join(" ")}`);
  const options = initializationOptions(config);
  const serverOptions: ServerOptions = {
    command: launch.command,
    args: launch.args,
    transport: TransportKind.stdio,
    // RLM_PRELOAD: the server loads this model while it imports, before `initialize` arrives (#61)
    options: { env: { RLM_PRELOAD: JSON.stringify(options), ...process.env, PYTHONUNBUFFERED: "1" } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: documentSelector(),
    outputChannel: log,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    initializationOptions: options,
    synchronize: { configurationSection: "rlm" },
    initializationFailedHandler: (err) => {
      log.error(`the server did not initialize: ${String(err)}`);
      return false; // no retry loop
    },
    errorHandler: {
      error: () => ({ action: ErrorAction.Continue, handled: true }),
      closed: () => {
        setStatus("stopped", "it exited; see the log, then rlm: Restart Server");
        return { action: CloseAction.DoNotRestart, handled: true };
      },
    },
  };
  client = new LanguageClient("rlm", "rlm", serverOptions, clientOptions);
  // Tell the server which commands of ours its code actions may name (the exclude quick fix).
  client.registerFeature({
    fillClientCapabilities: (capabilities) => {
      capabilities.experimental = { ...(capabilities.experimental ?? {}), rlm: { commands: CLIENT_COMMANDS } };
    },
    initialize: () => undefined,
    getState: () => ({ kind: "static" }),
    clear: () => undefined,
  });
  client.onDidChangeState((event) => {
    if (event.newState === State.Starting) {
      setStatus("starting");
    }
  });
  // Registered before start so the "loading" status of the first model load is not missed.
  client.onNotification("rlm/status", (params: unknown) => {
    const parsed = parseStatus(params);
    if (parsed) {
      setStatus(parsed.state, parsed.message);
      log.debug(`status: ${parsed.state} ${parsed.message}`);
    }
  });
  try {
    await client.start();
  } catch (err) {
    log.error(`the server did not start: ${String(err)}`);
    setStatus("error", "the server did not start; see the log");
  }
}

async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  if (running) {
    try {
      await running.stop();
    } catch (err) {
      log.warn(`stopping the server: ${String(err)}`);
    }
  }
}

let queue: Promise<void> = Promise.resolve();

/** Stop, then start; restarts asked for while one runs (a settings change and the command) queue up. */
function restart(): Promise<void> {
  queue = queue.then(async () => {
    await stop();
    await start();
  });
  return queue;
}
