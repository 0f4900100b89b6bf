import Foundation
import Testing
import TexPipeTestSupport

@testable import TexPipeEngine
@testable import TexPipeFormats
@testable import TexPipeManifest
@testable import TexPipeParameters
@testable import TexPipePixels
@testable import TexPipePlan
@testable import TexPipeReport
@testable import TexPipeStages

/// The documentation a clone contains: the generated references match the tables they come from,
/// every relative link in README.md and docs/ resolves (file and heading), and nothing cites a
/// contract outside the repository.
@Suite("docs")
struct DocsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func read(_ relative: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
    }

    @Test func stageReferenceIsGeneratedFromTheRegistry() throws {
        #expect(
            try Self.read("docs/reference/stages.md") == StageReference.markdown(for: StageRegistry.all),
            "regenerate: texpipe stages --markdown > docs/reference/stages.md")
    }

    @Test func formatReferenceIsGeneratedFromTheTable() throws {
        #expect(
            try Self.read("docs/reference/textures.md") == TextureReference.markdown(),
            "regenerate: texpipe formats --markdown > docs/reference/textures.md")
    }

    /// GitHub's heading anchors: lowercase, punctuation dropped, spaces to hyphens.
    static func anchor(_ heading: String) -> String {
        String(
            heading.lowercased().compactMap { c -> Character? in
                if c == " " { return "-" }
                return c.isLetter || c.isNumber || c == "-" || c == "_" ? c : nil
            })
    }

    static func markdownFiles() throws -> [String] {
        let docs = root.appendingPathComponent("docs")
        let pages = try FileManager.default.subpathsOfDirectory(atPath: docs.path).filter { $0.hasSuffix(".md") }
        return ["README.md"] + pages.map { "docs/" + $0 }
    }

    @Test func everyLinkResolves() throws {
        let files = try Self.markdownFiles()
        #expect(files.count >= 12, "\(files)")
        var anchors: [String: Set<String>] = [:]
        for f in files {
            var seen = Set<String>()
            var inCode = false
            for line in try Self.read(f).split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("```") { inCode.toggle() }
                if !inCode, line.hasPrefix("#") {
                    seen.insert(Self.anchor(String(line.drop(while: { $0 == "#" }).dropFirst())))
                }
            }
            anchors[f] = seen
        }
        var checked = 0
        for f in files {
            let text = try Self.read(f)
            let folder = (f as NSString).deletingLastPathComponent
            var rest = Substring(text)
            while let open = rest.range(of: "](") {
                rest = rest[open.upperBound...]
                guard let close = rest.firstIndex(of: ")") else { break }
                let target = String(rest[..<close])
                rest = rest[close...]
                if target.hasPrefix("http://") || target.hasPrefix("https://") || target.hasPrefix("mailto:") {
                    continue
                }
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let path = String(parts[0])
                let file =
                    path.isEmpty ? f : (folder.isEmpty ? path : (folder as NSString).appendingPathComponent(path))
                let normalized = (file as NSString).standardizingPath
                #expect(
                    FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(normalized).path),
                    "\(f): link to \(target) resolves to no file")
                if parts.count == 2, normalized.hasSuffix(".md") {
                    #expect(
                        anchors[normalized]?.contains(String(parts[1])) == true,
                        "\(f): link to \(target): no such heading in \(normalized)")
                }
                checked += 1
            }
        }
        #expect(checked > 40)
    }

    /// Code and docs cite the docs a clone contains, never a contract outside the repository.
    @Test func nothingCitesAFileOutsideTheRepository() throws {
        let fm = FileManager.default
        var offenders: [String] = []
        for folder in ["Sources", "Tests", "docs", "Scripts", "Benchmarks", "Fuzz"] {
            let base = Self.root.appendingPathComponent(folder)
            for name in try fm.subpathsOfDirectory(atPath: base.path)
            where [".swift", ".md", ".py", ".c", ".h", ".sh"].contains(where: name.hasSuffix) {
                let text = (try? String(contentsOf: base.appendingPathComponent(name), encoding: .utf8)) ?? ""
                if text.contains("SPEC §") || text.contains("../shared") { offenders.append("\(folder)/\(name)") }
            }
        }
        let readme = try Self.read("README.md")
        if readme.contains("../shared") { offenders.append("README.md") }
        // This file names the strings it looks for.
        #expect(offenders == ["Tests/TexPipeReportTests/DocsTests.swift"])
    }
}
