import SKANCore

/// Writes a postback's wire JSON straight into bytes: the same text as `Postback.json`, without building
/// Swift strings, which cost as much as signing when a million devices run. A test pins the two together.
enum PostbackBytes {
    static func append(_ postback: Postback, to out: inout [UInt8]) {
        var first = true
        func key(_ name: String) {
            out.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
            first = false
            out.append(UInt8(ascii: "\""))
            out += name.utf8
            out += [UInt8(ascii: "\""), UInt8(ascii: ":")]
        }
        func string(_ name: String, _ value: String) {
            key(name)
            JSONWriter.appendQuoted(value, to: &out)
        }
        func integer(_ name: String, _ value: Int) {
            key(name)
            JSONWriter.appendInteger(Int64(value), to: &out)
        }
        func bool(_ name: String, _ value: Bool) {
            key(name)
            out += (value ? "true" : "false").utf8
        }
        if postback.hasVersionKey { string("version", postback.version.rawValue) }
        string("ad-network-id", postback.adNetworkID)
        if let value = postback.campaignID { integer("campaign-id", value) }
        if let value = postback.sourceIdentifier { string("source-identifier", value) }
        integer("app-id", postback.appID)
        string("transaction-id", postback.transactionID)
        if let value = postback.redownload { bool("redownload", value) }
        if let value = postback.sourceAppID { integer("source-app-id", value) }
        if let value = postback.sourceDomain { string("source-domain", value) }
        if let value = postback.fidelityType { integer("fidelity-type", value) }
        if let value = postback.didWin { bool("did-win", value) }
        if let value = postback.postbackSequenceIndex { integer("postback-sequence-index", value) }
        if let value = postback.conversionValue { integer("conversion-value", value) }
        if let value = postback.coarseConversionValue { string("coarse-conversion-value", value.rawValue) }
        if let value = postback.countryCode { string("country-code", value) }
        string("attribution-signature", postback.attributionSignature)
        precondition(postback.extras.isEmpty, "simulated postbacks carry no extra keys")
        out.append(UInt8(ascii: "}"))
    }
}
