-- wrk script for POST /generate: the body and the key come from the environment, so one
-- script serves every scenario.  BENCH_BODY='{"mode":"password"}' BENCH_API_KEY=... wrk -s post.lua URL
wrk.method = "POST"
wrk.body = os.getenv("BENCH_BODY") or '{"mode":"password"}'
wrk.headers["Content-Type"] = "application/json"
local key = os.getenv("BENCH_API_KEY")
if key ~= nil and key ~= "" then
  wrk.headers["X-Api-Key"] = key
end
