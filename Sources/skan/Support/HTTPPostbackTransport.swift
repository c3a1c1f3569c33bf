import AsyncHTTPClient
import Foundation
import NIOCore
import SKANSimulator

/// POSTs postbacks with AsyncHTTPClient (on SwiftNIO, which the server already links), one at a time, as
/// `application/json`: `skan simulate --post` and `skan demo`.
///
/// Why not Foundation's URLSession: on Linux it lives in FoundationNetworking, which links libcurl, and the packaged
/// static binary then needed Debian's libcurl4 (and its dozen libraries) at run time for this alone.
struct HTTPPostbackTransport: PostbackTransport {
    let url: URL
    let timeout: TimeAmount

    /// A transport to one collector URL.
    init(url: URL, timeout: TimeAmount = .seconds(30)) {
        self.url = url
        self.timeout = timeout
    }

    /// Blocks until the reply: the simulator sends in order from a thread of its own, as a device's queue does.
    func send(_ body: [UInt8]) throws -> Int {
        var request = try HTTPClient.Request(url: url.absoluteString, method: .POST)
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(body)
        let response = try HTTPClient.shared.execute(request: request, deadline: .now() + timeout).wait()
        return Int(response.status.code)
    }
}
