/// `", did you mean \"x\"?"`-style text naming the known name nearest to `name`, or `""` if none is near.
package func suggestion(for name: String, among known: [String]) -> String {
    guard let best = nearestName(to: name, among: known) else { return "" }
    return " (did you mean \"\(best)\"?)"
}

/// The known name nearest to `name` by edit distance (case-insensitive), if it is within a third of
/// the name's length (at least 2 edits); else the one known name that begins with `name` (case-insensitive,
/// at least 3 characters), as `xMagneticNorth` leads to `xMagneticNorthZVertical`.
package func nearestName(to name: String, among known: [String]) -> String? {
    nearestByEdits(to: name, among: known) ?? onlyExtension(of: name, among: known)
}

private func onlyExtension(of name: String, among known: [String]) -> String? {
    guard name.count >= 3 else { return nil }
    let prefix = name.lowercased()
    let matches = known.filter { $0 != name && $0.lowercased().hasPrefix(prefix) }
    return matches.count == 1 ? matches[0] : nil
}

private func nearestByEdits(to name: String, among known: [String]) -> String? {
    let limit = max(2, name.count / 3)
    var best: (name: String, distance: Int)?
    for candidate in known where candidate != name {
        let d = editDistance(name.lowercased(), candidate.lowercased())
        if d <= limit, d < (best?.distance ?? .max) { best = (candidate, d) }
    }
    return best?.name
}

/// The Levenshtein distance between two strings, by characters.
package func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}
