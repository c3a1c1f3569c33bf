-- wrk script for Benchmarks/signer.sh: POSTs one fixed body (args[1], a file) to /v1/impressions; with a second
-- argument, each connection waits that many milliseconds after each reply, which paces the load at about
-- connections x 1000 / (delay + latency) requests a second (wrk itself has no rate option).
function init(args)
    local file = io.open(args[1], "rb")
    local body = file:read("*a")
    file:close()
    pause = tonumber(args[2] or "0")
    wrk.method = "POST"
    wrk.headers["Content-Type"] = "application/json"
    prepared = wrk.format(nil, "/v1/impressions", nil, body)
end

function request()
    return prepared
end

function delay()
    return pause
end
