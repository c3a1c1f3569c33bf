import Foundation

/// The files the dashboard serves and renders with: its own templates, script and style (bundled with the
/// package), and Chart.js from where the system's package manager installed it (never fetched at run time).
struct DashboardAssets: Sendable {
    /// The folder of `.mustache` templates.
    let templates: String
    let script: String
    let style: String
    /// Chart.js's browser build, or `nil` when it is not installed.
    let chartJS: String?

    init(chartJS: String) throws(DashboardError) {
        // The bundle's own folder: on Linux, Foundation takes a bundle holding a `Resources` folder for a macOS-style
        // bundle and answers `resourceURL` with that folder itself.
        let resources = Bundle.module.bundleURL.appendingPathComponent("Resources")
        guard FileManager.default.fileExists(atPath: resources.appendingPathComponent("templates/page.mustache").path) else {
            throw DashboardError(.installation, "the dashboard's templates are not installed in \(resources.path)")
        }
        templates = resources.appendingPathComponent("templates").path
        script = resources.appendingPathComponent("static/dashboard.js").path
        style = resources.appendingPathComponent("static/dashboard.css").path
        self.chartJS = FileManager.default.isReadableFile(atPath: chartJS) ? chartJS : nil
    }
}
