extension Postback {
    /// Parses a postback strictly from the bytes received.
    ///
    /// Every known key's JSON type is checked (`"42"` is not an integer), required keys are required for the
    /// stated version, values are range-checked, any value containing U+2063 is refused (it would move field
    /// boundaries in the signed string), duplicate keys are refused, and unknown keys are kept as extras.
    /// JSON `null` is accepted only for the unsigned, optional values (`conversion-value`,
    /// `coarse-conversion-value`, `country-code`), where relays use it for "not sent".
    public static func parse(_ bytes: some Collection<UInt8>) -> Result<Postback, PostbackRejection> {
        // One concrete path: generic code here would resolve type metadata at run time for every postback.
        if let array = bytes as? [UInt8] { return parse(bytes: array) }
        return parse(bytes: Array(bytes))
    }

    private static func parse(bytes: [UInt8]) -> Result<Postback, PostbackRejection> {
        switch JSONObjectReader.members(of: bytes, knownKeys: PostbackField.keyTable) {
        case .failure(let error):
            return .failure(.malformed(MalformedPostback(
                field: nil, reason: "the body is not a JSON object: \(error)", version: nil, transactionID: nil)))
        case .success(let members):
            return parse(members: members)
        }
    }

    /// Parses a postback from already-read JSON members.
    public static func parse(members: [JSONMember]) -> Result<Postback, PostbackRejection> {
        var reader = FieldReader(members: members)
        for (position, member) in members.enumerated() {
            if let field = PostbackField(key: member.key) {
                reader.positions[field.ordinal] = Int32(truncatingIfNeeded: position + 1)
            } else {
                reader.extras.append(member)
            }
        }
        do {
            return .success(try reader.postback())
        } catch {
            return .failure(error)
        }
    }
}

private struct FieldReader {
    let members: [JSONMember]
    /// Where each known field is in `members`, plus one (0: absent), by ``PostbackField/ordinal``: a vector
    /// of fixed size, kept inline, instead of an array of values allocated, filled and released for every postback.
    var positions = SIMD16<Int32>()
    var extras: [JSONMember] = []
    var versionText: String?
    var transactionText: String?

    init(members: [JSONMember]) {
        // A record is at most 1 MiB, far fewer members than Int32 counts.
        precondition(members.count < Int(Int32.max), "more members than a postback parser can index")
        self.members = members
    }

    func value(_ field: PostbackField) -> JSONValue? {
        let position = Int(positions[field.ordinal])
        return position == 0 ? nil : members[position - 1].value
    }

    func malformed(_ field: PostbackField?, _ reason: String) -> PostbackRejection {
        .malformed(MalformedPostback(field: field?.key, reason: reason, version: versionText, transactionID: transactionText))
    }

    mutating func postback() throws(PostbackRejection) -> Postback {
        if case .string(let text)? = value(.transactionID) { transactionText = text }
        let version: PostbackVersion
        switch value(.version) {
        case nil:
            version = .v1_0
        case .string(let text)?:
            versionText = text
            guard let known = PostbackVersion(wire: text) else {
                throw .unsupportedVersion(text, transactionID: transactionText)
            }
            version = known
        case let other?:
            throw malformed(.version, "version must be a string such as \"4.0\", got \(other.described)")
        }
        for field in Self.requiredFields[version.ordinal] where field != .version && value(field) == nil {
            throw malformed(field, "\(field) is required in a \(version) postback and is missing")
        }
        let postback = Postback(
            version: version, hasVersionKey: value(.version) != nil,
            adNetworkID: try string(.adNetworkID)!,
            campaignID: try integer(.campaignID, 1...100),
            sourceIdentifier: try sourceIdentifier(),
            appID: try integer(.appID, 0...Int.max)!,
            transactionID: try string(.transactionID)!,
            redownload: try bool(.redownload),
            sourceAppID: try integer(.sourceAppID, 0...Int.max),
            sourceDomain: try string(.sourceDomain),
            fidelityType: try integer(.fidelityType, 0...1),
            didWin: try bool(.didWin),
            postbackSequenceIndex: try integer(.postbackSequenceIndex, 0...2),
            conversionValue: try integer(.conversionValue, 0...63, nullable: true),
            coarseConversionValue: try coarse(),
            countryCode: try string(.countryCode, nullable: true),
            attributionSignature: try string(.attributionSignature)!,
            extras: extras)
        // A fine and a coarse value together never come from a device (spec §3.1), but neither is signed, so the
        // signature still holds: the postback is stored and counted (PostbackCheck.fineAndCoarse), not refused.
        if version == .v4_0 && postback.sourceAppID != nil && postback.sourceDomain != nil {
            throw malformed(.sourceDomain,
                "source-app-id and source-domain share one signed slot in 4.0, got both")
        }
        return postback
    }

    /// Each version's required fields, by ``SKANVersion/ordinal``: built once, not for every postback.
    static let requiredFields = SKANVersion.allCases.map(\.requiredFields)

    func string(_ field: PostbackField, nullable: Bool = false) throws(PostbackRejection) -> String? {
        switch value(field) {
        case nil: return nil
        case .null? where nullable: return nil
        case .string(var text)?:
            if text.isEmpty { throw malformed(field, "\(field) must be a non-empty string, got \"\"") }
            // One pass over the UTF-8 bytes: U+2063 is E2 81 A3; control characters are single bytes.
            let problem = text.withUTF8 { utf8 -> String? in
                for (offset, byte) in utf8.enumerated() {
                    if byte < 0x20 || byte == 0x7F { return "a control character" }
                    if byte == 0xE2 && offset + 2 < utf8.count && utf8[offset + 1] == 0x81 && utf8[offset + 2] == 0xA3 {
                        return "U+2063, the separator of the signed string"
                    }
                }
                return nil
            }
            if let problem { throw malformed(field, "\(field) contains \(problem), got \(JSONValue.string(text).described)") }
            return text
        case let other?:
            throw malformed(field, "\(field) must be a string, got \(other.described)")
        }
    }

    func integer(_ field: PostbackField, _ range: ClosedRange<Int>, nullable: Bool = false) throws(PostbackRejection) -> Int? {
        // Built only on the error path: string work here would cost more than the parse itself.
        func fail(_ got: String) -> PostbackRejection {
            let expected = range.upperBound == Int.max ? "a non-negative integer" : "an integer \(range.lowerBound)...\(range.upperBound)"
            return malformed(field, "\(field) must be \(expected), got \(got)")
        }
        switch value(field) {
        case nil: return nil
        case .null? where nullable: return nil
        case .number(var text)?:
            // The reader checked the number's syntax, so here it is an optional '-', digits, and perhaps a
            // fraction or an exponent, which make it not an integer.
            // `nil`: beyond 64 bits; `.some(nil)`: not an integer, which wins when both are true.
            let number = text.withUTF8 { utf8 -> Int?? in
                let isNegative = utf8.first == UInt8(ascii: "-")
                var value = 0
                var overflowed = false
                for byte in utf8.dropFirst(isNegative ? 1 : 0) {
                    guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return .some(nil) }
                    guard !overflowed else { continue }
                    let digit = Int(byte - UInt8(ascii: "0"))
                    let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
                    // Negative numbers are built downwards so that Int.min itself fits.
                    let (next, overflow2) = isNegative ? times10.subtractingReportingOverflow(digit)
                                                       : times10.addingReportingOverflow(digit)
                    overflowed = overflow1 || overflow2
                    value = next
                }
                return overflowed ? nil : .some(value)
            }
            guard let number else { throw fail("\(text.prefix(80)) (beyond 64 bits)") }
            guard let number else { throw fail("\(text) (not an integer)") }
            guard range.contains(number) else { throw fail(text) }
            return number
        case let other?:
            throw fail(other.described)
        }
    }

    func bool(_ field: PostbackField) throws(PostbackRejection) -> Bool? {
        switch value(field) {
        case nil: return nil
        case .bool(let flag)?: return flag
        case let other?: throw malformed(field, "\(field) must be true or false, got \(other.described)")
        }
    }

    func sourceIdentifier() throws(PostbackRejection) -> String? {
        let field = PostbackField.sourceIdentifier
        switch value(field) {
        case nil: return nil
        case .string(let text)? where (2...4).contains(text.utf8.count) && text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }):
            return text
        case let other?:
            throw malformed(field, "source-identifier must be a string of 2 to 4 digits, got \(other.described)")
        }
    }

    func coarse() throws(PostbackRejection) -> CoarseValue? {
        let field = PostbackField.coarseConversionValue
        switch value(field) {
        case nil, .null?: return nil
        case .string(let text)? where CoarseValue(rawValue: text) != nil: return CoarseValue(rawValue: text)
        case let other?:
            throw malformed(field, "coarse-conversion-value must be \"low\", \"medium\" or \"high\", got \(other.described)")
        }
    }
}
