-- A tampered bytecode chunk (issue 27 §1): each byte of a dumped
-- function set to 0xff in turn, loaded and called. LuaJIT does not verify
-- bytecode: on a sandbox that loads binary chunks one of them crashes the
-- process. stampede loads source text only, so the first load is refused
-- (tests/e2e/test_lua.py, daemon_agent).
local dump = string.dump
function thread_init()
  con = sysbench.sql.driver():connect()
  local chunk = dump and dump(function(t) local s = 0 for i = 1, #t do s = s + t[i] end return s end)
    or "\27LJ\2\10\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
  local b = {chunk:byte(1, -1)}
  for pos = 6, #b do
    local keep = b[pos]
    b[pos] = 255
    local f, err = load(string.char(unpack(b)))
    if f == nil and not dump then error(err) end
    if f then pcall(f, {1, 2, 3}) end
    b[pos] = keep
  end
end
function event() con:query("SELECT 1") end
