// The extension's pure glue: settings -> server launch and initializationOptions, status texts.
// No `vscode` import, so node:test can run it without an editor.

export interface ConfigReader {
  get<T>(key: string): T | undefined;
}

export interface ServerLaunch {
  command: string;
  args: string[];
}

/** Settings that change how the server process starts; a change restarts it. */
export const RESTART_KEYS = ["rlm.pythonPath"];

const SERVER_KEYS = [
  "modelPath",
  "device",
  "threads",
  "debounceMs",
  "metrics",
  "features",
  "budgets",
  "regressionRatio",
  "gpu",
];

/** `<python> -m rlm_lsp`; an empty setting means `python3` from PATH. */
export function serverLaunch(pythonPath: string | undefined): ServerLaunch {
  const python = (pythonPath ?? "").trim() || "python3";
  return { command: python, args: ["-m", "rlm_lsp"] };
}

/** What the server reads as initializationOptions (and from workspace/configuration later). */
export function initializationOptions(config: ConfigReader): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of SERVER_KEYS) {
    const value = config.get<unknown>(key);
    if (value !== undefined && value !== null) {
      out[key] = value;
    }
  }
  return out;
}

export type ServerState = "starting" | "loading" | "ready" | "working" | "error" | "stopped";

/** Status bar text (with a codicon) and tooltip for a server state. */
export function statusItem(state: ServerState, message = ""): { text: string; tooltip: string } {
  const detail = message ? `: ${message}` : "";
  switch (state) {
    case "starting":
      return { text: "$(loading~spin) rlm", tooltip: "rlm: starting the server" };
    case "loading":
      return { text: "$(loading~spin) rlm", tooltip: `rlm: loading the model${detail}` };
    case "ready":
      return { text: "$(pulse) rlm", tooltip: `rlm: model loaded${detail}` };
    case "working":
      return { text: "$(sync~spin) rlm", tooltip: "rlm: predicting" };
    case "error":
      return { text: "$(error) rlm", tooltip: `rlm: error${detail} (click for the log)` };
    case "stopped":
      return { text: "$(circle-slash) rlm", tooltip: "rlm: server stopped" };
  }
}

/** Narrow the server's `rlm/status` notification to a known state. */
export function parseStatus(params: unknown): { state: ServerState; message: string } | undefined {
  if (typeof params !== "object" || params === null) {
    return undefined;
  }
  const { state, message } = params as { state?: unknown; message?: unknown };
  const known: ServerState[] = ["loading", "ready", "working", "error"];
  if (typeof state !== "string" || !known.includes(state as ServerState)) {
    return undefined;
  }
  return { state: state as ServerState, message: typeof message === "string" ? message : "" };
}
