import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import SKANStore

/// Sends one entry to its destination over HTTP: a `POST` of its body with its `Idempotency-Key`, the
/// destination's headers and signature, within the destination's timeout.
struct RelaySender: Sendable {
    let client: HTTPClient

    func send(_ entry: OutboxEntry, to destination: RelayDestination) async -> RelayAttempt {
        if Task.isCancelled { return .stopped }
        var request = HTTPClientRequest(url: destination.url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Idempotency-Key", value: entry.item.idempotencyKey)
        for header in destination.headers { request.headers.add(name: header.name, value: header.value) }
        if let signature = destination.signature {
            request.headers.add(name: signature.header, value: Self.hmac(entry.item.body, secret: signature.secret))
        }
        request.body = .bytes(ByteBuffer(bytes: entry.item.body))
        let timeout = destination.timeout
        let (client, prepared) = (client, request)
        do {
            // The deadline covers the reply's body too: a receiver that stalls after its head holds nothing.
            return try await withThrowingTaskGroup(of: RelayAttempt.self) { group in
                group.addTask {
                    let response = try await client.execute(prepared, timeout: .nanoseconds(Int64(timeout.seconds * 1e9)))
                    // Read and dropped: the connection is reused only once its reply is drained.
                    _ = try? await response.body.collect(upTo: 64 * 1024)
                    return .answered(status: Int(response.status.code), retryAfter: response.headers.first(name: "Retry-After"))
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return .failed("no answer within \(timeout)")
                }
                defer { group.cancelAll() }
                return try await group.next() ?? .stopped
            }
        } catch {
            if Task.isCancelled { return .stopped }
            return .failed(Self.describe(error))
        }
    }

    /// The hex HMAC-SHA256 of `body`.
    static func hmac(_ body: [UInt8], secret: [UInt8]) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: secret))
        return code.map { String(format: "%02x", $0) }.joined()
    }

    /// A short reason, without bodies or secrets.
    static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }
}
