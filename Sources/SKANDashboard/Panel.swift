import SKANCore
import SKANReports

/// One panel of a page: a chart (drawn in the browser from ``chartJSON``), the report table it was drawn from
/// (server-rendered, so the numbers read without JavaScript and by screen readers), and the link to the same
/// numbers as `skan report` CSV.
struct Panel: Sendable {
    /// An id for the page's anchors and the browser tests.
    let id: String
    let title: String
    /// One sentence on how to read it.
    let note: String
    /// The chart for dashboard.js, or `nil` for a table-only panel.
    let chartJSON: String?
    let table: PanelTable
    /// The sentence shown instead of the chart and the table when there is nothing to show.
    let empty: String?
    /// `/report.csv?...`: exactly `skan report --format csv` for the panel's fields and the page's view.
    let csvLink: String
    /// The `skan report` command line that prints the same CSV.
    let command: String

    var hasChart: Bool { chartJSON != nil }
}

/// A table of report cells, numbers with thousands separators and right-aligned.
struct PanelTable: Sendable {
    struct Cell: Sendable {
        let text: String
        let numeric: Bool
        /// More about the cell, shown when it is opened (a campaign's identifiers at each tier).
        var detail: String? = nil
    }

    struct Row: Sendable {
        let cells: [Cell]
    }

    let columns: [String]
    let rows: [Row]
    var isEmpty: Bool { rows.isEmpty }

    /// A table of `columns` over ready cells.
    init(columns: [String], cells: [[Cell]]) {
        self.columns = columns
        rows = cells.map { Row(cells: $0) }
    }

    /// A table of `columns` over `rows` of text: the first `keys` cells of a row name it, the others are counts,
    /// grouped and right-aligned.
    init(columns: [String], rows: [[String]], keys: Int) {
        self.columns = columns
        self.rows = rows.map { cells in
            Row(cells: cells.enumerated().map { index, cell in
                let numeric = index >= keys && !cell.isEmpty
                return Cell(text: numeric ? NumberText.grouped(cell) : cell, numeric: numeric)
            })
        }
    }

    /// The report's own header and cells.
    init(_ report: Report) {
        columns = report.header
        rows = report.rows.map { row in
            Row(cells: report.cells(row).enumerated().map { index, cell in
                let numeric = index >= report.request.fields.count && !cell.isEmpty
                return Cell(text: numeric ? NumberText.grouped(cell) : cell, numeric: numeric)
            })
        }
    }
}

/// A chart as dashboard.js draws it: categories on one axis, one series per dataset.
struct ChartSpec {
    enum Kind: String { case bar, line }

    var kind: Kind
    var stacked: Bool
    var labels: [String]
    var series: [(name: String, values: [Double])]
    /// The value axis's title.
    var axis: String
    /// Values are fractions shown as percentages.
    var percent = false

    /// JSON safe to embed in a `<script>` element: `<` never appears raw.
    var json: String {
        var writer = JSONWriter()
        writer.string("type", kind.rawValue)
        writer.raw("stacked", stacked ? "true" : "false")
        writer.raw("percent", percent ? "true" : "false")
        writer.string("axis", axis)
        writer.raw("labels", "[" + labels.map { JSONWriter.quoted($0) }.joined(separator: ",") + "]")
        let datasets = series.map { item in
            var dataset = JSONWriter()
            dataset.string("label", item.name)
            dataset.raw("data", "[" + item.values.map { $0 == $0.rounded() ? String(Int($0)) : String($0) }
                .joined(separator: ",") + "]")
            return dataset.json
        }
        writer.raw("datasets", "[" + datasets.joined(separator: ",") + "]")
        return writer.json.replacingOccurrences(of: "<", with: "\\u003c")
    }
}

/// Numbers for people: `1234567` as `1,234,567`, decimals kept.
enum NumberText {
    static func grouped(_ text: String) -> String {
        let negative = text.hasPrefix("-")
        let body = negative ? String(text.dropFirst()) : text
        let parts = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.allSatisfy(\.isNumber) else { return text }
        var grouped = ""
        for (index, digit) in whole.enumerated() {
            if index > 0 && (whole.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        let fraction = parts.count > 1 ? "." + parts[1] : ""
        return (negative ? "-" : "") + grouped + fraction
    }

    static func grouped(_ value: Int) -> String { grouped(String(value)) }
}
