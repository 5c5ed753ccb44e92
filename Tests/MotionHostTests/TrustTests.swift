import Foundation
import MotionCore
import Testing

@testable import MotionHost

/// A plugin folder with a manifest and (usually) the fixture library beside it.
private struct PluginFolder {
    let root = TemporaryFolder()
    let folder: URL
    let manifestURL: URL

    init(library: String = "libfixture.so", install: Bool = true, edit: (JSONValue) -> JSONValue = { $0 }) {
        folder = root.folder("plugins")
        if install { Fixtures.installLibrary(named: library, in: folder) }
        manifestURL = root.write("plugins/fixture.json", edit(Fixtures.tweenManifest(library: library)))
    }

    func manifest() throws -> PluginManifest { try PluginManifest.load(contentsOf: manifestURL) }

    var libraryPath: String { folder.appendingPathComponent("libfixture.so").path }
}

private typealias AnswerFunction = @convention(c) () -> Int32

@Suite struct TrustTests {
    private var libraryHash: String { SHA256.hexDigest(of: Fixtures.sharedLibrary) }

    @Test func trustedLibraryLoadsAndItsSymbolsAreCallable() throws {
        let plugin = PluginFolder()
        let library = try LibraryLoader().load(try plugin.manifest())
        #expect(library.resolvedPath == plugin.libraryPath)
        let address = try #require(library.symbol("fixture_answer"))
        #expect(unsafeBitCast(address, to: AnswerFunction.self)() == 42)
        #expect(library.symbol("no_such_symbol") == nil)
        #expect(library.sha256 == nil)
    }

    @Test func libraryIsLoadedOncePerProcess() throws {
        let plugin = PluginFolder()
        let manifest = try plugin.manifest()
        let first = try LibraryLoader().load(manifest)
        let second = try LibraryLoader().load(manifest)
        #expect(first === second)
        #expect(first.handle == second.handle)
    }

    @Test func missingRequiredSymbolNamesManifestLibraryAndSymbol() throws {
        let plugin = PluginFolder()
        let manifest = try plugin.manifest()
        let library = try LibraryLoader().load(manifest)
        let error = try #require(throws: PluginError.self) {
            try library.requiredSymbol("motion_plugin_entry", for: manifest)
        }
        #expect(error.code == .missingSymbol)
        #expect(
            error.description
                == "\(plugin.manifestURL.relativePath): library \"libfixture.so\": \(plugin.libraryPath) does not export motion_plugin_entry. To fix, export it (extern \"C\", visibility default) or correct the manifest"
        )
    }

    @Test func matchingPinsLoadAndRecordTheHash() throws {
        let hash = libraryHash
        let plugin = PluginFolder { $0.setting([.key("sha256")], to: .string(hash)) }
        let loader = LibraryLoader(configuration: HostConfiguration(pins: ["libfixture.so": hash]))
        let library = try loader.load(try plugin.manifest())
        #expect(library.sha256 == hash)
    }

    @Test func manifestHashMismatchIsRefusedWithBothHashes() throws {
        let wrong = String(repeating: "0", count: 64)
        let plugin = PluginFolder { $0.setting([.key("sha256")], to: .string(wrong)) }
        let error = try #require(throws: PluginError.self) { try LibraryLoader().load(try plugin.manifest()) }
        #expect(error.code == .hashMismatch)
        #expect(
            error.description
                == "\(plugin.manifestURL.relativePath): library \"libfixture.so\": \(plugin.libraryPath) has SHA-256 \(libraryHash), but the manifest's sha256 expects \(wrong). The file is corrupt or was replaced; it was not loaded. To fix, reinstall the plugin or, if this build is trusted, update the pin"
        )
    }

    @Test func configurationPinMismatchIsRefusedNamingThePinAndFile() throws {
        let wrong = String(repeating: "e", count: 64)
        let plugin = PluginFolder()
        let configFile = plugin.root.write("host.json", "{\"pins\": {\"org.example.tween\": \"\(wrong)\"}}")
        let loader = LibraryLoader(configuration: try HostConfiguration.load(contentsOf: configFile))
        let error = try #require(throws: PluginError.self) { try loader.load(try plugin.manifest()) }
        #expect(error.code == .hashMismatch)
        #expect(
            error.message
                == "\(plugin.libraryPath) has SHA-256 \(libraryHash), but the host configuration's pin \"org.example.tween\" in \(configFile.relativePath) expects \(wrong). The file is corrupt or was replaced; it was not loaded. To fix, reinstall the plugin or, if this build is trusted, update the pin"
        )
    }

    @Test func groupWritableLibraryIsRefused() throws {
        let plugin = PluginFolder()
        chmod(plugin.libraryPath, 0o775)
        let error = try #require(throws: PluginError.self) { try LibraryLoader().load(try plugin.manifest()) }
        #expect(error.code == .insecurePermissions)
        #expect(
            error.description
                == "\(plugin.manifestURL.relativePath): library \"libfixture.so\": the library \(plugin.libraryPath) is writable by group or others (mode 0775); it was not loaded. To fix, run chmod go-w \(plugin.libraryPath)"
        )
    }

    @Test(arguments: [0o775 as mode_t, 0o757, 0o777])
    func folderWritableByGroupOrOthersIsRefused(_ mode: mode_t) throws {
        let plugin = PluginFolder()
        chmod(plugin.folder.path, mode)
        let error = try #require(throws: PluginError.self) { try LibraryLoader().load(try plugin.manifest()) }
        #expect(error.code == .insecurePermissions)
        #expect(
            error.message
                == "the folder \(plugin.folder.path) is writable by group or others (mode 0\(String(mode, radix: 8))); it was not loaded. To fix, run chmod go-w \(plugin.folder.path)"
        )
    }

    @Test(.enabled(if: geteuid() == 0, "changing a file's owner needs root"))
    func libraryOwnedBySomeoneElseIsRefused() throws {
        let plugin = PluginFolder()
        chown(plugin.libraryPath, 4242, 4242)
        let error = try #require(throws: PluginError.self) { try LibraryLoader().load(try plugin.manifest()) }
        #expect(error.code == .wrongOwner)
        #expect(
            error.message
                == "the library \(plugin.libraryPath) is owned by user id 4242, neither you (user id 0) nor root; it was not loaded. To fix, chown it to yourself or root"
        )
    }

    @Test func missingLibraryListsThePlacesLooked() throws {
        let plugin = PluginFolder(install: false)
        let extra = plugin.root.folder("bin")
        let loader = LibraryLoader(
            configuration: HostConfiguration(libraryPaths: [URL(fileURLWithPath: "/nonexistent/lib")]),
            extraLibraryDirectories: [extra])
        let error = try #require(throws: PluginError.self) { try loader.load(try plugin.manifest()) }
        #expect(error.code == .libraryNotFound)
        #expect(
            error.message
                == "the library file was not found; looked in \(plugin.folder.path), /nonexistent/lib, \(extra.path). To fix, build or install it next to the manifest, or add its folder to the host configuration's libraryPaths"
        )
    }

    @Test func libraryInAnExtraFolderIsFound() throws {
        let plugin = PluginFolder(install: false)
        let bin = plugin.root.folder("bin")
        Fixtures.installLibrary(in: bin)
        let library = try LibraryLoader(extraLibraryDirectories: [bin]).load(try plugin.manifest())
        #expect(library.resolvedPath == bin.appendingPathComponent("libfixture.so").path)
    }

    @Test func symbolicLinkLeadingOutOfTheFoldersIsRefused() throws {
        let plugin = PluginFolder(install: false)
        let outside = plugin.root.folder("elsewhere")
        let target = Fixtures.installLibrary(in: outside)
        let link = plugin.folder.appendingPathComponent("libfixture.so")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let error = try #require(throws: PluginError.self) { try LibraryLoader().load(try plugin.manifest()) }
        #expect(error.code == .pathEscape)
        #expect(
            error.message
                == "\(link.path) resolves to \(target.path), outside the manifest's folder and the library folders (\(plugin.folder.path)); a symbolic link must not lead out of them. To fix, copy the library into one of them or add its real folder to the host configuration's libraryPaths"
        )
    }

    @Test func symbolicLinkIntoALibraryFolderIsAllowed() throws {
        let plugin = PluginFolder(install: false)
        let libraries = plugin.root.folder("lib")
        let target = Fixtures.installLibrary(in: libraries)
        try FileManager.default.createSymbolicLink(
            at: plugin.folder.appendingPathComponent("libfixture.so"), withDestinationURL: target)
        let loader = LibraryLoader(configuration: HostConfiguration(libraryPaths: [libraries]))
        #expect(try loader.load(try plugin.manifest()).resolvedPath == target.path)
    }

    @Test(arguments: [
        ("../libfixture.so", "escapes the folder with \"..\""), ("/usr/lib/libfixture.so", "is absolute"),
    ])
    func escapingLibraryPathInAManifestBuiltInCodeIsRefused(_ library: String, _ reason: String) throws {
        let plugin = PluginFolder()
        let original = try plugin.manifest()
        let manifest = PluginManifest(
            id: original.id, name: original.name, version: original.version, abiVersion: original.abiVersion,
            library: library, performers: original.performers, url: original.url)
        let error = try #require(throws: PluginError.self) { try LibraryLoader().load(manifest) }
        #expect(error.code == .pathEscape)
        #expect(
            error.message
                == "the library path is refused: it must be a file name or a relative path inside the manifest's folder, but it \(reason)"
        )
    }

    @Test func fileThatIsNotALibraryFailsWithDlerrorText() throws {
        let plugin = PluginFolder(install: false)
        plugin.root.write("plugins/libfixture.so", "not an ELF file")
        let error = try #require(throws: PluginError.self) { try LibraryLoader().load(try plugin.manifest()) }
        #expect(error.code == .loadFailed)
        #expect(error.message.hasPrefix("dlopen of \(plugin.libraryPath) failed: /proc/self/fd/"))
        #expect(error.message.contains("invalid ELF header") || error.message.contains("too short"))
    }

    @Test func folderIsNotARegularFile() throws {
        let plugin = PluginFolder(install: false)
        plugin.root.folder("plugins/libfixture.so")
        let error = try #require(throws: PluginError.self) { try LibraryLoader().load(try plugin.manifest()) }
        #expect(error.code == .notARegularFile)
    }

    @Test func sha256OfAnOpenFileMatchesTheBufferHash() throws {
        let plugin = PluginFolder()
        let fd = open(plugin.libraryPath, O_RDONLY)
        defer { close(fd) }
        #expect(try SHA256.hexDigest(ofFileDescriptor: fd) == SHA256.hexDigest(of: Fixtures.sharedLibrary))
        // The well-known digest of "abc" (FIPS 180-2, appendix B.1).
        #expect(
            SHA256.hexDigest(of: Array("abc".utf8))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
