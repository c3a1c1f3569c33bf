import SKANCore

/// libFuzzer's entry point: the strict JSON object reader and the record splitter on any bytes.
///
/// Besides crashes, it traps on answers that disagree with each other, since those are the bugs a fuzzer
/// finds that a crash alone would not show:
/// - the reader gives the same members or the same error with the postback key table as without it;
/// - an error's offset lies within the input;
/// - members written back out with `JSONWriter` read back as the same members;
/// - the record splitter gives the same records whether the bytes come in one chunk or in small ones.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    let bytes = Array(input)

    let plain = JSONObjectReader.members(of: bytes)
    let tabled = JSONObjectReader.members(of: bytes, knownKeys: PostbackField.keyTable)
    guard plain == tabled else { fatalError("the key table changed the result: \(plain) vs \(tabled)") }
    switch plain {
    case .failure(let error):
        guard (0...size).contains(error.offset) else { fatalError("error offset \(error.offset) outside 0...\(size): \(error)") }
    case .success(let members):
        var writer = JSONWriter()
        for member in members { writer.raw(member.key, member.value.jsonText) }
        let again = JSONObjectReader.members(of: Array(writer.json.utf8))
        guard again == .success(members) else { fatalError("members did not survive a round trip: \(members) vs \(again)") }
    }

    // The limit and the chunk size come from the input so that the fuzzer explores them: a small limit reaches
    // the too-long path with short inputs, and chunks of 1...32 bytes cut every kind of token somewhere.
    let limit = size % 2 == 0 ? JSONRecordSplitter.defaultMaximumRecordLength : 64
    let chunkSize = size == 0 ? 1 : Int(input[size - 1] % 32) + 1
    let whole = split(input, chunkSize: max(size, 1), limit: limit)
    let chunked = split(input, chunkSize: chunkSize, limit: limit)
    guard whole.count == chunked.count, zip(whole, chunked).allSatisfy(sameRecord) else {
        fatalError("chunks of \(chunkSize) bytes split differently from one chunk (limit \(limit))")
    }
    for record in whole where record.bytes.count > limit {
        fatalError("a record of \(record.bytes.count) bytes passed the limit of \(limit)")
    }
    return 0
}

private func split(_ input: UnsafeBufferPointer<UInt8>, chunkSize: Int, limit: Int) -> [JSONRecordSplitter.Record] {
    var splitter = JSONRecordSplitter(maximumRecordLength: limit)
    var records: [JSONRecordSplitter.Record] = []
    var start = 0
    while start < input.count {
        let end = min(start + chunkSize, input.count)
        splitter.feed(UnsafeBufferPointer(rebasing: input[start..<end]), into: &records)
        start = end
    }
    splitter.finish(into: &records)
    return records
}

private func sameRecord(_ a: JSONRecordSplitter.Record, _ b: JSONRecordSplitter.Record) -> Bool {
    a.bytes == b.bytes && a.line == b.line && a.isTooLong == b.isTooLong
}
