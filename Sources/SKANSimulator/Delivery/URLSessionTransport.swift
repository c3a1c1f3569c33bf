import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// POSTs postbacks with Foundation's URLSession, one at a time, as `application/json`.
public final class URLSessionTransport: PostbackTransport {
    private let url: URL
    private let session: URLSession

    /// A transport to one collector URL.
    public init(url: URL, timeout: TimeInterval = 30) {
        self.url = url
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        session = URLSession(configuration: configuration)
    }

    public func send(_ body: [UInt8]) throws -> Int {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body)
        let done = DispatchSemaphore(value: 0)
        let result = StatusBox()
        // The command is synchronous and sends in order, so it waits for each reply.
        let task = session.dataTask(with: request) { _, response, error in
            result.set(error == nil ? (response as? HTTPURLResponse)?.statusCode ?? 0 : 0)
            done.signal()
        }
        task.resume()
        done.wait()
        return result.value
    }
}

/// Carries a status code out of URLSession's completion handler. `@unchecked Sendable`: guarded by `lock`.
private final class StatusBox: @unchecked Sendable {
    private let lock = NSLock()
    private var status = 0
    func set(_ value: Int) { lock.withLock { status = value } }
    var value: Int { lock.withLock { status } }
}
