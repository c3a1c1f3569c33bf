import Foundation
import SKANCore

/// The verifier under test, trusting Apple's real keys, made once: loading keys is not what is fuzzed.
private let verifier = PostbackVerifier()

/// How far inputs got, printed when libFuzzer exits, so that the figures say how many inputs reached an ECDSA
/// check rather than being refused by the JSON reader or the field checks in front of it.
/// libFuzzer runs the target on one thread, so plain counters are safe.
nonisolated(unsafe) private var reachedECDSA = 0
nonisolated(unsafe) private var verdicts: [PostbackVerdict.Status: Int] = [:]
nonisolated(unsafe) private var registered = false

/// libFuzzer's entry point: `PostbackVerifier.verify(record:)`, the path `skan verify` and the collector take,
/// on any bytes (a bare postback or an envelope around one), down to the signature check with Apple's keys.
///
/// Besides crashes, it traps when a postback judged valid is not valid again once written out with its own
/// `json`: the collector stores that text, and a stored postback must verify as it did on arrival.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPostbackVerifier(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if !registered {
        registered = true
        atexit(printCounts)
    }
    let verdict = verifier.verify(record: Array(UnsafeBufferPointer(start: data, count: size)))
    verdicts[verdict.status, default: 0] += 1
    _ = (verdict.reason, verdict.field, verdict.version, verdict.transactionID)
    switch verdict {
    case .valid(let verified):
        reachedECDSA += 1
        let again = verifier.verify(Array(verified.postback.json.utf8))
        guard again.isValid else { fatalError("a valid postback is not valid after a round trip through its json: \(again)") }
    case .invalidSignature(_, let reason) where reason.hasPrefix("the signature does not match"):
        reachedECDSA += 1
    default:
        break
    }
    return 0
}

/// `atexit` takes a C function: no captures, so it reads the globals.
private func printCounts() {
    let total = verdicts.values.reduce(0, +)
    let byStatus = verdicts.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)=\($0.value)" }
    let line = "verifier: \(total) inputs judged, \(reachedECDSA) reached an ECDSA check; \(byStatus.joined(separator: " "))\n"
    FileHandle.standardError.write(Data(line.utf8))
}
