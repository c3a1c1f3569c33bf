import Crypto
import NIOCore
import NIOPosix
import SKANStore

/// Sends claimed entries to their destinations over HTTP/1.1: a `POST` of each body with its `Idempotency-Key`, the
/// destination's headers and signature, within the destination's timeout, over each destination's own keep-alive
/// connections (``RelayLane``).
struct RelaySender: Sendable {
    private let lanes: [String: RelayLane]

    /// One lane per destination, on `group`'s event loops. Throws when TLS cannot be set up for an `https` one.
    init(destinations: [RelayDestination], group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) throws {
        var lanes: [String: RelayLane] = [:]
        for destination in destinations { lanes[destination.name] = try RelayLane(destination: destination, group: group) }
        self.lanes = lanes
    }

    /// One attempt per entry, in order, none started later than `within` from now less two timeouts (the batch's
    /// lease). Cancelling the calling task stops the destination's delivery: requests in flight are abandoned and
    /// answer `.stopped`, so their entries are released rather than counted as tried.
    func send(_ entries: [OutboxEntry], to destination: RelayDestination, within lease: Duration) async -> [RelayAttempt] {
        guard let lane = lanes[destination.name], !Task.isCancelled else { return entries.map { _ in .stopped } }
        let lastStart = NIODeadline.now() + TimeAmount(lease - destination.timeout * 2)
        return await withTaskCancellationHandler {
            (try? await lane.send(entries, lastStart: lastStart).get()) ?? entries.map { _ in .stopped }
        } onCancel: {
            lane.stop()
        }
    }

    /// Closes every destination's connections.
    func stop() {
        for lane in lanes.values { lane.stop() }
    }

    /// The hex HMAC-SHA256 of `body`.
    static func hmac(_ body: [UInt8], secret: [UInt8]) -> String {
        RelayHex.string(HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: secret)))
    }
}
