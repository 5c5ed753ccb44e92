import Foundation
import Testing

@testable import MotionHost

/// The inotify watcher behind `--watch`: which plugins changed, and the kernel watches it holds.
@Suite struct PluginWatcherTests {
    /// The watches the kernel holds for an inotify descriptor (its `inotify wd:` lines in fdinfo).
    static func watchCount(_ fd: Int32) throws -> Int {
        let info = try String(contentsOfFile: "/proc/self/fdinfo/\(fd)", encoding: .utf8)
        return info.split(separator: "\n").filter { $0.hasPrefix("inotify wd:") }.count
    }

    @Test func aFolderMovedAwayAndBackIsWatchedAgainWithOneWatch() throws {
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("watcher-\(UUID().uuidString)")
        let folder = root.appendingPathComponent("plugins")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let library = folder.appendingPathComponent("libp.so")
        try Data("1".utf8).write(to: library)
        let watcher = try PluginWatcher()
        try watcher.watch(pluginID: "p", files: [library])
        #expect(try Self.watchCount(watcher.fd) == 1)

        // A clean build moves the folder away and makes it again with a new library.
        try FileManager.default.moveItem(at: folder, to: root.appendingPathComponent("plugins.old"))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("2".utf8).write(to: library)
        #expect(watcher.changedPlugins() == ["p"])
        // The moved folder's watch is gone; the new folder's is the only one.
        #expect(try Self.watchCount(watcher.fd) == 1)
        // A file written in the moved folder is not this plugin's any more.
        try Data("3".utf8).write(to: root.appendingPathComponent("plugins.old/libp.so"))
        #expect(watcher.changedPlugins().isEmpty)
        // The new folder is watched: a library closed after writing there counts.
        try Data("4".utf8).write(to: library)
        #expect(watcher.changedPlugins() == ["p"])
    }

    @Test func aFolderMadeAfterTheWatchStartedIsWatchedOnceItIsThere() throws {
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("watcher-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        // The build folder does not exist yet: watching does not fail, and nothing is reported.
        let folder = root.appendingPathComponent("build/debug")
        let library = folder.appendingPathComponent("libp.so")
        let watcher = try PluginWatcher()
        try watcher.watch(pluginID: "p", files: [library])
        #expect(try Self.watchCount(watcher.fd) == 0)
        #expect(watcher.changedPlugins().isEmpty)
        // The folder is made, empty: watched now, but there is no library to report yet.
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        #expect(watcher.changedPlugins().isEmpty)
        #expect(try Self.watchCount(watcher.fd) == 1)
        // The linker renames the library into place.
        let staged = folder.appendingPathComponent(".libp.so.tmp")
        try Data("1".utf8).write(to: staged)
        #expect(rename(staged.path, library.path) == 0)
        #expect(watcher.changedPlugins() == ["p"])
        #expect(try Self.watchCount(watcher.fd) == 1)
    }
}
