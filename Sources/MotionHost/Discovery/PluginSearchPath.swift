import FoundationEssentials

/// The folders searched for plugin manifests (`*.json`), in order.
///
/// Order (earlier folders win when two hold a manifest with the same plugin id):
/// 1. explicit folders (the CLI's `--plugin-path`), in the order given;
/// 2. `MOTION_PLUGIN_PATH`, colon-separated (empty entries ignored, relative ones resolved against the
///    current directory);
/// 3. the host configuration's ``HostConfiguration/searchPaths``;
/// 4. `$XDG_DATA_HOME/motion/plugins` (`~/.local/share/motion/plugins` when `XDG_DATA_HOME` is unset);
/// 5. `/usr/local/lib/motion/plugins`, then `/usr/lib/motion/plugins`.
///
/// A folder listed twice is searched once, at its first place.
///
/// Thread rule: a value type; safe to use from any thread.
public struct PluginSearchPath: Sendable, Hashable {
    /// Where a folder of the search path comes from.
    public enum Origin: String, Sendable, Hashable {
        /// Given explicitly (`--plugin-path`).
        case explicit
        /// From `MOTION_PLUGIN_PATH`.
        case environment
        /// From the host configuration's `searchPaths`.
        case configuration
        /// `$XDG_DATA_HOME/motion/plugins`.
        case userData
        /// `/usr/local/lib/motion/plugins` or `/usr/lib/motion/plugins`.
        case system
    }

    /// One folder of the search path.
    public struct Entry: Sendable, Hashable {
        /// The folder.
        public let url: URL
        /// Where it comes from.
        public let origin: Origin
    }

    /// The folders, in search order, without duplicates.
    public let entries: [Entry]

    /// The folders, in search order.
    public var directories: [URL] { entries.map(\.url) }

    /// The standard search path.
    /// - Parameters:
    ///   - explicit: Folders given explicitly, searched first.
    ///   - configuration: The host configuration, whose `searchPaths` come after `MOTION_PLUGIN_PATH`.
    ///   - environment: The process environment, for `MOTION_PLUGIN_PATH`, `XDG_DATA_HOME` and `HOME`
    ///     (injectable for tests).
    ///   - includeStandardFolders: Whether to add the XDG data folder and the two system folders.
    public init(
        explicit: [URL] = [], configuration: HostConfiguration = .empty,
        environment: [String: String] = ProcessInfo.processInfo.environment, includeStandardFolders: Bool = true
    ) {
        var entries: [Entry] = explicit.map { Entry(url: $0, origin: .explicit) }
        if let list = environment["MOTION_PLUGIN_PATH"] {
            for part in list.split(separator: ":", omittingEmptySubsequences: true) {
                entries.append(Entry(url: URL(fileURLWithPath: String(part), isDirectory: true), origin: .environment))
            }
        }
        entries += configuration.searchPaths.map { Entry(url: $0, origin: .configuration) }
        if includeStandardFolders {
            let data = XDG.directory("XDG_DATA_HOME", default: ".local/share", environment: environment)
            entries.append(
                Entry(url: URL(fileURLWithPath: data + "/motion/plugins", isDirectory: true), origin: .userData))
            entries.append(
                Entry(url: URL(fileURLWithPath: "/usr/local/lib/motion/plugins", isDirectory: true), origin: .system))
            entries.append(
                Entry(url: URL(fileURLWithPath: "/usr/lib/motion/plugins", isDirectory: true), origin: .system))
        }
        self.init(entries: entries)
    }

    /// Exactly these folders, in this order, all counted as explicit.
    /// - Parameter directories: The folders.
    public init(directories: [URL]) {
        self.init(entries: directories.map { Entry(url: $0, origin: .explicit) })
    }

    private init(entries: [Entry]) {
        var seen: Set<String> = []
        self.entries = entries.filter { seen.insert($0.url.standardizedFileURL.path).inserted }
    }
}
