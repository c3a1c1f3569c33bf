import SKANCore

/// libFuzzer's entry point: `SignedImpression.parse` on any bytes.
///
/// Besides crashes, it traps when a parsed impression does not survive a round trip through its own `json()`
/// (what `skan impression` hands to a device), and it builds the signed string and runs `validate()`, which
/// take whatever the parser let through.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImpressionParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard case .success(let signed) = SignedImpression.parse(bytes) else { return 0 }
    _ = signed.impression.signedString
    _ = try? signed.impression.validate()
    let again = SignedImpression.parse(Array(signed.json().utf8))
    guard case .success(let reparsed) = again, reparsed == signed else {
        fatalError("an impression did not survive a round trip through its json: \(signed) vs \(again)")
    }
    return 0
}
