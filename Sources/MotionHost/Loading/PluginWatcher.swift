import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Watches the files loaded plugins' code comes from (their manifests and libraries) and says which
/// plugins changed, for hot reload (`serve --watch`, `run --watch`).
///
/// It watches the folders that hold the files (Linux inotify, `inotify_add_watch(2)`), not the files: a build
/// usually writes a new file and renames it over the old one, which a watch on the old file would not see.
/// A file counts as changed once it is complete on disk: renamed into place (`IN_MOVED_TO`) or closed after
/// writing (`IN_CLOSE_WRITE`); a file still being written (`IN_MODIFY`, `IN_CREATE`) is not reported yet.
/// ``changedPlugins()`` reads what the kernel queued without waiting, so a frame loop calls it at every frame
/// boundary and reloads there, at most one frame after the file was complete.
///
/// Thread rule: one thread at a time (the scheduler's, or a ``ReloadPreparer``'s behind its lock); nothing here blocks.
public final class PluginWatcher {
    /// The inotify instance (internal for tests, which read its watches in `/proc/self/fdinfo`).
    let fd: Int32
    /// What each watched folder's watch descriptor is, and which plugins each file name there belongs to.
    private var folders: [Int32: (path: String, files: [String: Set<String>])] = [:]
    private var watchedFolderPaths: [String: Int32] = [:]
    /// The files of each watched plugin, to watch again when a folder's watch goes away.
    private var pluginFiles: [String: [URL]] = [:]
    private var needsRewatch = false
    private var buffer = [UInt8](repeating: 0, count: 16 * 1024)

    /// The events that mean a file is complete, and that a folder went away.
    private static let mask = UInt32(IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

    /// A watcher with nothing watched yet.
    /// - Throws: ``PluginError`` with code `loadFailed` when inotify is not available (`inotify_init1`'s
    ///   error named: too many instances, or a kernel without it).
    public init() throws(PluginError) {
        do {
            fd = try system_inotify_init()
        } catch {
            throw PluginError(
                code: .loadFailed,
                message:
                    "cannot watch plugin files: inotify_init1 failed (\(error)). To fix, raise fs.inotify.max_user_instances, or run without --watch",
                manifest: nil, library: nil, underlying: error)
        }
    }

    deinit { system_close(fd) }

    /// The plugins watched so far, sorted.
    public var watchedPluginIDs: [String] { pluginFiles.keys.sorted() }

    /// Watches a plugin's files (its manifest and library, canonical paths); watching a plugin again with
    /// other files adds them. A file whose folder does not exist yet (a build folder not made yet, a clean build
    /// under way) is watched once the folder is there: ``changedPlugins()`` tries again at every call, and reports
    /// the plugin when the folder appears with the file in it.
    /// - Parameters:
    ///   - pluginID: The plugin's id, as ``changedPlugins()`` reports it.
    ///   - files: The files its code comes from.
    /// - Throws: ``PluginError`` naming the folder that cannot be watched (`inotify_add_watch`'s error,
    ///   for example the watch limit `fs.inotify.max_user_watches`).
    public func watch(pluginID: String, files: [URL]) throws(PluginError) {
        for file in files where !(pluginFiles[pluginID]?.contains(file) ?? false) {
            pluginFiles[pluginID, default: []].append(file)
        }
        for file in files where try !addWatch(for: file, pluginID: pluginID) { needsRewatch = true }
    }

    /// Watches the folder of `file` for it.
    /// - Returns: `false` when the folder does not exist (yet).
    private func addWatch(for file: URL, pluginID: String) throws(PluginError) -> Bool {
        let folder = file.deletingLastPathComponent().path
        let name = file.lastPathComponent
        let wd: Int32
        if let existing = watchedFolderPaths[folder] {
            wd = existing
        } else {
            do {
                wd = try system_inotify_add_watch(fd, folder, mask: Self.mask)
            } catch  where error == .noSuchFile || error.rawValue == ENOTDIR {
                return false
            } catch {
                throw PluginError(
                    code: .unreadable,
                    message:
                        "cannot watch \(folder) for a rebuilt \(name) (inotify_add_watch: \(error)). To fix, raise fs.inotify.max_user_watches, or run without --watch",
                    manifest: nil, library: nil, underlying: error)
            }
            watchedFolderPaths[folder] = wd
            if folders[wd] == nil { folders[wd] = (folder, [:]) }
        }
        folders[wd]?.files[name, default: []].insert(pluginID)
        return true
    }

    /// The plugins one of whose files was completed on disk since the last call, sorted; reads the queued
    /// events without waiting. When the kernel's queue overflowed, every watched plugin is reported (a
    /// reload of unchanged files does nothing).
    public func changedPlugins() -> [String] {
        var changed: Set<String> = []
        while true {
            let count: Int
            do {
                count = try buffer.withUnsafeMutableBytes { (raw) throws(Errno) in try system_readNonBlocking(fd, into: raw) }
            } catch {
                break
            }
            if count <= 0 { break }
            buffer.withUnsafeBytes { raw in
                var offset = 0
                let header = MemoryLayout<inotify_event>.size
                while offset + header <= count {
                    let wd = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                    let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                    let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameBytes = raw[(offset + header)..<min(offset + header + length, count)]
                    let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                    offset += header + length
                    if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                        changed.formUnion(pluginFiles.keys)
                        continue
                    }
                    if mask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) != 0 {
                        // The folder went (a clean build): watch it again once it is back. A folder moved
                        // away keeps its watch in the kernel (only a deleted one loses it): end it, or it would
                        // count against the watch limit, unread, for the life of the watcher.
                        if mask & UInt32(IN_MOVE_SELF) != 0 { system_inotify_rm_watch(fd, wd) }
                        if let folder = folders.removeValue(forKey: wd) { watchedFolderPaths[folder.path] = nil }
                        needsRewatch = true
                        continue
                    }
                    if let plugins = folders[wd]?.files[name] { changed.formUnion(plugins) }
                }
            }
        }
        if needsRewatch { rewatch(reporting: &changed) }
        return changed.sorted()
    }

    /// Watches again the folders whose watches went away, and those that did not exist yet; a plugin whose
    /// folder is there now with its file in it is reported, as the file was written while it was not watched.
    private func rewatch(reporting changed: inout Set<String>) {
        needsRewatch = false
        for (pluginID, files) in pluginFiles {
            for file in files where watchedFolderPaths[file.deletingLastPathComponent().path] == nil {
                if (try? addWatch(for: file, pluginID: pluginID)) == true {
                    if access(file.path, F_OK) == 0 { changed.insert(pluginID) }
                } else {
                    needsRewatch = true
                }
            }
        }
    }
}
