import Foundation
import MotionCore
import Synchronization

/// Finds a manifest's library, checks that it can be trusted, and opens it with the dynamic linker.
///
/// For a manifest, ``load(_:)``:
/// 1. resolves `library` relative to the manifest's folder, then each configured library folder
///    (``HostConfiguration/libraryPaths``), then each extra folder given at init (the CLI passes the
///    folder of its own executable, where built plugins live); the first that exists is used;
/// 2. resolves symbolic links (`realpath`) and refuses a path outside all of those folders;
/// 3. opens the file and checks, on the open descriptor (`fstat`), that it is a regular file owned by the
///    current user or root and not writable by group or others; checks the same of its folder;
/// 4. when a pin applies (the manifest's `sha256`, the host configuration's pin, or both), hashes the
///    open descriptor with SHA-256 (libcrypto) and refuses a mismatch, naming both hashes;
/// 5. loads that same open file with `dlopen("/proc/self/fd/N", RTLD_NOW | RTLD_LOCAL)`, so what was
///    checked and hashed is what is loaded (no check-then-use race).
///
/// A library is loaded once per process (keyed by resolved path, device and inode) and never closed
/// (a library with Swift code must never be unloaded; PITFALLS.md). The descriptor it was loaded through
/// stays open too, so that its `/proc/self/fd/N` name is never reused for another file (glibc's `dlopen`
/// hands back an already-loaded library whose name matches).
///
/// Note: a library loaded through `/proc/self/fd/N` has that name in the link map, so an `$ORIGIN`
/// run path inside it does not point at its folder. Plugins should link their dependencies statically
/// or find them through absolute run paths.
///
/// Thread rule: a value type; ``load(_:)`` may be called from any thread.
public struct LibraryLoader: Sendable {
    /// The configuration: library folders and pins.
    public let configuration: HostConfiguration
    /// Folders searched after the manifest's folder and the configured library folders.
    public let extraLibraryDirectories: [URL]

    /// A loader.
    /// - Parameters:
    ///   - configuration: Library folders and pins.
    ///   - extraLibraryDirectories: Further folders a library may be found in, searched last (for example
    ///     ``executableDirectory()``).
    public init(configuration: HostConfiguration = .empty, extraLibraryDirectories: [URL] = []) {
        self.configuration = configuration
        self.extraLibraryDirectories = extraLibraryDirectories
    }

    /// The folder of the running executable (`/proc/self/exe` resolved), where SwiftPM puts built plugin
    /// libraries next to the binaries.
    /// - Returns: The folder, or `nil` when `/proc` is not available.
    public static func executableDirectory() -> URL? {
        guard let path = try? system_realpath("/proc/self/exe") else { return nil }
        return URL(fileURLWithPath: directoryName(of: path), isDirectory: true)
    }

    /// The folders a manifest's library may be found in, in search order.
    /// - Parameter manifest: The manifest.
    /// - Returns: The manifest's folder, the configured library folders, then the extra folders.
    public func libraryDirectories(for manifest: PluginManifest) -> [URL] {
        [manifest.url.deletingLastPathComponent()] + configuration.libraryPaths + extraLibraryDirectories
    }

    /// Finds a manifest's library and resolves it, without opening it.
    /// - Parameter manifest: The manifest.
    /// - Returns: The library's canonical path (symbolic links resolved).
    /// - Throws: ``PluginError`` with ``PluginError/Code/libraryNotFound`` or
    ///   ``PluginError/Code/pathEscape``.
    public func resolve(_ manifest: PluginManifest) throws(PluginError) -> URL {
        URL(fileURLWithPath: try resolvePath(manifest), isDirectory: false)
    }

    private func resolvePath(_ manifest: PluginManifest) throws(PluginError) -> String {
        if let problem = ManifestDecoder.libraryPathProblem(manifest.library) {
            throw PluginError(
                code: .pathEscape,
                message:
                    "the library path is refused: it must be a file name or a relative path inside the manifest's folder, but it \(problem)",
                for: manifest)
        }
        let folders = libraryDirectories(for: manifest)
        var found: String?
        for folder in folders {
            let candidate =
                folder.path.hasSuffix("/") ? folder.path + manifest.library : folder.path + "/" + manifest.library
            if (try? system_lstat(candidate)) != nil {
                found = candidate
                break
            }
        }
        guard let candidate = found else {
            let places = folders.map(\.path).joined(separator: ", ")
            throw PluginError(
                code: .libraryNotFound,
                message:
                    "the library file was not found; looked in \(places). To fix, build or install it next to the manifest, or add its folder to the host configuration's libraryPaths",
                for: manifest)
        }
        let resolved: String
        do {
            resolved = try system_realpath(candidate)
        } catch {
            throw PluginError(
                code: .libraryNotFound,
                message:
                    "\(candidate) cannot be resolved (\(error)); it may be a dangling symbolic link. To fix, point it at the built library",
                for: manifest, underlying: error)
        }
        let roots = folders.compactMap { try? system_realpath($0.path) }
        let inside = roots.contains { root in
            let prefix = root.hasSuffix("/") ? root : root + "/"
            return resolved.hasPrefix(prefix)
        }
        guard inside else {
            throw PluginError(
                code: .pathEscape,
                message:
                    "\(candidate) resolves to \(resolved), outside the manifest's folder and the library folders (\(roots.joined(separator: ", "))); a symbolic link must not lead out of them. To fix, copy the library into one of them or add its real folder to the host configuration's libraryPaths",
                for: manifest)
        }
        return resolved
    }

    /// Finds, checks and loads a manifest's library (once per process).
    /// - Parameter manifest: The manifest.
    /// - Returns: The loaded library.
    /// - Throws: ``PluginError`` naming the manifest and library: not found, path escape, not a regular
    ///   file, wrong owner, writable by group or others, unreadable, hash mismatch (with both hashes), or
    ///   `dlopen` failure (with `dlerror()`'s text).
    public func load(_ manifest: PluginManifest) throws(PluginError) -> LoadedLibrary {
        let path = try resolvePath(manifest)
        let fd: Int32
        do {
            fd = try system_openForReading(path)
        } catch {
            throw PluginError(
                code: .unreadable, message: "\(path) cannot be opened: \(error)", for: manifest, underlying: error)
        }
        // The descriptor of a library that gets loaded stays open for the life of the process: glibc's
        // dlopen returns an already-loaded library whose *name* matches, so "/proc/self/fd/N" must never
        // name a second file, and a descriptor number that is never closed is never reused.
        var keepOpen = false
        defer { if !keepOpen { system_close(fd) } }
        let status: FileStatus
        do {
            status = try system_fstat(fd)
        } catch {
            throw PluginError(
                code: .unreadable, message: "\(path) cannot be examined: \(error)", for: manifest, underlying: error)
        }
        try checkTrust(status, path: path, what: "", manifest: manifest)
        let folder = directoryName(of: path)
        do {
            try checkTrust(try system_stat(folder), path: folder, what: "folder ", manifest: manifest)
        } catch let error as Errno {
            throw PluginError(
                code: .unreadable, message: "its folder \(folder) cannot be examined: \(error)", for: manifest,
                underlying: error)
        } catch let error as PluginError {
            throw error
        } catch {
            throw PluginError(code: .unreadable, message: "\(error)", for: manifest, underlying: error)
        }

        var pins: [(source: String, sha256: String)] = []
        if let pin = configuration.pin(for: manifest) {
            let file = configuration.url.map { " in \($0.relativePath)" } ?? ""
            pins.append(("the host configuration's pin \(JSONText.quoted(pin.key))\(file)", pin.sha256))
        }
        if let sha256 = manifest.sha256 { pins.append(("the manifest's sha256", sha256)) }
        let key = LoadedLibrary.Key(path: path, device: status.device, inode: status.inode)

        return try LoadedLibrary.registry.withLock { (loaded) throws(PluginError) -> LoadedLibrary in
            var digest: String?
            if !pins.isEmpty {
                if let existing = loaded[key], let recorded = existing.sha256 {
                    digest = recorded
                } else {
                    do {
                        digest = try SHA256.hexDigest(ofFileDescriptor: fd)
                    } catch {
                        throw PluginError(
                            code: .unreadable, message: "\(path) cannot be hashed: \(error)", for: manifest,
                            underlying: error)
                    }
                }
                for pin in pins where pin.sha256 != digest {
                    throw PluginError(
                        code: .hashMismatch,
                        message:
                            "\(path) has SHA-256 \(digest!), but \(pin.source) expects \(pin.sha256). The file is corrupt or was replaced; it was not loaded. To fix, reinstall the plugin or, if this build is trusted, update the pin",
                        for: manifest)
                }
            }
            if let existing = loaded[key] { return existing }
            let handle: UnsafeMutableRawPointer
            switch system_dlopen("/proc/self/fd/\(fd)") {
            case .success(let h): handle = h
            case .failure(let error):
                throw PluginError(
                    code: .loadFailed,
                    message:
                        "dlopen of \(path) failed: \(error.text). To fix, rebuild the library for this system (a missing dependency or an undefined symbol is named above)",
                    for: manifest, underlying: error)
            }
            keepOpen = true
            let library = LoadedLibrary(handle: handle, path: path, sha256: digest, key: key)
            loaded[key] = library
            return library
        }
    }

    private func checkTrust(_ status: FileStatus, path: String, what: String, manifest: PluginManifest)
        throws(PluginError)
    {
        if what.isEmpty && !status.isRegularFile {
            throw PluginError(code: .notARegularFile, message: "\(path) is not a regular file", for: manifest)
        }
        let me = system_geteuid()
        if status.owner != me && status.owner != 0 {
            throw PluginError(
                code: .wrongOwner,
                message:
                    "the \(what)\(path) is owned by user id \(status.owner), neither you (user id \(me)) nor root; it was not loaded. To fix, chown it to yourself or root",
                for: manifest)
        }
        if status.isWritableByGroupOrOthers {
            throw PluginError(
                code: .insecurePermissions,
                message:
                    "the \(what)\(path) is writable by group or others (mode 0\(String(status.permissions, radix: 8))); it was not loaded. To fix, run chmod go-w \(path)",
                for: manifest)
        }
    }
}

/// A loaded plugin library: its `dlopen` handle and resolved path. Never closed.
///
/// Thread rule: immutable after creation; `dlsym` is thread-safe, so ``symbol(_:)`` may be called from
/// any thread.
public final class LoadedLibrary: @unchecked Sendable {
    // @unchecked: every stored property is immutable; the handle is only passed to dlsym, which is
    // thread-safe, and is never closed.

    struct Key: Hashable {
        var path: String
        var device: UInt64
        var inode: UInt64
    }

    /// Every library this process has loaded through a ``LibraryLoader``.
    static let registry = Mutex<[Key: LoadedLibrary]>([:])

    /// The handle `dlopen` returned.
    public let handle: UnsafeMutableRawPointer
    /// The library's canonical path (symbolic links resolved).
    public let resolvedPath: String
    /// The library's SHA-256 (64 lowercase hex) when it was hashed because a pin applied; else `nil`.
    public let sha256: String?
    let key: Key

    init(handle: UnsafeMutableRawPointer, path: String, sha256: String?, key: Key) {
        self.handle = handle
        self.resolvedPath = path
        self.sha256 = sha256
        self.key = key
    }

    /// The library's canonical path as a URL.
    public var url: URL { URL(fileURLWithPath: resolvedPath, isDirectory: false) }

    /// Looks up an exported symbol. Wraps `dlsym(3)`.
    /// - Parameter name: The symbol, e.g. `"motion_plugin_entry"`.
    /// - Returns: Its address, or `nil` when the library does not export it.
    public func symbol(_ name: String) -> UnsafeMutableRawPointer? {
        system_dlsym(handle, name)
    }

    /// Looks up an exported symbol the manifest or ABI requires.
    /// - Parameters:
    ///   - name: The symbol.
    ///   - manifest: The manifest, for the error.
    /// - Returns: Its address.
    /// - Throws: ``PluginError`` with ``PluginError/Code/missingSymbol`` naming the symbol, the manifest and
    ///   the library.
    public func requiredSymbol(_ name: String, for manifest: PluginManifest) throws(PluginError)
        -> UnsafeMutableRawPointer
    {
        if let address = symbol(name) { return address }
        throw PluginError(
            code: .missingSymbol,
            message:
                "\(resolvedPath) does not export \(name). To fix, export it (extern \"C\", visibility default) or correct the manifest",
            for: manifest)
    }
}
