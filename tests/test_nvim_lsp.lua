-- Run after one of docs/editors-lsp.md's Neovim snippets (loaded verbatim as init.lua) in a
-- headless Neovim: open a Python file and a file the snippet's `exclude` matches, and record
-- what the user would see (inlay hints on 0.10+, the snippet's virtual text before), a hover,
-- and the diagnostics. Driven by tests/test_nvim.py, which reads RLM_OUT.
local out = os.getenv("RLM_OUT")

local function finish(result)
  local f = assert(io.open(out, "w"))
  f:write(vim.fn.json_encode(result))
  f:close()
end

local function shown(bufnr)
  local got = {}
  if vim.lsp.inlay_hint and vim.lsp.inlay_hint.get then
    for _, item in ipairs(vim.lsp.inlay_hint.get({ bufnr = bufnr })) do
      local label = item.inlay_hint.label
      if type(label) == "table" then
        label = table.concat(vim.tbl_map(function(part) return part.value end, label))
      end
      table.insert(got, { line = item.inlay_hint.position.line, label = label, kind = "inlay hint" })
    end
    return got
  end
  local ns = vim.api.nvim_get_namespaces()["rlm"]
  if ns then
    for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(bufnr, ns, 0, -1, { details = true })) do
      table.insert(got, { line = mark[2], label = mark[4].virt_text[1][1], kind = "virtual text" })
    end
  end
  return got
end

local ok, err = pcall(function()
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("RLM_FILE")))
  local bufnr = vim.api.nvim_get_current_buf()
  local hints = {}
  vim.wait(90000, function()
    hints = shown(bufnr)
    return #hints >= 4
  end, 200)
  local clients = (vim.lsp.get_clients or vim.lsp.get_active_clients)()
  local hover
  if clients[1] then
    local resp = clients[1].request_sync("textDocument/hover", {
      textDocument = { uri = vim.uri_from_bufnr(bufnr) },
      position = { line = 0, character = 6 },
    }, 10000, bufnr)
    hover = resp and resp.result and resp.result.contents
  end
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("RLM_EXCLUDED")))
  local excluded = vim.api.nvim_get_current_buf()
  vim.wait(8000, function() return false end, 200) -- time enough for hints, were it not excluded
  finish({
    version = tostring(vim.version().major) .. "." .. tostring(vim.version().minor),
    clients = #clients,
    hints = hints,
    hover = hover,
    excluded_hints = #shown(excluded),
    attached_excluded = #((vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = excluded }))
      or vim.lsp.buf_get_clients(excluded)),
  })
end)
if not ok then
  finish({ error = tostring(err) })
end
vim.cmd("qall!")
