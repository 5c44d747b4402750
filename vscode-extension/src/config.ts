// The extension's pure glue: which interpreter, the launch command, initializationOptions, the
// one message for an interpreter that cannot run the server, status texts.
// No `vscode` import, so node:test can run it without an editor.

export interface ConfigReader {
  get<T>(key: string): T | undefined;
}

export interface ServerLaunch {
  command: string;
  args: string[];
  /** Where the interpreter came from, for the log and the message: "rlm.interpreter", ... */
  source: string;
}

/** Settings that change how the server process starts; a change restarts it. */
export const RESTART_KEYS = ["rlm.interpreter", "rlm.pythonPath"];
/** The editor languages the server is started for and sent (package.json's activationEvents name the
 * same). C++, Java and Go get hints when the model reads them; otherwise the server says why, once. A C
 * file ("c") is read by the C++ grammar. */
export const LANGUAGES = ["python", "cpp", "c", "java", "go"];

/** Saved files and untitled buffers of each of `LANGUAGES`. */
export function documentSelector(): { scheme: string; language: string }[] {
  return LANGUAGES.flatMap((language) => ["file", "untitled"].map((scheme) => ({ scheme, language })));
}

/** Settings the running server applies itself by reloading the model (no restart). */
export const RELOAD_KEYS = ["rlm.modelPath", "rlm.device", "rlm.threads", "rlm.gpu"];

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
  "exclude",
  "logLevel",
  "showNotifications",
  "settleMs",
  "n",
];

/** The interpreter, in the order ruff and the Python tools template use: `rlm.interpreter`, then
 * the older `rlm.pythonPath`, then the Python extension's active interpreter, then `python3`. */
export function serverLaunch(config: ConfigReader, pythonExtension?: string): ServerLaunch {
  const interpreter = (config.get<string[]>("interpreter") ?? []).map((s) => String(s).trim()).filter(Boolean);
  const pythonPath = (config.get<string>("pythonPath") ?? "").trim();
  const args = ["-m", "rlm_lsp"];
  if (interpreter.length) {
    return { command: interpreter[0], args: [...interpreter.slice(1), ...args], source: "rlm.interpreter" };
  }
  if (pythonPath) {
    return { command: pythonPath, args, source: "rlm.pythonPath" };
  }
  if (pythonExtension) {
    return { command: pythonExtension, args, source: "the Python extension's interpreter" };
  }
  return { command: "python3", args, source: "python3 from PATH" };
}

/** Arguments that make the interpreter find what the server needs without importing any of it (importing
 * rlm_lsp.server and its dependencies took 1.6 s, `import rlm_lsp` alone 0.3 s, paid again by the server
 * itself at every start, #61): each package found, else the same `No module named 'x'` an import would
 * raise; then rlm-lsp's version, read from its `__init__.py`. */
export const PROBE_ARGS = [
  "-c",
  "import importlib.util as u, re\n" +
    "for m in ('rlm_lsp', 'pygls', 'lsprotocol', 'onnxruntime', 'tokenizers', 'numpy'):\n" +
    "    if u.find_spec(m) is None: raise ModuleNotFoundError(f\"No module named '{m}'\")\n" +
    "v = re.search(r'__version__ = \"([^\"]+)\"', open(u.find_spec('rlm_lsp').origin, encoding='utf-8').read())\n" +
    "print(v[1] if v else '(version unknown)')",
];

/** The one message for an interpreter that cannot run the server (the probe failed), naming the fix.
 * `output` is the probe's stderr, or the spawn error ("ENOENT"). */
export function probeMessage(launch: ServerLaunch, output: string): string {
  const lines = output.trim().split(/\r?\n/).filter(Boolean);
  const last = lines.length ? lines[lines.length - 1] : "it did not start";
  const missing = /No module named '([^']+)'/.exec(output);
  const notFound = /ENOENT|not found|No such file/.test(output);
  const python = launch.command.includes(" ") ? `"${launch.command}"` : launch.command;
  const why = notFound
    ? `${python} (${launch.source}) was not found`
    : missing
      ? `${python} (${launch.source}) has no ${missing[1]} (No module named '${missing[1]}')`
      : `${python} (${launch.source}) cannot run the server: ${last}`;
  // rlm-lsp is not on a package registry: it installs from the user's checkout or a wheel built from it
  return (
    `rlm: ${why}. Install rlm-lsp into it from your rlm-lsp checkout with ` +
    `\`${python} -m pip install <path to the checkout>\` (or a wheel built from it: ` +
    `\`${python} -m pip install rlm_lsp-*.whl\`), or select an interpreter that has it (rlm.interpreter).`
  );
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

export type ServerState = "starting" | "loading" | "ready" | "working" | "error" | "stopped" | "off";

/** Status bar text (what the server is doing, with a codicon) and tooltip for a server state. */
export function statusItem(state: ServerState, message = ""): { text: string; tooltip: string } {
  const detail = message ? `: ${message}` : "";
  switch (state) {
    case "starting":
      return { text: "$(loading~spin) rlm: starting", tooltip: "rlm: starting the server" };
    case "loading":
      return { text: "$(loading~spin) rlm: loading model", tooltip: `rlm: loading the model${detail}` };
    case "ready":
      return { text: "$(pulse) rlm: ready", tooltip: `rlm: ready${detail}. Click to turn the hints off or on` };
    case "working":
      return { text: "$(sync~spin) rlm: predicting", tooltip: "rlm: predicting the changed functions" };
    case "error":
      return { text: "$(error) rlm: error", tooltip: `rlm: error${detail} (click for the log)` };
    case "stopped":
      return { text: "$(circle-slash) rlm: stopped", tooltip: `rlm: server stopped${detail}` };
    case "off":
      return { text: "$(eye-closed) rlm: hints off", tooltip: "rlm: hints are off. Click to turn them on" };
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

/** Client-side commands the server may put in a code action (it reads them from
 * `experimental.rlm.commands`): only the client can write the user's settings. */
export const EXCLUDE_COMMAND = "rlm.excludeFile";
export const CLIENT_COMMANDS = [EXCLUDE_COMMAND];

/** The `rlm.exclude` glob for one file: anchored at its workspace folder (`/pkg/gen.py`, that file
 * only; the server reads a leading `/` as .gitignore does), else its absolute path. */
export function excludeEntry(file: string, folder?: string): string {
  const posix = (p: string) => p.replace(/\\/g, "/");
  const path = posix(file);
  const root = folder === undefined ? undefined : posix(folder).replace(/\/+$/, "") + "/";
  return root !== undefined && path.startsWith(root) ? "/" + path.slice(root.length) : path;
}

/** `rlm.exclude` with `entry` added. `current` is the effective list: a folder's own list replaces
 * the User one rather than adding to it, so what was excluded stays excluded. */
export function withExcluded(current: unknown, entry: string): string[] {
  const list = Array.isArray(current) ? current.filter((g): g is string => typeof g === "string") : [];
  return list.includes(entry) ? list : [...list, entry];
}

/** Where "Toggle Hints" writes: this workspace, unless no folder is open or the user asked for all
 * workspaces; then the User settings, and a workspace value that would hide the change is cleared. */
export function hintsTarget(
  global: boolean,
  hasFolder: boolean,
  workspaceValueSet: boolean,
): { write: "global" | "workspace"; clearWorkspace: boolean } {
  if (global || !hasFolder) {
    return { write: "global", clearWorkspace: hasFolder && workspaceValueSet };
  }
  return { write: "workspace", clearWorkspace: false };
}
