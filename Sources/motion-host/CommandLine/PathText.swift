// Path text as NSString's path methods give it, for a CLI that imports FoundationEssentials only.

/// `path` without trailing slashes ("/" stays "/").
private func trimmingTrailingSlashes(_ path: String) -> Substring {
    var end = path.endIndex
    while end > path.index(after: path.startIndex), path[path.index(before: end)] == "/" { end = path.index(before: end) }
    return path.isEmpty ? "" : path[..<end]
}

/// The folder part of a path, as NSString's `deletingLastPathComponent`: "a/b.json" → "a", "b.json" → "",
/// "/b.json" → "/", "a/b/" → "a".
/// - Parameter path: A file or folder path.
/// - Returns: The path of the folder that holds it; empty for a bare name.
func parentFolder(of path: String) -> String {
    let trimmed = trimmingTrailingSlashes(path)
    guard let slash = trimmed.lastIndex(of: "/") else { return "" }
    if slash == trimmed.startIndex { return "/" }
    return String(trimmingTrailingSlashes(String(trimmed[..<slash])))
}

/// `name` inside the folder `path`, as NSString's `appendingPathComponent`: one slash between them, a
/// trailing slash of `path` not doubled; a bare `name` when `path` is empty.
/// - Parameters:
///   - name: A file name.
///   - path: A folder path.
/// - Returns: The joined path.
func appendingPathComponent(_ name: String, to path: String) -> String {
    if path.isEmpty { return name }
    let folder = trimmingTrailingSlashes(path)
    return folder == "/" ? "/" + name : folder + "/" + name
}
