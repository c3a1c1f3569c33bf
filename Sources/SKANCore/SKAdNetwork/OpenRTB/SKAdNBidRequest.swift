/// What a bid request's `imp.ext.skadn` (the IAB OpenRTB community extension, spec §7.1) tells a network: the
/// versions the device and the publisher's SDK support, the publisher's app, and the network ids its Info.plist
/// lists. It names no fidelities and no source identifier: the network decides those.
public struct SKAdNBidRequest: Sendable, Hashable {
    /// `versions` (or the deprecated single `version`), as sent.
    public var versions: [String]
    /// `sourceapp`: the publisher's App Store id, a string.
    public var sourceApp: String?
    /// `skadnetids`, lowercased (ids are lowercase; a publisher's list sometimes is not).
    public var networkIDs: [String]

    /// Makes a request.
    public init(versions: [String], sourceApp: String?, networkIDs: [String]) {
        self.versions = versions
        self.sourceApp = sourceApp
        self.networkIDs = networkIDs
    }

    /// Reads `imp.ext.skadn` strictly, naming the member at fault (`origin` prefixes it: `imp-ext-skadn.`).
    public init(json bytes: [UInt8], origin: String = "") throws(SKANError) {
        let members: [JSONMember]
        switch JSONObjectReader.members(of: bytes) {
        case .success(let read): members = read
        case .failure(let error): throw SKANError(.invalidImpression, "\(origin.dropLast()) is not a JSON object: \(error)")
        }
        func strings(_ key: String) throws(SKANError) -> [String]? {
            guard let value = members.first(where: { $0.key == key })?.value else { return nil }
            guard case .array(let text) = value,
                  case .success(let elements) = JSONObjectReader.elements(ofArray: Array(text.utf8), maximumCount: 1000) else {
                throw SKANError(.invalidImpression, "\(origin)\(key) must be an array of strings, got \(value.described)")
            }
            var result: [String] = []
            for element in elements {
                guard case .string(let text) = element else {
                    throw SKANError(.invalidImpression, "\(origin)\(key) must hold strings, got \(element.described)")
                }
                result.append(text)
            }
            return result
        }
        var versions = try strings("versions") ?? []
        if versions.isEmpty, case .string(let single)? = members.first(where: { $0.key == "version" })?.value {
            versions = [single]
        }
        var sourceApp: String?
        switch members.first(where: { $0.key == "sourceapp" })?.value {
        case nil, .null?: sourceApp = nil
        case .string(let text)?: sourceApp = text
        case .number(let text)?: sourceApp = text
        case let other?: throw SKANError(.invalidImpression, "\(origin)sourceapp must be a string, got \(other.described)")
        }
        self.init(versions: versions, sourceApp: sourceApp, networkIDs: (try strings("skadnetids") ?? []).map { $0.lowercased() })
    }

    /// The version to sign: the highest one the request offers that the network can sign with what it has: a
    /// source identifier needs 4.0, a campaign number 3.0 or earlier; `nil` when none fits. The extension gives
    /// no rule beyond "2.0 or above" (spec §7.1); this is the careful reading.
    public func version(hasSourceIdentifier: Bool, hasCampaign: Bool) -> SKANVersion? {
        let offered = versions.compactMap(SKANVersion.init(rawValue:)).filter { $0 >= .v2_0 }.sorted(by: >)
        return offered.first { version in
            version.usesSourceIdentifier ? hasSourceIdentifier : hasCampaign
        }
    }

    /// The first of the request's network ids that is one of `ours`; `nil` when none is.
    public func network(among ours: Set<String>) -> String? {
        networkIDs.first { ours.contains($0) }
    }
}
