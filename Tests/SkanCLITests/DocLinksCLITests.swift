import Foundation
import Testing

extension CommandLineSuites {
    /// Every relative link in README.md, docs/ and Benchmarks/README.md leads somewhere: the file (or folder)
    /// exists, and an anchor names a heading of the Markdown file it points into, by GitHub's rule for anchors.
    @Suite("Links in the documentation")
    struct DocLinksCLITests {
        /// The files whose links are checked: README.md, every Markdown file under docs/, Benchmarks/README.md.
        static func documents() -> [String] {
            DocExamples.documents() + ["Benchmarks/README.md"]
        }

        @Test("every relative link resolves to a file, and every anchor to a heading in it")
        func relativeLinksResolve() throws {
            var checked = 0, anchors = 0
            for document in Self.documents() {
                let markdown = try DocExamples.read(document)
                let base = URL(fileURLWithPath: document).deletingLastPathComponent().relativePath
                for link in DocLinks.links(in: markdown) where !link.target.contains("://") && !link.target.hasPrefix("mailto:") {
                    checked += 1
                    let parts = link.target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                    let path = parts[0].isEmpty ? document : DocLinks.normalized(base == "." ? parts[0] : base + "/" + parts[0])
                    let file = SkanProcess.packageRoot.appendingPathComponent(path)
                    #expect(!path.hasPrefix("../") && FileManager.default.fileExists(atPath: file.path),
                            "\(document) line \(link.line): \(link.target) leads to no file in the package (\(path))")
                    guard parts.count == 2, path.hasSuffix(".md"),
                          let target = try? String(contentsOf: file, encoding: .utf8) else { continue }
                    anchors += 1
                    #expect(DocLinks.anchors(in: target).contains(parts[1]),
                            "\(document) line \(link.line): \(link.target): \(path) has no heading with the anchor #\(parts[1])")
                }
            }
            // Today about 160 links, 70 of them with anchors; a parser that finds none is a defect, not a pass.
            #expect(checked >= 100, "only \(checked) relative links found")
            #expect(anchors >= 40, "only \(anchors) anchors checked")
        }

        @Test("the link and anchor rules: GitHub's anchors, links outside code, paths normalised")
        func rules() {
            #expect(DocLinks.anchor("Durable ingest on traffic-shaped postbacks, paired with 49072cf (issue 30, 2026-11-26)")
                    == "durable-ingest-on-traffic-shaped-postbacks-paired-with-49072cf-issue-30-2026-11-26")
            #expect(DocLinks.anchor("Budgets (`budget.sh`): the figures load cannot move") == "budgets-budgetsh-the-figures-load-cannot-move")
            #expect(DocLinks.anchors(in: "# A\n## A\n```\n# not a heading\n```\n") == ["a", "a-1"])
            let links = DocLinks.links(in: "see [a](x.md#y) and ![b](img.png)\n```\n[c](inside-code.md)\n```\n`[d](inline.md)`")
            #expect(links.map(\.target) == ["x.md#y", "img.png"])
            #expect(DocLinks.normalized("docs/cli/../../README.md") == "README.md")
            #expect(DocLinks.normalized("docs/cli/../guides/a.md") == "docs/guides/a.md")
        }
    }
}

/// Links and headings of Markdown files, as GitHub renders them.
enum DocLinks {
    struct Link {
        var target: String
        var line: Int
    }

    /// The targets of `[text](target)` and `![alt](target)` outside fenced blocks and inline code.
    static func links(in markdown: String) -> [Link] {
        var links: [Link] = []
        var fenced = false
        for (number, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") { fenced.toggle(); continue }
            if fenced { continue }
            // Inline code spans are dropped first: `[x](y)` inside backticks is text, not a link.
            let text = String(line).replacingOccurrences(of: "`[^`]*`", with: "", options: .regularExpression)
            let pattern = try! NSRegularExpression(pattern: #"\]\(([^)\s]+)\)"#)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                if let range = Range(match.range(at: 1), in: text) {
                    links.append(Link(target: String(text[range]), line: number + 1))
                }
            }
        }
        return links
    }

    /// GitHub's anchor of a heading: lower case; letters, digits, `-` and `_` kept, spaces become `-`, the rest
    /// (punctuation, backticks, dashes such as – and symbols such as ≥) dropped.
    static func anchor(_ heading: String) -> String {
        String(heading.lowercased().compactMap { character -> Character? in
            if character == " " { return "-" }
            if character.isLetter || character.isNumber || character == "-" || character == "_" { return character }
            return nil
        })
    }

    /// The anchors of every ATX heading outside fenced blocks, a repeated one suffixed `-1`, `-2` … as GitHub does.
    static func anchors(in markdown: String) -> [String] {
        var anchors: [String] = []
        var seen: [String: Int] = [:]
        var fenced = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") { fenced.toggle(); continue }
            guard !fenced, line.hasPrefix("#") else { continue }
            let title = line.drop(while: { $0 == "#" })
            guard title.first == " " else { continue }
            let base = anchor(title.trimmingCharacters(in: .whitespaces))
            let count = seen[base, default: 0]
            seen[base] = count + 1
            anchors.append(count == 0 ? base : "\(base)-\(count)")
        }
        return anchors
    }

    /// `path` with `.` and `name/..` segments resolved; a path climbing out of the package keeps its leading `..`.
    static func normalized(_ path: String) -> String {
        var segments: [String] = []
        for segment in path.split(separator: "/").map(String.init) where segment != "." {
            if segment == "..", let last = segments.last, last != ".." { segments.removeLast() } else { segments.append(segment) }
        }
        return segments.joined(separator: "/")
    }
}
