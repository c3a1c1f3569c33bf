import NIOCore
import NIOPosix

/// HTTP/1.1 as bytes on one loopback connection: what only raw requests show (pipelining, bodies cut short,
/// connections closed on purpose), for the suites of the servers that answer on the event loop.
public enum RawHTTP {
    /// Sends `requests` in one write on one connection to `port`; returns everything the server sent until it had
    /// answered `responses` times (interim 1xx replies not counted) or closed the connection. Throws
    /// ``RawHTTPTimeout`` when that takes longer than `patience`: a port that accepts and never answers (one held
    /// open by another process) is a failure naming the port, not a test that waits for ever.
    public static func exchange(port: Int, _ requests: String, responses: Int,
                                patience: Duration = .seconds(30)) async throws -> String {
        try await withThrowingTaskGroup(of: String.self) { group in
            group.addTask { try await exchangeUnbounded(port: port, requests, responses: responses) }
            group.addTask {
                try await Task.sleep(for: patience)
                throw RawHTTPTimeout(port: port, patience: patience)
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    private static func exchangeUnbounded(port: Int, _ requests: String, responses: Int) async throws -> String {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: requests))
            var received = ""
            for try await chunk in inbound {
                received += String(buffer: chunk)
                if parse(received).filter({ $0.status >= 200 }).count >= responses { break }
            }
            return received
        }
    }

    /// The responses in `text`: status code, headers (lowercased names) and body, in order.
    public static func parse(_ text: String) -> [(status: Int, headers: [String: String], body: String)] {
        var responses: [(Int, [String: String], String)] = []
        var rest = Substring(text)
        while let end = rest.range(of: "\r\n\r\n") {
            let lines = rest[..<end.lowerBound].components(separatedBy: "\r\n")
            let status = Int(lines[0].split(separator: " ")[1]) ?? 0
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                let parts = line.split(separator: ":", maxSplits: 1)
                headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces)
            }
            let length = Int(headers["content-length"] ?? "0") ?? 0
            let bodyStart = rest[end.upperBound...]
            guard bodyStart.utf8.count >= length else { break }
            let body = String(bodyStart.utf8.prefix(length))!
            responses.append((status, headers, body))
            rest = bodyStart.dropFirst(body.count)
        }
        return responses
    }

    /// A `POST` of `body` as JSON to `path`, with `extraHeaders` (each ending in CRLF) before the length.
    public static func post(_ body: String, path: String, extraHeaders: String = "") -> String {
        "POST \(path) HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n\(extraHeaders)"
            + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }
}

/// No complete answer came within the patience of ``RawHTTP/exchange(port:_:responses:patience:)``.
public struct RawHTTPTimeout: Error, CustomStringConvertible {
    /// The port that was asked.
    public let port: Int
    /// How long the exchange waited.
    public let patience: Duration
    public var description: String { "127.0.0.1:\(port) did not answer within \(patience)" }
}
