import Foundation
import Testing

/// Keeps the outputs the README quotes true: every code block after a `<!-- readme-check: ARGS -->` comment
/// must match what `motion-host ARGS` prints today, run from the repository root. In a quoted line `…` stands
/// for any text; a line that is `…` alone stands for any number of lines. Lines must appear in order.
@Suite struct ReadmeOutputTests {
    static let root = MotionHost.fixtures.deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Each checked block: the arguments and the quoted lines.
    static let blocks: [(arguments: String, lines: [String])] = {
        guard let text = try? String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8) else { return [] }
        let lines = text.components(separatedBy: "\n")
        var blocks: [(String, [String])] = []
        var i = 0
        while i < lines.count {
            let line = lines[i]
            i += 1
            guard line.hasPrefix("<!-- readme-check: "), line.hasSuffix(" -->") else { continue }
            let arguments = String(line.dropFirst("<!-- readme-check: ".count).dropLast(" -->".count))
            guard i < lines.count, lines[i].hasPrefix("```") else { continue }
            var quoted: [String] = []
            i += 1
            while i < lines.count, !lines[i].hasPrefix("```") {
                quoted.append(lines[i])
                i += 1
            }
            blocks.append((arguments, quoted))
        }
        return blocks
    }()

    @Test func theREADMEChecksItsMainOutputs() {
        #expect(Self.blocks.count >= 3)
    }

    @Test(arguments: blocks.map(\.arguments))
    func aQuotedOutputIsWhatTheCommandPrints(_ arguments: String) throws {
        let quoted = try #require(Self.blocks.first { $0.arguments == arguments }?.lines)
        let result = try MotionHost.run(arguments.split(separator: " ").map(String.init), in: Self.root)
        let output = result.outputLines + result.errorLines
        var next = 0
        var skipping = false
        for line in quoted {
            if line == "…" {
                skipping = true
                continue
            }
            let pieces = line.components(separatedBy: "…")
            guard let found = output[next...].firstIndex(where: { Self.matches($0, pieces) }) else {
                Issue.record("README line not printed by motion-host \(arguments) (after line \(next)):\n\(line)")
                return
            }
            #expect(skipping || found == next, "README skips lines without an … line before:\n\(line)")
            next = found + 1
            skipping = false
        }
    }

    /// Whether `line` is `pieces` joined by any text: the first a prefix, the last a suffix, the rest in order.
    static func matches(_ line: String, _ pieces: [String]) -> Bool {
        guard let first = pieces.first, line.hasPrefix(first) else { return false }
        if pieces.count == 1 { return line == first }
        var rest = Substring(line.dropFirst(first.count))
        for piece in pieces.dropFirst().dropLast() {
            guard let range = rest.range(of: piece) else { return false }
            rest = rest[range.upperBound...]
        }
        return rest.hasSuffix(pieces.last!)
    }
}
