// Wiring only: output channel, status bar, server start/restart. The logic lives in config.ts.
import * as vscode from "vscode";
import {
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
  TransportKind,
} from "vscode-languageclient/node";

import { initializationOptions, parseStatus, RESTART_KEYS, serverLaunch, ServerState, statusItem } from "./config";

let client: LanguageClient | undefined;
let log: vscode.LogOutputChannel;
let status: vscode.StatusBarItem;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  log = vscode.window.createOutputChannel("rlm", { log: true });
  status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
  status.command = "rlm.showLog";
  context.subscriptions.push(
    log,
    status,
    vscode.commands.registerCommand("rlm.restartServer", () => restart()),
    vscode.commands.registerCommand("rlm.showLog", () => log.show()),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (RESTART_KEYS.some((key) => event.affectsConfiguration(key))) {
        log.info("interpreter setting changed: restarting the server");
        void restart();
      }
      // Every other rlm.* setting reaches the running server (workspace/didChangeConfiguration).
    }),
    { dispose: () => void stop() },
  );
  await start();
}

export async function deactivate(): Promise<void> {
  await stop();
}

function setStatus(state: ServerState, message = ""): void {
  const item = statusItem(state, message);
  status.text = item.text;
  status.tooltip = item.tooltip;
  status.show();
}

async function start(): Promise<void> {
  const config = vscode.workspace.getConfiguration("rlm");
  const launch = serverLaunch(config.get<string>("pythonPath"));
  log.info(`starting ${launch.command} ${launch.args.join(" ")}`);
  const serverOptions: ServerOptions = {
    command: launch.command,
    args: launch.args,
    transport: TransportKind.stdio,
    options: { env: { ...process.env, PYTHONUNBUFFERED: "1" } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "python" },
      { scheme: "untitled", language: "python" },
    ],
    outputChannel: log,
    initializationOptions: initializationOptions(config),
    synchronize: { configurationSection: "rlm" },
  };
  client = new LanguageClient("rlm", "rlm", serverOptions, clientOptions);
  client.onDidChangeState((event) => {
    if (event.newState === State.Starting) {
      setStatus("starting");
    } else if (event.newState === State.Stopped) {
      setStatus("stopped");
    }
  });
  // Registered before start so the "loading" status of the first model load is not missed.
  client.onNotification("rlm/status", (params: unknown) => {
    const parsed = parseStatus(params);
    if (parsed) {
      setStatus(parsed.state, parsed.message);
      log.info(`status: ${parsed.state} ${parsed.message}`);
    }
  });
  setStatus("starting");
  try {
    await client.start();
  } catch (err) {
    log.error(`the server did not start: ${String(err)}`);
    setStatus("error", "the server did not start; check rlm.pythonPath");
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

async function restart(): Promise<void> {
  await stop();
  await start();
}
