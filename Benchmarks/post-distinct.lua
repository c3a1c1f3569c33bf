-- wrk script: each request POSTs the next line of a file of distinct signed postbacks.
-- Thread i of T takes lines i, i+T, i+2T ... so that no two requests send the same postback.
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
    bodies = {}
    local index = 0
    for line in io.lines(path) do
        if index % total == id then bodies[#bodies + 1] = line end
        index = index + 1
    end
    next_body = 1
    wrk.method = "POST"
    wrk.headers["Content-Type"] = "application/json"
end

function request()
    local body = bodies[next_body]
    next_body = next_body + 1
    if next_body > #bodies then next_body = 1 end
    return wrk.format(nil, nil, nil, body)
end
