/// What a network's campaign numbers mean: the names behind each campaign id (SKAdNetwork before 4.0) and each source
/// identifier (4.0 and AdAttributionKit), per ad network and over dated periods, since a network reuses its numbers.
///
/// A source identifier is up to four digits whose meaning is the network's own, usually hierarchical: some digits
/// name the campaign, more the ad set, all four the creative. The privacy tier lets two, three or four of them through
/// (spec §3.3), so one install may arrive as `5239`, `239` or `39`. An entry may name any of those lengths. A postback's
/// identifier is looked up exactly first; failing that, through the longer entries that contain its digits (the
/// trailing ones by default, ``SourceIdentifierDigits``): the campaign they all agree on, and from three digits the
/// ad set and country they agree on; the rest unknown.
/// An identifier nothing names is ``Lookup/unmapped``, never dropped.
public struct CampaignMap: Sendable, Hashable {
    /// The names of one campaign number. Deeper levels may be absent.
    public struct Names: Sendable, Hashable {
        public var campaign: String
        public var adSet: String?
        public var creative: String?
        public var country: String?

        public init(campaign: String, adSet: String? = nil, creative: String? = nil, country: String? = nil) {
            self.campaign = campaign
            self.adSet = adSet
            self.creative = creative
            self.country = country
        }
    }

    /// Which number an entry names.
    public enum Number: Sendable, Hashable, CustomStringConvertible {
        /// A campaign id, 1–100 (SKAdNetwork 2.0–3.0).
        case campaignID(Int)
        /// A source identifier of 2–4 digits, as a postback carries it.
        case sourceIdentifier(String)

        public var description: String {
            switch self {
            case .campaignID(let id): "campaign id \(id)"
            case .sourceIdentifier(let digits): "source identifier \(digits)"
            }
        }

        /// The column of a campaign map file that names it.
        public var field: String {
            switch self {
            case .campaignID: "campaign_id"
            case .sourceIdentifier: "source_identifier"
            }
        }

        /// The number as a postback and a file write it.
        public var value: String {
            switch self {
            case .campaignID(let id): String(id)
            case .sourceIdentifier(let digits): digits
            }
        }
    }

    /// One dated mapping.
    public struct Entry: Sendable, Hashable {
        public var network: String
        public var number: Number
        /// First day it applies, `YYYY-MM-DD`; `nil` for always before `validTo`.
        public var validFrom: String?
        /// Last day it applies, inclusive; `nil` for no end.
        public var validTo: String?
        public var names: Names
        /// Where it came from, for errors: a file's line, say.
        public var origin: String

        public init(network: String, number: Number, validFrom: String? = nil, validTo: String? = nil, names: Names,
                    origin: String) {
            self.network = network
            self.number = number
            self.validFrom = validFrom
            self.validTo = validTo
            self.names = names
            self.origin = origin
        }

        /// Whether it applies on `day` (`YYYY-MM-DD`); an unknown day matches an entry of any period.
        func applies(on day: String?) -> Bool {
            guard let day else { return true }
            return (validFrom.map { $0 <= day } ?? true) && (validTo.map { day <= $0 } ?? true)
        }

        func overlaps(_ other: Entry) -> Bool {
            let startsBeforeOtherEnds = validFrom.flatMap { from in other.validTo.map { from <= $0 } } ?? true
            let otherStartsBeforeThisEnds = other.validFrom.flatMap { from in validTo.map { from <= $0 } } ?? true
            return startsBeforeOtherEnds && otherStartsBeforeThisEnds
        }
    }

    /// What a lookup found.
    public enum Lookup: Sendable, Hashable {
        /// An entry names exactly this number.
        case mapped(Names)
        /// Longer source identifiers that contain these digits agree on the names given; the levels they disagree
        /// on are absent.
        case partial(Names)
        /// Nothing names it, or the entries containing it disagree on the campaign itself.
        case unmapped

        /// The names, whole or partial.
        public var names: Names? {
            switch self {
            case .mapped(let names), .partial(let names): names
            case .unmapped: nil
            }
        }
    }

    /// Every entry, in the order given.
    public let entries: [Entry]
    /// Which digits of a source identifier survive a lower tier.
    public let digits: SourceIdentifierDigits
    private let byKey: [Key: [Entry]]
    /// Four-digit and three-digit entries by network and by the digits a lower tier keeps of them.
    private let byShorter: [Key: [Entry]]

    private struct Key: Hashable {
        let network: String
        let number: Number
    }

    /// A map of `entries`, refusing two that name one number of one network over overlapping periods (naming both).
    public init(entries: [Entry], digits: SourceIdentifierDigits = .trailing) throws(CampaignMapError) {
        var byKey: [Key: [Entry]] = [:]
        var byShorter: [Key: [Entry]] = [:]
        for entry in entries {
            let key = Key(network: entry.network, number: entry.number)
            if let clash = byKey[key]?.first(where: { $0.overlaps(entry) }) {
                throw CampaignMapError(.overlap, "\(entry.origin): valid_from,valid_to \(Self.period(entry)) of "
                    + "\(entry.number.field) \(entry.number.value) of \(entry.network) overlaps \(Self.period(clash)) at "
                    + "\(clash.origin); expected periods of one number that do not overlap")
            }
            byKey[key, default: []].append(entry)
            if case .sourceIdentifier(let text) = entry.number {
                for length in 2..<text.count {
                    byShorter[Key(network: entry.network, number: .sourceIdentifier(digits.keep(length, of: text))),
                              default: []].append(entry)
                }
            }
        }
        self.entries = entries
        self.digits = digits
        self.byKey = byKey
        self.byShorter = byShorter
    }

    /// The names of `number` as `network` used it on `day` (`YYYY-MM-DD`, or `nil` when unknown).
    public func lookup(network: String, number: Number, day: String?) -> Lookup {
        let key = Key(network: network, number: number)
        if let entry = byKey[key]?.first(where: { $0.applies(on: day) }) { return .mapped(entry.names) }
        let containing = (byShorter[key] ?? []).filter { $0.applies(on: day) }
        guard let first = containing.first,
              containing.allSatisfy({ $0.names.campaign == first.names.campaign }) else { return .unmapped }
        // The levels fewer digits can tell, as hierarchical identifiers are laid out (two digits the campaign, a
        // third the ad set or country, the fourth the creative): a creative is never guessed, an ad set only from
        // three digits, and only where every entry containing them agrees.
        let digitCount = if case .sourceIdentifier(let text) = number { text.count } else { 0 }
        func agreed(_ level: (Names) -> String?, from digits: Int) -> String? {
            guard digitCount >= digits else { return nil }
            let value = level(first.names)
            return containing.allSatisfy { level($0.names) == value } ? value : nil
        }
        return .partial(Names(campaign: first.names.campaign, adSet: agreed(\.adSet, from: 3), creative: nil,
                              country: agreed(\.country, from: 3)))
    }

    private static func period(_ entry: Entry) -> String {
        switch (entry.validFrom, entry.validTo) {
        case (nil, nil): "(all days)"
        case (let from?, nil): "\(from) on"
        case (nil, let to?): "to \(to)"
        case (let from?, let to?): "\(from) to \(to)"
        }
    }
}

/// Which digits of a source identifier a lower privacy tier keeps. Apple's examples (5239 in one postback, 39 in
/// another) fit the trailing digits; one third-party text says the first (spec §11.1), hence the choice.
public enum SourceIdentifierDigits: String, Sendable, Hashable, CaseIterable {
    case trailing, leading

    /// The `length` digits of `text` that survive.
    public func keep(_ length: Int, of text: String) -> String {
        String(self == .trailing ? text.suffix(length) : text.prefix(length))
    }
}

/// The error type of campaign maps (SKANCore's `DomainError` shape).
public typealias CampaignMapError = DomainError<CampaignMapErrorDomain>

/// The domain of ``CampaignMapError``.
public enum CampaignMapErrorDomain: ErrorDomain {}

extension DomainError.Code where Domain == CampaignMapErrorDomain {
    /// Two entries name one number of one network over overlapping periods.
    public static let overlap = Self("overlap")
    /// A row that is not a mapping: a missing or malformed cell.
    public static let malformed = Self("malformed")
}
