import Foundation
import Testing

/// The repository stands alone: the documents its sources cite are in it, and RUNTIME.md's behaviours are
/// the ones the tests name.
@Suite struct DocumentationTests {
    /// Every file under `folders` (relative to the package root) with one of `extensions`, with its text;
    /// this file, which names what it looks for, is left out.
    static func files(under folders: [String], extensions: Set<String>) throws -> [(path: String, text: String)] {
        var found: [(String, String)] = []
        for folder in folders {
            let root = packageRoot.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walker where extensions.contains(url.pathExtension) && url.lastPathComponent != "DocumentationTests.swift" {
                let relative = String(url.path.dropFirst(packageRoot.path.count + 1))
                found.append((relative, try String(contentsOf: url, encoding: .utf8)))
            }
        }
        return found
    }

    @Test func everyDocumentTheSourcesCiteIsInTheRepository() throws {
        let sources = try Self.files(under: ["Sources", "Tests", "Plugins", "Benchmarks"], extensions: ["swift", "c", "h"])
        let pattern = /Documentation\/[A-Za-z]+\.md/
        var cited: [String: String] = [:]
        for file in sources {
            for match in file.text.matches(of: pattern) { cited[String(match.output), default: file.path] = file.path }
        }
        #expect(cited.keys.sorted() == ["Documentation/PITFALLS.md", "Documentation/RUNTIME.md"])
        for (document, citingFile) in cited {
            #expect(
                FileManager.default.fileExists(atPath: packageRoot.appendingPathComponent(document).path),
                "\(citingFile) cites \(document), which is not in the repository")
        }
        // No citation of a document outside the repository, or of one by its bare name.
        for file in sources {
            #expect(!file.text.contains("shared/spec"), "\(file.path) cites a document outside the repository")
            for line in file.text.split(separator: "\n") where line.contains("RUNTIME.md") || line.contains("PITFALLS.md") {
                #expect(line.contains("Documentation/"), "\(file.path): \(line) cites a document by its bare name")
            }
        }
    }

    @Test func runtimeBehavioursAreR1ToR43AndEveryOneIsNamedByATest() throws {
        let runtime = try String(contentsOf: packageRoot.appendingPathComponent("Documentation/RUNTIME.md"), encoding: .utf8)
        let listed = runtime.matches(of: /^- \*\*R([0-9]+)\*\*/.anchorsMatchLineEndings()).compactMap { Int($0.output.1) }
        #expect(listed == Array(1...43))
        let tests = try Self.files(under: ["Tests"], extensions: ["swift"]).map(\.text).joined(separator: "\n")
        let named = Set(tests.matches(of: /\bR([0-9]+)\b/).compactMap { Int($0.output.1) })
        let unnamed = (1...43).filter { !named.contains($0) }
        #expect(unnamed.isEmpty, "no test names R\(unnamed.map(String.init).joined(separator: ", R"))")
    }
}
