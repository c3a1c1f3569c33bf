-- wrk script: each request POSTs the next line of a file of distinct signed postbacks.
-- Thread i of T takes lines i, i+T, i+2T ... so that no two requests send the same postback. A third argument
-- shifts i, so that several wrk processes (one per collector) can share one file without overlap.
-- Requests are formatted once, in init: the load generator shares the cores with the server it measures, so
-- every microsecond it spends per request is taken from the server.
local threads = {}
local counter = 0

function setup(thread)
    thread:set("id", counter)
    counter = counter + 1
    table.insert(threads, thread)
end

function init(args)
    local path = args[1]
    local total = tonumber(args[2])
    local slot = id + (tonumber(args[3]) or 0)
    wrk.method = "POST"
    wrk.headers["Content-Type"] = "application/json"
    requests = {}
    local index = 0
    for line in io.lines(path) do
        if index % total == slot then requests[#requests + 1] = wrk.format(nil, nil, nil, line) end
        index = index + 1
    end
    next_request = 1
end

function request()
    local formatted = requests[next_request]
    next_request = next_request + 1
    if next_request > #requests then next_request = 1 end
    return formatted
end
