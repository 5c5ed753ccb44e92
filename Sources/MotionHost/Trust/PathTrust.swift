/// The ownership and permission rules for files that decide what code runs (manifests and libraries), as
/// sudo's plugin loader and OpenSSH's `StrictModes` apply them: the file must be a regular file, and the file
/// and every folder from its folder up to `/` must be owned by the current user or root and not writable by
/// group or others, except a sticky folder owned by root (such as `/tmp`), where nobody else can replace
/// what we own.
///
/// Paths given here are canonical (``system_realpath(_:)``), so the folders checked are the ones the file
/// really lives in.
///
/// Thread rule: stateless; safe from any thread.
enum PathTrust {
    /// A rule a file or folder breaks.
    struct Problem: Error, Equatable {
        /// ``PluginError/Code/wrongOwner``, ``PluginError/Code/insecurePermissions``,
        /// ``PluginError/Code/notARegularFile`` or ``PluginError/Code/unreadable``.
        var code: PluginError.Code
        /// One sentence, naming the path: "the folder /opt/p is writable by group or others (mode 0777) …".
        var message: String
    }

    /// Checks a file, from its status (taken on the open descriptor where there is one).
    /// - Parameters:
    ///   - status: The file's `fstat(2)` or `stat(2)` facts.
    ///   - path: Its canonical path, for messages.
    ///   - what: What it is: "library", "manifest".
    /// - Returns: The first rule it breaks, or `nil`.
    static func problem(file status: FileStatus, path: String, what: String) -> Problem? {
        guard status.isRegularFile else {
            return Problem(code: .notARegularFile, message: "the \(what) \(path) is not a regular file")
        }
        return problem(status, subject: "the \(what) \(path)", path: path, allowsSticky: false)
    }

    /// Checks every folder from `path`'s folder up to `/`.
    /// - Parameters:
    ///   - path: A canonical path (of the file the folders lead to).
    ///   - what: What the file is, for messages ("library").
    ///   - checked: Folders already found good in this pass (for a catalog with many files in one folder).
    /// - Returns: The first rule a folder breaks, nearest the file first, or `nil`.
    static func problemInFolders(of path: String, what: String, checked: inout Set<String>) -> Problem? {
        var folder = directoryName(of: path)
        var pending: [String] = []
        while !checked.contains(folder) {
            let status: FileStatus
            do {
                status = try system_stat(folder)
            } catch {
                return Problem(
                    code: .unreadable, message: "the folder \(folder), on the way to the \(what), cannot be examined: \(error)")
            }
            let subject =
                folder == directoryName(of: path) ? "the folder \(folder)" : "the folder \(folder), on the way to the \(what),"
            if let problem = problem(status, subject: subject, path: folder, allowsSticky: true) {
                return problem
            }
            pending.append(folder)
            if folder == "/" { break }
            folder = directoryName(of: folder)
        }
        checked.formUnion(pending)
        return nil
    }

    private static func problem(_ status: FileStatus, subject: String, path: String, allowsSticky: Bool) -> Problem? {
        let me = system_geteuid()
        if status.owner != me && status.owner != 0 {
            return Problem(
                code: .wrongOwner,
                message:
                    "\(subject) is owned by user id \(status.owner), neither you (user id \(me)) nor root; it was not loaded. To fix, chown it to yourself or root"
            )
        }
        if status.isWritableByGroupOrOthers && !(allowsSticky && status.isSticky && status.owner == 0) {
            return Problem(
                code: .insecurePermissions,
                message:
                    "\(subject) is writable by group or others (mode 0\(String(status.permissions, radix: 8))); it was not loaded. To fix, run chmod go-w \(path)"
            )
        }
        return nil
    }
}
