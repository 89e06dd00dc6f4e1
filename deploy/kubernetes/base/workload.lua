-- Placeholder workload; replace in an overlay (configMapGenerator behavior: replace).
function event()
  db_query("SELECT 1")
end
