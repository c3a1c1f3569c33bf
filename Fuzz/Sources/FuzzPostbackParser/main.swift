import SKANCore

/// libFuzzer's entry point: `Postback.parse` on any bytes.
///
/// Besides crashes, it traps when a parsed postback does not survive a round trip through its own `json`
/// (what the collector stores and `skan verify` prints), and it builds every signed string a verifier would,
/// so that a field combination the parser lets through cannot trip a precondition there.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPostbackParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    switch Postback.parse(bytes) {
    case .success(let postback):
        let again = Postback.parse(Array(postback.json.utf8))
        guard case .success(let reparsed) = again, reparsed == postback else {
            fatalError("a postback did not survive a round trip through its json: \(postback) vs \(again)")
        }
        for layout in postback.version.layoutsToTry { _ = postback.signedString(layout) }
    case .failure(.malformed(let malformed)):
        _ = malformed.description
    case .failure(.unsupportedVersion(let version, _)):
        _ = version
    }
    return 0
}
