extension StringProtocol {
    /// The text without white space at either end, for modules that import FoundationEssentials only (it has no
    /// `CharacterSet`). The same Unicode scalars as Foundation's `trimmingCharacters(in: .whitespaces)`: tab
    /// and the space separators (General Category Zs); with `includingNewlines`, as
    /// `.whitespacesAndNewlines`: also the line and paragraph separators (Zl, Zp), U+000A–U+000D and U+0085.
    /// - Parameter includingNewlines: Whether line breaks are trimmed too.
    /// - Returns: The trimmed text; empty when it was all white space.
    public func trimmingWhitespace(includingNewlines: Bool = false) -> String {
        func isTrimmed(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.value {
            case 0x09: return true
            case 0x0A...0x0D, 0x85: return includingNewlines
            default:
                switch scalar.properties.generalCategory {
                case .spaceSeparator: return true
                case .lineSeparator, .paragraphSeparator: return includingNewlines
                default: return false
                }
            }
        }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isTrimmed($0) })!
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}
