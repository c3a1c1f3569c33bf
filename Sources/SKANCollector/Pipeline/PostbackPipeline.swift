import Foundation
import Logging
import SKANCore
import SKANStore

/// Verify, drop duplicates, store: the path every postback takes, from HTTP or from `skan ingest`.
///
/// Verification runs on the caller's thread (HTTP handlers run concurrently on every core); only the insert goes
/// through the single ``GroupCommitWriter``, so crypto never waits behind the database.
public struct PostbackPipeline: Sendable {
    /// The verifier, with the trusted keys.
    public let verifier: AttributionVerifier
    /// The one writer.
    public let writer: GroupCommitWriter
    /// The time a postback counts as received; injected so tests control it.
    public let now: @Sendable () -> Date
    let logger: Logger
    let logsBodies: Bool
    /// Which destinations each accepted postback is queued for, in its transaction; `nil`: no relay, nothing queued.
    let relay: (any OutboxRouting)?
    /// Whether each postback keeps the client's address (``AcceptedPostback/clientAddress``) without a relay.
    let recordsClientAddresses: Bool

    /// Makes a pipeline. `recordsClientAddresses`: store each postback's client address even without a relay
    /// (behind trusted proxies, where the address is the device's and tells a conflict's copies apart).
    public init(verifier: AttributionVerifier, writer: GroupCommitWriter, logger: Logger, logsBodies: Bool = false,
                relay: (any OutboxRouting)? = nil, recordsClientAddresses: Bool = false,
                now: @escaping @Sendable () -> Date = Date.init) {
        self.relay = relay
        self.recordsClientAddresses = recordsClientAddresses
        self.verifier = verifier
        self.writer = writer
        self.logger = logger
        self.logsBodies = logsBodies
        self.now = now
    }

    /// One result of the pipeline: the reply and the version the body claimed (for metrics).
    public struct Result: Sendable, Hashable {
        /// What to answer.
        public let reply: PostbackReply
        /// The version as sent, when known.
        public let version: String?
        /// The framework the body was recognised as, when it was read at all.
        public var framework: Framework? = nil
    }

    /// Whether what the request's ``Arrival`` says is used (a relay adds it, or addresses are recorded): otherwise
    /// the HTTP layer need not read it, and no postback stores an address.
    public var wantsArrival: Bool { relay != nil || recordsClientAddresses }

    /// Verifies and stores one body, returning once it is durable (or refused and recorded).
    public func receive(_ body: [UInt8], endpoint: String, arrival: Arrival = Arrival()) async -> Result {
        await withCheckedContinuation { continuation in
            receive(body, endpoint: endpoint, arrival: arrival) { continuation.resume(returning: $0) }
        }
    }

    /// Verifies one body on the caller's thread, then queues it for the writer; `completion` receives the result
    /// on the writer's thread once the entry is durable (or refused and recorded). `arrival` is what the relay
    /// adds to what it forwards (the client's address, its user agent).
    public func receive(_ body: [UInt8], endpoint: String, arrival: Arrival = Arrival(),
                        completion: @escaping @Sendable (Result) -> Void) {
        let (storeEntry, basis) = entry(for: body, verdict: verifier.verify(body), endpoint: endpoint, arrival: arrival)
        // The closure keeps only what the reply needs: holding the verdict or the pipeline until the commit took
        // a retain and a release of each of their references, per postback.
        writer.submit([storeEntry]) { stored in
            completion(Self.result(basis, stored.map { $0[0] }))
        }
    }

    /// Where a loaded record's received time comes from.
    public enum ReceivedTime: String, Sendable, Hashable, CaseIterable {
        /// The envelope's send time (`send-at-ms`, else `send-at`), so that a simulated campaign lands on its
        /// simulated days and reports over it are the same on every run; now for a bare postback.
        case sendAt = "send-at"
        /// The time of loading, for every record.
        case now
    }

    /// Verifies records (postbacks, or the simulator's envelopes around them) on every core, then stores them in
    /// one submission; results are in input order.
    public func ingest(_ records: [[UInt8]], endpoint: String, receivedAt: ReceivedTime = .sendAt) async -> [Result] {
        let verifier = verifier
        let readsSendAt = receivedAt == .sendAt
        let judged = await Parallel.start(records) { record in
            // The envelope is read a second time for its send time and recipient; next to an ECDSA verification that
            // is noise.
            (verifier.verify(record: record), PostbackEnvelope.arrival(of: record, readsSendAt: readsSendAt))
        }.value()
        let entries = zip(records, judged).map { record, judged in
            // A developer copy is told apart by its endpoint (CopySide), as its well-known path tells it over HTTP.
            entry(for: record, verdict: judged.0,
                  endpoint: judged.1.isDeveloperCopy ? endpoint + CopySide.ingestedDeveloperSuffix : endpoint,
                  receivedAt: judged.1.sendAtMilliseconds.map { Date(timeIntervalSince1970: Double($0) / 1000) })
        }
        let outcomes = await store(entries.map(\.entry))
        return entries.enumerated().map { index, entry in Self.result(entry.basis, outcomes.map { $0[index] }) }
    }

    private typealias Judged = (entry: StoreEntry, basis: ReplyBasis)

    /// What a verdict's reply depends on besides the store's outcome.
    private struct ReplyBasis: Sendable {
        let version: String?
        let framework: Framework
        /// The reply to a refused body, whatever the store does with it; `nil` for a valid one.
        let refusal: PostbackReply?
    }

    private func entry(for body: [UInt8], verdict: consuming AttributionVerdict, endpoint: String,
                       receivedAt: Date? = nil, arrival: Arrival = Arrival()) -> Judged {
        let receivedAt = receivedAt ?? now()
        if case .valid(let verified) = verdict {
            let basis = ReplyBasis(version: verified.fields.frameworkVersion, framework: verified.framework, refusal: nil)
            var accepted = AcceptedPostback(attribution: verified, rawBody: body, receivedAt: receivedAt, endpoint: endpoint)
            accepted.clientAddress = arrival.clientAddress
            if let relay { accepted.outbox = relay.items(for: accepted, arrival: arrival) }
            return (.accepted(accepted), basis)
        }
        // What the client sent is escaped and cut before any handler sees it: a refusal is logged before (or
        // because) its values failed their checks.
        var metadata: Logger.Metadata = [
            "status": "\(verdict.status.rawValue)", "field": "\(Excerpt.printable(verdict.field ?? "-", maximumBytes: 64))",
            "transaction-id": "\(Excerpt.printable(verdict.dedupID ?? "-", maximumBytes: 128))",
            "reason": "\(Excerpt.printable(verdict.reason ?? "", maximumBytes: 256))",
        ]
        if logsBodies {
            metadata["body"] = "\(Excerpt.printable(String(decoding: body, as: UTF8.self), maximumBytes: 4096))"
            // The line's bound cuts the body again: its length says how much the line does not show.
            metadata["body-bytes"] = "\(body.count)"
        }
        logger.debug("refused a postback", metadata: metadata)
        let basis = ReplyBasis(version: verdict.version, framework: verdict.framework,
                               refusal: PostbackReply(refusing: copy verdict))
        return (.rejected(RejectedPostback(verdict: verdict, rawBody: body, receivedAt: receivedAt, endpoint: endpoint)),
                basis)
    }

    /// The outcomes, or the store's error. The writer's failure observer logs a failure, once per transaction:
    /// logging it here repeated one failure for every postback of the batch.
    private func store(_ entries: [StoreEntry]) async -> Swift.Result<[StoreOutcome], StoreError> {
        do {
            return .success(try await writer.submit(entries))
        } catch {
            return .failure(error)
        }
    }

    private static func result(_ basis: ReplyBasis, _ outcome: Swift.Result<StoreOutcome, StoreError>) -> Result {
        var result = reply(basis, outcome)
        result.framework = basis.framework
        return result
    }

    private static func reply(_ basis: ReplyBasis, _ outcome: Swift.Result<StoreOutcome, StoreError>) -> Result {
        let version = basis.version
        if let refusal = basis.refusal {
            // A refusal is answered 400 even if recording it failed: the client's body is at fault either way.
            return Result(reply: refusal, version: version)
        }
        switch outcome {
        case .success(.stored): return Result(reply: PostbackReply(.accepted), version: version)
        case .success(.duplicate): return Result(reply: PostbackReply(.duplicate), version: version)
        case .success(.rejectionRecorded):
            return Result(reply: PostbackReply(.unavailable, reason: "the postback could not be stored; retry later"),
                          version: version)
        case .failure(let error):
            // The store's code, not its message: that may name paths and SQL, and goes to the log instead.
            return Result(reply: PostbackReply(.unavailable, reason: "the postback could not be stored (\(error.code)); retry later"),
                          version: version)
        }
    }
}
