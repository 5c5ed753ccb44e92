import FoundationEssentials
import MotionCore

/// Why a plugin's library could not be found, trusted, loaded or used, naming the manifest and library.
///
/// Its ``description`` is one line: `MANIFEST: library "NAME": MESSAGE`, for example
/// `manifests/tween.json: library "libTweenKit.so": /opt/p/libTweenKit.so is writable by group or others
/// (mode 0664). To fix, run chmod go-w /opt/p/libTweenKit.so`.
public struct PluginError: Error, CustomStringConvertible, @unchecked Sendable {
    // @unchecked: `underlying` is an immutable error value, never mutated after init.

    /// What kind of failure this is. A struct over a private enum, so codes can be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Sendable {
            case libraryNotFound, pathEscape, notARegularFile, insecurePermissions, wrongOwner, unreadable
            case hashMismatch, loadFailed, missingSymbol, abiMismatch, entryRefused, invalidInterface, unknownClass
            case creationFailed, invalidDeclaration, callFailed, foreignSymbol, tooLarge, notPinned, reloadRefused, sandboxFailed
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }
        /// The code a name (``description``) stands for, as a plugin's sandbox reports it; `nil` for another name.
        init?(name: String) {
            guard let value = Value(rawValue: name) else { return nil }
            self.value = value
        }

        /// The library file is in none of the places it may be.
        public static let libraryNotFound = Code(.libraryNotFound)
        /// The library resolves (through `..` or a symbolic link) outside the manifest's folder and the
        /// library folders.
        public static let pathEscape = Code(.pathEscape)
        /// The library path is not a regular file.
        public static let notARegularFile = Code(.notARegularFile)
        /// The library, the manifest, or a folder on the way to either from `/` is writable by group or
        /// others (a sticky folder owned by root, such as `/tmp`, excepted).
        public static let insecurePermissions = Code(.insecurePermissions)
        /// The library, the manifest, or a folder on the way to either is owned by someone other than the
        /// current user or root.
        public static let wrongOwner = Code(.wrongOwner)
        /// The library is larger than ``MotionFiles/FileSizeLimit/library``.
        public static let tooLarge = Code(.tooLarge)
        /// The library cannot be opened or read.
        public static let unreadable = Code(.unreadable)
        /// The library's SHA-256 is not the pinned one.
        public static let hashMismatch = Code(.hashMismatch)
        /// The host configuration requires a pin for every library (`requirePins`) and none applies.
        public static let notPinned = Code(.notPinned)
        /// `dlopen` failed (the message includes `dlerror()`).
        public static let loadFailed = Code(.loadFailed)
        /// A symbol the manifest or ABI needs is not exported.
        public static let missingSymbol = Code(.missingSymbol)
        /// A symbol the manifest or ABI needs is found, but defined by another library (one the plugin
        /// depends on, such as libc's `system`) or not as a function: a manifest may call only the
        /// plugin library's own functions.
        public static let foreignSymbol = Code(.foreignSymbol)
        /// The plugin's ABI major version differs from the host's (for the loading layer).
        public static let abiMismatch = Code(.abiMismatch)
        /// `motion_plugin_entry` returned NULL (for the loading layer).
        public static let entryRefused = Code(.entryRefused)
        /// The plugin's interface table is malformed (for the loading layer).
        public static let invalidInterface = Code(.invalidInterface)
        /// The plugin does not know a performer class its manifest declares (for the loading layer).
        public static let unknownClass = Code(.unknownClass)
        /// The plugin's create function returned NULL (`create_performer`, or a declared `create`).
        public static let creationFailed = Code(.creationFailed)
        /// A declarative C performer's declaration cannot be called: an unsupported signature or a
        /// field that does not convert to its declared C type.
        public static let invalidDeclaration = Code(.invalidDeclaration)
        /// The plugin refused a call (`add_plan`, `add_named_plan`, `remove_named_plan` or a declared plan
        /// function returned an error status); ``PluginError/status`` holds the `motion_status`.
        public static let callFailed = Code(.callFailed)
        /// An isolated plugin's sandbox died or missed its deadline: its performers have ended, and its plan types
        /// are not performed any more in this run (``PluginFailure``).
        public static let sandboxFailed = Code(.sandboxFailed)

        /// A changed plugin was not reloaded: its manifest no longer reads, or changes what a reload keeps (its id,
        /// performer classes and plan types). The old code keeps running.
        public static let reloadRefused = Code(.reloadRefused)

        public var description: String { value.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// What happened and how to fix it (without the manifest and library prefix).
    public let message: String
    /// The manifest concerned.
    public let manifest: URL?
    /// The library as the manifest names it.
    public let library: String?
    /// The cause, if another error caused this one.
    public let underlying: (any Error)?
    /// The `motion_status` a plugin returned, for ``Code/callFailed``.
    public var status: Int32?

    /// A plugin error.
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: What happened and how to fix it.
    ///   - manifest: The manifest concerned.
    ///   - library: The library as the manifest names it.
    ///   - underlying: The cause.
    public init(code: Code, message: String, manifest: URL?, library: String?, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.manifest = manifest
        self.library = library
        self.underlying = underlying
    }

    /// A plugin error about a manifest's library.
    public init(code: Code, message: String, for manifest: PluginManifest, underlying: (any Error)? = nil) {
        self.init(
            code: code, message: message, manifest: manifest.url, library: manifest.library, underlying: underlying)
    }

    /// One line: `MANIFEST: library "NAME": MESSAGE`.
    public var description: String {
        var line = ""
        if let manifest { line += manifest.relativePath + ": " }
        if let library { line += "library \(JSONText.quoted(library, limit: 200)): " }
        return line + message
    }
}
