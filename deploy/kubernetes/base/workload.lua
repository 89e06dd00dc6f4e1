-- Placeholder workload (run it with the script's path instead of a built-in
-- workload in the coordinator's args); replace it in an overlay
-- (configMapGenerator behavior: replace).
function thread_init() con = sysbench.sql.driver():connect() end
function event() con:query("SELECT 1") end
