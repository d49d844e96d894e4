-- Drives netpolicy-language-server from a real Neovim (0.7+: vim.lsp.start_client), headless.
-- Env: NP_SERVER (the server script), NP_FILE (the policy file), NP_OUT (where to write results as JSON).
local server = os.getenv('NP_SERVER')
local file = os.getenv('NP_FILE')
local out_file = os.getenv('NP_OUT')
local out = { diagnostics = {}, errors = {}, actions = {}, logs = {} }

local function finish()
  local encoded, result = pcall(vim.fn.json_encode, out)
  if not encoded then result = vim.fn.json_encode({ errors = { 'could not encode results: ' .. tostring(result) } }) end
  pcall(vim.fn.writefile, { result }, out_file)
  vim.cmd('qa!')
end

local ok, err = pcall(function()
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  local client_id = vim.lsp.start_client({
    name = 'netpolicy',
    cmd = { 'node', server, '--stdio' },
    root_dir = vim.fn.fnamemodify(file, ':h'),
    settings = { netpolicy = { severity = { ['broad-cidr'] = 'error' } } },
    handlers = { ['window/logMessage'] = function(_, result) table.insert(out.logs, result.message) end },
  })
  vim.lsp.buf_attach_client(bufnr, client_id)
  -- Neovim 0.7 pushes `settings` with workspace/didChangeConfiguration after initialising: wait for
  -- the publish that applies them (broad-cidr raised to an error).
  vim.wait(15000, function()
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      if d.code == 'broad-cidr' and d.severity == vim.diagnostic.severity.ERROR then return true end
    end
    return false
  end, 50)
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(out.diagnostics, { code = d.code, source = d.source, severity = d.severity, lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col })
  end
  table.sort(out.diagnostics, function(a, b) return a.lnum < b.lnum or (a.lnum == b.lnum and a.col < b.col) end)

  -- Quick fix for the cidr-host-bits diagnostic, without sending `data` back (as some clients do).
  local target
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do if d.code == 'cidr-host-bits' then target = d end end
  if target then
    local range = { start = { line = target.lnum, character = target.col }, ['end'] = { line = target.end_lnum, character = target.end_col } }
    local params = { textDocument = vim.lsp.util.make_text_document_params(bufnr), range = range,
      context = { diagnostics = { { range = range, message = target.message, code = target.code, source = target.source, severity = target.severity } } } }
    local responses = vim.lsp.buf_request_sync(bufnr, 'textDocument/codeAction', params, 5000) or {}
    for _, r in pairs(responses) do
      for _, action in ipairs(r.result or {}) do
        table.insert(out.actions, action.title)
        if action.isPreferred and action.edit then
          vim.lsp.util.apply_workspace_edit(action.edit, 'utf-16')
          out.fixed_title = action.title
        end
      end
    end
  end
  out.text = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), '\n')

  -- Completion of preset names inside the (now fixed) presets array, and hover on a CIDR.
  local presets_line
  for i, line in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    if line:find('"presets"') then presets_line = i - 1 end
  end
  local line_text = vim.api.nvim_buf_get_lines(bufnr, presets_line, presets_line + 1, false)[1]
  local col = line_text:find('%[') -- just after `[`
  local completion = vim.lsp.buf_request_sync(bufnr, 'textDocument/completion',
    { textDocument = vim.lsp.util.make_text_document_params(bufnr), position = { line = presets_line, character = col } }, 5000) or {}
  out.completion = {}
  for _, r in pairs(completion) do
    local items = r.result and (r.result.items or r.result) or {}
    for _, item in ipairs(items) do table.insert(out.completion, item.label) end
  end
  local cidr_line
  for i, line in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    if line:find('10%.0%.0%.0/8') then cidr_line = i - 1 end
  end
  local cidr_col = vim.api.nvim_buf_get_lines(bufnr, cidr_line, cidr_line + 1, false)[1]:find('10%.0') 
  local hover = vim.lsp.buf_request_sync(bufnr, 'textDocument/hover',
    { textDocument = vim.lsp.util.make_text_document_params(bufnr), position = { line = cidr_line, character = cidr_col + 1 } }, 5000) or {}
  for _, r in pairs(hover) do
    if r.result then out.hover = r.result.contents.value end
  end

  -- Formatting with the options Neovim sends (tabSize and insertSpaces only), applied, then saved.
  vim.bo[bufnr].shiftwidth = 4
  vim.bo[bufnr].expandtab = true
  local formatting = vim.lsp.buf_request_sync(bufnr, 'textDocument/formatting', vim.lsp.util.make_formatting_params(), 5000) or {}
  for _, r in pairs(formatting) do
    if r.result then vim.lsp.util.apply_text_edits(r.result, bufnr, 'utf-16') end
  end
  vim.cmd('write')

  -- Completion of a source skeleton: Neovim 0.7 has no snippet support, so the text must be plain.
  local sources_edit = vim.lsp.buf_request_sync(bufnr, 'textDocument/completion',
    { textDocument = vim.lsp.util.make_text_document_params(bufnr), position = { line = 1, character = 4 } }, 5000) or {}
  out.completion_texts = {}
  for _, r in pairs(sources_edit) do
    local items = r.result and (r.result.items or r.result) or {}
    for _, item in ipairs(items) do
      table.insert(out.completion_texts, { label = item.label, format = item.insertTextFormat or 1, text = item.textEdit and item.textEdit.newText or item.insertText or item.label })
    end
  end
  vim.lsp.stop_client(client_id)
end)
if not ok then table.insert(out.errors, tostring(err)) end
finish()
