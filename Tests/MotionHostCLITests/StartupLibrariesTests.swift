import Foundation
import Testing

/// What the dynamic linker loads when `motion-host` starts (`LD_DEBUG=libs`, which glibc's loader writes to
/// standard error): FoundationEssentials, never full Foundation and its ICU libraries (about 4 ms of CPU per
/// start). (libcrypto still comes with libwebsockets' libssl here; MotionHost itself loads it on first use.)
@Suite struct StartupLibrariesTests {
    private func librariesInitialised(_ arguments: [String], environment: [String: String?] = [:]) throws -> [String] {
        let result = try MotionHost.run(arguments, environment: environment.merging(["LD_DEBUG": "libs"]) { $1 })
        #expect(result.status == 0, "\(result.standardError.suffix(2000))")
        // "     12345:\tcalling init: /opt/swift/usr/lib/swift/linux/libFoundationEssentials.so"
        return result.errorLines.compactMap { line in
            guard let range = line.range(of: "calling init: ") else { return nil }
            return String(line[range.upperBound...].split(separator: "/").last ?? "")
        }
    }

    @Test func listingPluginsLoadsFoundationEssentialsOnly() throws {
        let libraries = try librariesInitialised(
            ["plugins", "list", "--plugin-path", MotionHost.pluginFixtures.path], environment: ["XDG_CACHE_HOME": "/proc/none"])
        #expect(libraries.contains("libFoundationEssentials.so"), "\(libraries)")
        #expect(!libraries.contains("libFoundation.so"), "\(libraries)")
        #expect(!libraries.contains("libFoundationInternationalization.so"), "\(libraries)")
        #expect(!libraries.contains("lib_FoundationICU.so"), "\(libraries)")
    }
}
