import Mustache
import Testing
@testable import SKANDashboard

/// The templates' values answer names themselves (TemplateLookups.swift) instead of by reflection; these check that
/// they answer every stored property exactly as reflection would, so a property added later and not listed fails here
/// rather than rendering as nothing.
@Suite("Dashboard: template lookups")
struct TemplateLookupTests {
    /// What swift-mustache's reflection gives for a property: an optional's value, or nil.
    static func reflected(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first?.value
    }

    static func check(_ value: some MustacheParent) {
        let children = Mirror(reflecting: value).children
        #expect(!children.isEmpty)
        for child in children {
            let label = child.label ?? "?"
            #expect(String(describing: value.child(named: label)) == String(describing: Self.reflected(child.value)),
                    "\(type(of: value)).\(label)")
        }
        #expect(value.child(named: "no-such-name") == nil)
    }

    @Test("cells, rows, tables, panels and the page answer every stored property as reflection does")
    func everyProperty() {
        let cells = [PanelTable.Cell(text: "5239", numeric: false, detail: "239, 39"), PanelTable.Cell(text: "1,024", numeric: true)]
        let table = PanelTable(columns: ["campaign", "postbacks"], cells: [cells])
        let panel = Panel(id: "p", title: "T", note: "n", chartJSON: nil, table: table, empty: "nothing yet",
                          csvLink: "/report.csv", command: "skan report")
        let page = PageContent(
            title: "Overview", nav: [], showsFilters: true, from: "2026-11-01", to: "2026-11-26", networks: [], campaigns: [],
            networkOptions: "<option>", campaignOptions: "", windows: [], stacks: [], showsStack: false, tiles: [],
            emptyNote: nil, panels: [panel], refusals: [], hasRefusals: false, conflicts: [], hasConflicts: false,
            unfilteredNote: "all", integrityCommand: "skan report --integrity", relayRows: [], hasRelayRows: false,
            deadLetters: [], hasDeadLetters: false, relayNote: "no relay", relayRetryCommand: nil, isLive: false,
            hasCharts: true, missingCharts: false)
        for cell in cells { Self.check(cell) }
        Self.check(table.rows[0])
        Self.check(table)
        Self.check(panel)
        Self.check(page)
    }
}
