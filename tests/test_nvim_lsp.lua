-- Headless Neovim 0.7 (Debian's) against the real rlm server: vim.lsp.start_client + request_sync.
-- Driven by tests/test_nvim.py, which passes the paths in the environment and reads RLM_OUT.
local python = os.getenv("RLM_PYTHON")
local model = os.getenv("RLM_TEST_MODEL_DIR")
local file = os.getenv("RLM_FILE")
local out = os.getenv("RLM_OUT")

local function finish(result)
  local f = assert(io.open(out, "w"))
  f:write(vim.fn.json_encode(result))
  f:close()
end

local ok, err = pcall(function()
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.bo[bufnr].filetype = "python"
  local settings = { modelPath = model, debounceMs = 50, budgets = { latency = "0.000001 ns" } }
  local refreshed = 0
  local capabilities = vim.lsp.protocol.make_client_capabilities()
  capabilities.workspace.inlayHint = { refreshSupport = true }
  local client_id = vim.lsp.start_client({
    name = "rlm",
    cmd = { python, "-m", "rlm_lsp" },
    root_dir = vim.fn.fnamemodify(file, ":h"),
    init_options = settings,
    settings = { rlm = settings },
    capabilities = capabilities,
    handlers = {
      ["workspace/inlayHint/refresh"] = function()
        refreshed = refreshed + 1
        return vim.NIL
      end,
      ["workspace/codeLens/refresh"] = function()
        return vim.NIL
      end,
    },
  })
  assert(client_id, "the server did not start")
  vim.lsp.buf_attach_client(bufnr, client_id)
  local client = vim.lsp.get_client_by_id(client_id)
  local uri = vim.uri_from_bufnr(bufnr)

  local hints = {}
  local deadline = vim.loop.now() + 60000
  while vim.loop.now() < deadline do
    local resp = client.request_sync("textDocument/inlayHint", {
      textDocument = { uri = uri },
      range = { start = { line = 0, character = 0 }, ["end"] = { line = 1000, character = 0 } },
    }, 5000, bufnr)
    if resp and resp.result and #resp.result >= 3 then
      hints = resp.result
      break
    end
    vim.wait(100)
  end
  local lenses = client.request_sync("textDocument/codeLens", { textDocument = { uri = uri } }, 5000, bufnr)
  vim.wait(20000, function()
    return #vim.diagnostic.get(bufnr) > 0
  end, 100)
  local diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(diagnostics, { lnum = d.lnum, col = d.col, message = d.message, severity = d.severity, source = d.source })
  end
  vim.lsp.stop_client(client_id)
  vim.wait(5000, function()
    return vim.lsp.client_is_stopped(client_id)
  end, 50)
  finish({ hints = hints, lenses = (lenses and lenses.result) or {}, diagnostics = diagnostics, refreshed = refreshed })
end)
if not ok then
  finish({ error = tostring(err) })
end
vim.cmd("qall!")
