import CMotionHostSupport
import FoundationEssentials
import MotionCore
import MotionFiles
import Synchronization

/// Finds a manifest's library, checks that it can be trusted, and opens it with the dynamic linker.
///
/// For a manifest, ``load(_:)``, in this order:
/// 1. the manifest itself, as code configuration: its canonical path is a regular file, owned by the current
///    user or root and not writable by group or others, and so is every folder from it up to `/` (a sticky
///    folder owned by root, such as `/tmp`, excepted) — ``PathTrust``;
/// 2. resolves `library` relative to the manifest's folder, then each configured library folder
///    (``HostConfiguration/libraryPaths``), then each extra folder given at init (the CLI passes the
///    folder of its own executable, where built plugins live); the first that exists is used;
/// 3. resolves symbolic links (`realpath`) and refuses a path outside all of those folders;
/// 4. opens the file without blocking (a FIFO is refused, not waited on) and checks, on the open descriptor
///    (`fstat`), that it is a regular file of at most ``MotionFiles/FileSizeLimit/library`` bytes, with the
///    same owner and permission rules as the manifest, for it and every folder up to `/`;
/// 5. copies its bytes into a sealed memory file (`memfd_create`, then `F_SEAL_WRITE | F_SEAL_GROW |
///    F_SEAL_SHRINK | F_SEAL_SEAL`), so the code checked is the code that runs for the life of the process,
///    whatever later happens to the file on disk;
/// 6. when a pin applies (the manifest's `sha256`, the host configuration's pin, or both), hashes that
///    sealed copy with SHA-256 (libcrypto) and refuses a mismatch, naming both hashes;
/// 7. loads the sealed copy with `dlopen("/proc/self/fd/N", RTLD_NOW | RTLD_LOCAL)`.
///
/// Symbols are then looked up with ``LoadedLibrary/symbol(_:)``, which accepts only functions the library
/// defines itself: `dlsym` alone would also find its dependencies' (libc's `system`).
///
/// A library is loaded once per process (keyed by resolved path, device and inode of the file it was
/// copied from) and never closed (a library with Swift code must never be unloaded; Documentation/PITFALLS.md). The
/// sealed copy's descriptor stays open too, so that its `/proc/self/fd/N` name is never reused for another
/// file (glibc's `dlopen` hands back an already-loaded library whose name matches).
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

    /// Checks everything ``load(_:)`` checks, without loading anything: the manifest's and the library's
    /// owners, permissions and folders, that the library is a regular file within the size limit, and the
    /// pins (hashing the file on disk). `plugins list` reports this, so it says what a run would refuse.
    /// - Parameter manifest: The manifest.
    /// - Returns: The library's canonical path.
    /// - Throws: ``PluginError`` as ``load(_:)`` (but never `loadFailed`).
    @discardableResult
    public func verify(_ manifest: PluginManifest) throws(PluginError) -> URL {
        let (path, file, pins) = try openTrusted(manifest)
        defer { RegularFile.close(file) }
        if !pins.isEmpty {
            try checkPins(pins, digest: try digest(file.descriptor, path: path, manifest: manifest), path: path, manifest: manifest)
        }
        return URL(fileURLWithPath: path, isDirectory: false)
    }

    /// Finds, checks and loads a manifest's library (once per process), from a sealed copy of its bytes.
    /// - Parameter manifest: The manifest.
    /// - Returns: The loaded library.
    /// - Throws: ``PluginError`` naming the manifest and library: the manifest or library (or a folder above
    ///   either) has the wrong owner or is writable by group or others; the library is not found, escapes
    ///   its folders, is not a regular file, is too large, unreadable, does not match a pin (both hashes
    ///   named), or `dlopen` failed (with `dlerror()`'s text).
    public func load(_ manifest: PluginManifest) throws(PluginError) -> LoadedLibrary {
        let (path, file, pins) = try openTrusted(manifest)
        defer { RegularFile.close(file) }
        let key = LoadedLibrary.Key(path: path, device: file.device, inode: file.inode)

        return try LoadedLibrary.registry.withLock { (loaded) throws(PluginError) -> LoadedLibrary in
            if let existing = loaded[key] {
                // What runs is the sealed copy made when it was loaded: that is what a pin must match.
                if !pins.isEmpty {
                    var digest = existing.sha256
                    if digest == nil { digest = try self.digest(existing.sealedDescriptor, path: path, manifest: manifest) }
                    try checkPins(pins, digest: digest!, path: path, manifest: manifest)
                }
                return existing
            }
            let sealed = try sealedCopy(of: file, path: path, manifest: manifest)
            let digest = try pins.isEmpty ? nil : self.digest(sealed, path: path, manifest: manifest, closingOnFailure: true)
            let library = try open(sealed: sealed, digest: digest, pins: pins, path: path, key: key, manifest: manifest)
            loaded[key] = library
            return library
        }
    }

    /// Checks and loads a new sealed copy of a manifest's library, as ``load(_:)`` does, but never hands
    /// back `running` as new: for a hot reload, when the file on disk was rebuilt. The copy is always hashed
    /// (SHA-256), and a copy whose bytes are those of `running` is not loaded at all; nor is one whose bytes
    /// are those already loaded from the same file (a reload refused after its load): that library is handed
    /// back (its pins checked again). The new library becomes the one ``load(_:)`` gives for that file from
    /// now on; `running` stays loaded (never closed).
    ///
    /// A second copy of a library loads apart from the first although both have the same `DT_SONAME`: glibc
    /// matches a `dlopen` name against the sonames of loaded libraries, and the name here is the new copy's
    /// `/proc/self/fd/N`, never a soname; it then matches the file's device and inode, and every sealed
    /// copy is a new memory file (`Tests/MotionHostTests/ReloadTests.swift` checks both).
    /// - Parameters:
    ///   - manifest: The manifest (as it is on disk now).
    ///   - running: The library loaded for it so far.
    ///   - runningSHA256: The SHA-256 of `running`, when the caller knows it (a previous reload's
    ///     ``LibraryCopy/sha256``); `nil` hashes its sealed copy (unless a pin hashed it at its load).
    /// - Returns: The new library and its SHA-256, or `running` (``LibraryCopy/isNew`` `false`) when the file
    ///   holds the same bytes.
    /// - Throws: ``PluginError`` as ``load(_:)``.
    public func loadNewCopy(of manifest: PluginManifest, replacing running: LoadedLibrary, runningSHA256: String? = nil) throws(PluginError)
        -> LibraryCopy
    {
        let (path, file, pins) = try openTrusted(manifest)
        defer { RegularFile.close(file) }
        let key = LoadedLibrary.Key(path: path, device: file.device, inode: file.inode)
        let sealed = try sealedCopy(of: file, path: path, manifest: manifest)
        let digest = try self.digest(sealed, path: path, manifest: manifest, closingOnFailure: true)
        var runningDigest = running.sha256 ?? runningSHA256
        if runningDigest == nil { runningDigest = try? self.digest(running.sealedDescriptor, path: running.resolvedPath, manifest: manifest) }
        if digest == runningDigest {
            system_close(sealed)
            return LibraryCopy(library: running, sha256: digest, isNew: false)
        }
        // These bytes at this file were loaded already (a reload that was then refused, its entry say): that
        // copy again, not another one (each stays mapped, its descriptor open, for the life of the process).
        if let existing = LoadedLibrary.registry.withLock({ $0[key] }), existing !== running, existing.sha256 == digest {
            system_close(sealed)
            try checkPins(pins, digest: digest, path: path, manifest: manifest)
            return LibraryCopy(library: existing, sha256: digest, isNew: true)
        }
        let library = try open(sealed: sealed, digest: digest, pins: pins, path: path, key: key, manifest: manifest)
        LoadedLibrary.registry.withLock { $0[key] = library }
        return LibraryCopy(library: library, sha256: digest, isNew: true)
    }

    /// Steps 6–7 of ``load(_:)`` on a sealed copy: the pins, the dependencies' folders, then `dlopen`. The
    /// copy's descriptor is closed when this fails, and kept open for the life of the process when it
    /// succeeds.
    private func open(
        sealed: Int32, digest: String?, pins: [(source: String, sha256: String)], path: String, key: LoadedLibrary.Key,
        manifest: PluginManifest
    ) throws(PluginError) -> LoadedLibrary {
        var keepOpen = false
        defer { if !keepOpen { system_close(sealed) } }
        if let digest { try checkPins(pins, digest: digest, path: path, manifest: manifest) }
        try checkDependencies(sealed, path: path, manifest: manifest)
        let handle: UnsafeMutableRawPointer
        switch system_dlopen("/proc/self/fd/\(sealed)") {
        case .success(let h): handle = h
        case .failure(let error):
            throw PluginError(
                code: .loadFailed,
                message:
                    "dlopen of \(path) failed: \(error.text). To fix, rebuild the library for this system (a missing dependency or an undefined symbol is named above)",
                for: manifest, underlying: error)
        }
        keepOpen = true
        return LoadedLibrary(handle: handle, path: path, sha256: digest, key: key, sealedDescriptor: sealed)
    }

    /// Steps 1–4 of ``load(_:)``: the manifest's trust, the library's path, and the library opened and
    /// checked. The caller closes the file.
    private func openTrusted(_ manifest: PluginManifest) throws(PluginError)
        -> (path: String, file: OpenRegularFile, pins: [(source: String, sha256: String)])
    {
        var checked: Set<String> = []
        try checkManifestTrust(manifest, checked: &checked)
        let path = try resolvePath(manifest)
        let file: OpenRegularFile
        do {
            file = try RegularFile.open(atPath: path, what: "the library")
        } catch {
            let code: PluginError.Code =
                switch error.code {
                case .notARegularFile: .notARegularFile
                case .notFound: .libraryNotFound
                default: .unreadable
                }
            throw PluginError(code: code, message: error.message, for: manifest, underlying: error)
        }
        var isTrusted = false
        defer { if !isTrusted { RegularFile.close(file) } }
        let status: FileStatus
        do {
            status = try system_fstat(file.descriptor)
        } catch {
            throw PluginError(
                code: .unreadable, message: "\(path) cannot be examined: \(error)", for: manifest, underlying: error)
        }
        if let problem = PathTrust.problem(file: status, path: path, what: "library")
            ?? PathTrust.problemInFolders(of: path, what: "library", checked: &checked)
        {
            throw PluginError(code: problem.code, message: problem.message, for: manifest)
        }
        var pins: [(source: String, sha256: String)] = []
        if let pin = configuration.pin(for: manifest) {
            let file = configuration.url.map { " in \($0.relativePath)" } ?? ""
            pins.append(("the host configuration's pin \(JSONText.quoted(pin.key))\(file)", pin.sha256))
        }
        if let sha256 = manifest.sha256 { pins.append(("the manifest's sha256", sha256)) }
        // A library larger than the limit is refused here, so that verify (plugins list) says what load says.
        if file.size > Int64(FileSizeLimit.library) {
            throw PluginError(
                code: .tooLarge,
                message:
                    "the library is larger than the \(FileSizeLimit.describe(FileSizeLimit.library)) the host reads for it; it was not read. To fix, check that this is the right file",
                for: manifest)
        }
        if configuration.requiresPins, configuration.pin(for: manifest) == nil {
            let digest = (try? SHA256.hexDigest(ofFileDescriptor: file.descriptor, limit: FileSizeLimit.library)) ?? "…"
            let name = manifest.library.split(separator: "/").last.map(String.init) ?? manifest.library
            throw PluginError(
                code: .notPinned,
                message:
                    "the host configuration\(configuration.url.map { " (\($0.relativePath))" } ?? "") requires a pin for every plugin library (requirePins), and none names plugin \(manifest.id) or \(name); it was not loaded. To fix, if this library is trusted, add to its pins: \(JSONText.quoted(name)): \"\(digest)\"",
                for: manifest)
        }
        isTrusted = true
        return (path, file, pins)
    }

    /// The manifest is code configuration (it names the functions that run): the same owner and permission
    /// rules as a library, for its canonical path and every folder above it.
    private func checkManifestTrust(_ manifest: PluginManifest, checked: inout Set<String>) throws(PluginError) {
        let path: String
        let status: FileStatus
        do {
            path = try system_realpath(manifest.url.path)
            status = try system_stat(path)
        } catch {
            throw PluginError(
                code: .unreadable,
                message: "the manifest \(manifest.url.path) cannot be examined: \(error); nothing was loaded", for: manifest,
                underlying: error)
        }
        if let problem = PathTrust.problem(file: status, path: path, what: "manifest")
            ?? PathTrust.problemInFolders(of: path, what: "manifest", checked: &checked)
        {
            throw PluginError(code: problem.code, message: problem.message, for: manifest)
        }
    }

    /// Copies the open library into a new memory file, in the kernel (`sendfile(2)`: no buffer in this
    /// process), refusing more than ``MotionFiles/FileSizeLimit/library`` bytes even if the file grows while it
    /// is copied, and seals the copy against every change.
    private func sealedCopy(of file: OpenRegularFile, path: String, manifest: PluginManifest) throws(PluginError) -> Int32 {
        let tooLarge = PluginError(
            code: .tooLarge,
            message:
                "the library is larger than the \(FileSizeLimit.describe(FileSizeLimit.library)) the host reads for it; it was not read. To fix, check that this is the right file",
            for: manifest)
        if file.size > Int64(FileSizeLimit.library) { throw tooLarge }
        let name = "motion-plugin:" + (path.split(separator: "/").last.map(String.init) ?? "library")
        let fd = cmotionhost_memfd_create(name)
        if fd < 0 {
            let error = Errno.current
            throw PluginError(
                code: .loadFailed, message: "cannot make a sealed copy of \(path) (memfd_create: \(error))", for: manifest,
                underlying: error)
        }
        var copied = 0
        while true {
            let n: Int
            do {
                // One byte more than the limit is asked for, so a file that grew past it is noticed.
                n = try system_sendfile(to: fd, from: file.descriptor, count: FileSizeLimit.library + 1 - copied)
            } catch {
                system_close(fd)
                throw PluginError(
                    code: .unreadable, message: "cannot copy \(path) into a sealed memory file (sendfile: \(error))",
                    for: manifest, underlying: error)
            }
            if n == 0 { break }
            copied += n
            if copied > FileSizeLimit.library {
                system_close(fd)
                throw tooLarge
            }
        }
        if cmotionhost_seal(fd) != 0 {
            let error = Errno.current
            system_close(fd)
            throw PluginError(
                code: .loadFailed, message: "cannot seal the copy of \(path) (fcntl F_ADD_SEALS: \(error))", for: manifest,
                underlying: error)
        }
        return fd
    }

    /// The sealed copy's own run paths (`DT_RUNPATH`, `DT_RPATH`) and any `DT_NEEDED` name with a folder in it
    /// decide which other libraries `dlopen` loads with it, unchecked and unsealed: each such folder must be
    /// owned by root and not writable by group or others, up to `/` (the system's and the toolchain's folders
    /// are). `$ORIGIN` entries are let be: for a library loaded through `/proc/self/fd/N` they name
    /// `/proc/self/fd`, where no library can be put.
    private func checkDependencies(_ sealed: Int32, path: String, manifest: PluginManifest) throws(PluginError) {
        // dlopen reports an unreadable, empty or malformed library itself.
        guard let dependencies = system_withMappedFile(sealed, { ELFDependencies.read($0) }) else { return }
        var folders = dependencies.runPaths.filter { !$0.contains("$ORIGIN") && !$0.contains("${ORIGIN}") }
        folders += dependencies.needed.filter { $0.contains("/") }.map { directoryName(of: $0) }
        for folder in folders {
            let problem: String?
            if !folder.hasPrefix("/") {
                problem = "is relative (it would be looked up from the current folder)"
            } else if let status = try? system_stat(folder) {
                var checked: Set<String> = []
                if status.owner != 0 || status.isWritableByGroupOrOthers {
                    problem = "is not a folder owned by root and closed to group and others"
                } else if let above = PathTrust.problemInFolders(of: folder + "/x", what: "library", checked: &checked) {
                    problem = "is reached through an untrusted folder (\(above.message))"
                } else {
                    problem = nil
                }
            } else {
                problem = nil  // a folder that does not exist holds nothing to load
            }
            if let problem {
                throw PluginError(
                    code: .insecurePermissions,
                    message:
                        "\(path) asks the dynamic linker to load libraries from \(folder), which \(problem); what it would load there is not checked, so it was not loaded. To fix, link the dependency statically, or install it in a root-owned folder",
                    for: manifest)
            }
        }
    }

    /// The SHA-256 (64 lowercase hex) of a loaded library's sealed copy: the one computed for its pins, else hashed
    /// now; `nil` when it cannot be read.
    func sha256(of library: LoadedLibrary, manifest: PluginManifest) -> String? {
        library.sha256 ?? (try? digest(library.sealedDescriptor, path: library.resolvedPath, manifest: manifest))
    }

    private func digest(_ fd: Int32, path: String, manifest: PluginManifest, closingOnFailure: Bool = false) throws(PluginError)
        -> String
    {
        do {
            return try SHA256.hexDigest(ofFileDescriptor: fd, limit: FileSizeLimit.library)
        } catch {
            if closingOnFailure { system_close(fd) }
            throw PluginError(code: .unreadable, message: "\(path) cannot be hashed: \(error)", for: manifest, underlying: error)
        }
    }

    private func checkPins(
        _ pins: [(source: String, sha256: String)], digest: String, path: String, manifest: PluginManifest
    ) throws(PluginError) {
        for pin in pins where pin.sha256 != digest {
            throw PluginError(
                code: .hashMismatch,
                message:
                    "\(path) has SHA-256 \(digest), but \(pin.source) expects \(pin.sha256). The file is corrupt or was replaced; it was not loaded. To fix, reinstall the plugin or, if this build is trusted, update the pin",
                for: manifest)
        }
    }
}

/// What ``LibraryLoader/loadNewCopy(of:replacing:)`` found on disk.
public struct LibraryCopy: Sendable {
    /// The library to run: a new one, or the running one when the bytes on disk are the same.
    public let library: LoadedLibrary
    /// The SHA-256 (64 lowercase hex) of the bytes on disk, which are those of ``library``.
    public let sha256: String
    /// Whether ``library`` was loaded now (the bytes differ from the running library's).
    public let isNew: Bool
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
    static let registry = ProcessLock<[Key: LoadedLibrary]>([:])

    /// The handle `dlopen` returned.
    public let handle: UnsafeMutableRawPointer
    /// The library's canonical path (symbolic links resolved).
    public let resolvedPath: String
    /// The SHA-256 (64 lowercase hex) of the sealed copy that was loaded, when it was hashed because a pin
    /// applied; else `nil`.
    public let sha256: String?
    let key: Key
    /// The sealed memory file the library was loaded from (never closed: its `/proc/self/fd` name is in the
    /// link map).
    let sealedDescriptor: Int32

    init(handle: UnsafeMutableRawPointer, path: String, sha256: String?, key: Key, sealedDescriptor: Int32) {
        self.handle = handle
        self.resolvedPath = path
        self.sha256 = sha256
        self.key = key
        self.sealedDescriptor = sealedDescriptor
    }

    /// Whether the copy that runs is sealed against every change (`F_GET_SEALS`); it always is once loaded.
    public var isSealed: Bool { cmotionhost_is_sealed(sealedDescriptor) != 0 }

    /// The names the loaded copy exports (its dynamic symbol table's defined, global, default-visibility
    /// or protected entries), read from the sealed copy; `nil` when they cannot be read.
    public var exportedSymbols: [String]? {
        system_withMappedFile(sealedDescriptor) { ELFExports.names(in: $0) }
    }

    /// The library's canonical path as a URL.
    public var url: URL { URL(fileURLWithPath: resolvedPath, isDirectory: false) }

    /// Looks up a function the library itself exports. Wraps `dlsym(3)`, then checks with `dladdr1(3)` that
    /// the address lies in this library (not in a dependency, as libc's `system` would) and is a function.
    /// - Parameter name: The symbol, e.g. `"motion_plugin_entry"`.
    /// - Returns: Its address, or `nil` when the library does not define it as a function.
    public func symbol(_ name: String) -> UnsafeMutableRawPointer? {
        if case .own(let address) = lookUp(name) { return address }
        return nil
    }

    private enum Lookup {
        case own(UnsafeMutableRawPointer)
        case missing
        case elsewhere(String?)
        case notAFunction
    }

    private func lookUp(_ name: String) -> Lookup {
        var address: UnsafeMutableRawPointer?
        var definer: UnsafePointer<CChar>?
        switch cmotionhost_own_function(handle, name, &address, &definer) {
        case CMOTIONHOST_SYMBOL_OWN: return address.map { .own($0) } ?? .missing
        case CMOTIONHOST_SYMBOL_ELSEWHERE: return .elsewhere(definer.map { String(cString: $0) })
        case CMOTIONHOST_SYMBOL_NOT_A_FUNCTION: return .notAFunction
        default: return .missing
        }
    }

    /// Looks up an exported symbol the manifest or ABI requires.
    /// - Parameters:
    ///   - name: The symbol.
    ///   - manifest: The manifest, for the error.
    /// - Returns: Its address.
    /// - Throws: ``PluginError`` naming the symbol, the manifest and the library: `missingSymbol`, or
    ///   `foreignSymbol` when the symbol comes from another library (a dependency such as libc) or is not a
    ///   function.
    public func requiredSymbol(_ name: String, for manifest: PluginManifest) throws(PluginError)
        -> UnsafeMutableRawPointer
    {
        switch lookUp(name) {
        case .own(let address): return address
        case .elsewhere(let definer):
            throw PluginError(
                code: .foreignSymbol,
                message:
                    "\(resolvedPath) does not define \(name) itself; it comes from \(definer ?? "another library"), which the library depends on. A manifest may name only the library's own functions; nothing was called. To fix, name a function the plugin defines and exports",
                for: manifest)
        case .notAFunction:
            throw PluginError(
                code: .foreignSymbol,
                message: "\(resolvedPath) defines \(name), but not as a function; nothing was called. To fix, name a function",
                for: manifest)
        case .missing: break
        }
        throw PluginError(
            code: .missingSymbol,
            message:
                "\(resolvedPath) does not export \(name). To fix, export it (extern \"C\", visibility default) or correct the manifest",
            for: manifest)
    }
}
