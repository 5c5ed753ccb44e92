import Foundation
import Testing

/// What the CLI does with files it must not trust or cannot read (issue 11): it names them in one line, and
/// never blocks on a FIFO or reads a device.
@Suite struct TrustCommandTests {
    /// The sample TweenKit manifest and its built library, copied into a fresh plugin folder.
    private func pluginFolder() throws -> URL {
        let folder = try MotionHost.temporaryFolder()
        chmod(folder.path, 0o755)
        let manifests = MotionHost.pluginFixtures.deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("manifests")
        try FileManager.default.copyItem(
            at: manifests.appendingPathComponent("tweenkit.json"), to: folder.appendingPathComponent("tweenkit.json"))
        try FileManager.default.copyItem(
            at: MotionHost.executable.deletingLastPathComponent().appendingPathComponent("libTweenKit.so"),
            to: folder.appendingPathComponent("libTweenKit.so"))
        return folder
    }

    @Test(.timeLimit(.minutes(1)))
    func validateOfAFolderSkipsWhatIsNotARegularFileAsDiscoveryDoes() throws {
        let folder = try pluginFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(mkfifo(folder.appendingPathComponent("fifo.json").path, 0o644) == 0)
        #expect(symlink("/dev/zero", folder.appendingPathComponent("zero.json").path) == 0)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("folder.json"), withIntermediateDirectories: false)
        let result = try MotionHost.run(["plugins", "validate", folder.path, "--scan-time-limit", busyMachineScanLimit])
        #expect(result.status == 0)
        for name in ["folder.json", "fifo.json", "zero.json"] {
            #expect(
                result.outputLines.contains(
                    "\(folder.appendingPathComponent(name).path): SKIP not a regular file; plugins list and run skip it too"))
        }
        #expect(result.outputLines.last == "1 plugin, 19 checks: 19 passed, 0 failed")
    }

    @Test(.timeLimit(.minutes(1)))
    func aDeviceAsTheConfigurationIsRefusedInOneLine() throws {
        let direct = try MotionHost.run(["plugins", "list", "--config", "/dev/zero"])
        #expect(direct.status == 1)
        #expect(
            direct.errorLines == [
                "error: /dev/zero: the host configuration is a character device, not a regular file; the host reads only regular files. To fix, name the file itself"
            ])
        // The default configuration file, linked to /dev/zero.
        let home = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: home) }
        try FileManager.default.createDirectory(at: home.appendingPathComponent("motion"), withIntermediateDirectories: true)
        let link = home.appendingPathComponent("motion/host.json").path
        #expect(symlink("/dev/zero", link) == 0)
        let linked = try MotionHost.run(["plugins", "list"], environment: ["XDG_CONFIG_HOME": home.path])
        #expect(linked.status == 1)
        #expect(linked.errorLines.first?.hasPrefix("error: \(link): the host configuration is a character device") == true)
    }

    @Test func listSaysWhatARunWouldRefuseAndWhatIsShadowed() throws {
        let first = try pluginFolder()
        let second = try pluginFolder()
        defer {
            try? FileManager.default.removeItem(at: first)
            try? FileManager.default.removeItem(at: second)
        }
        chmod(first.appendingPathComponent("libTweenKit.so").path, 0o777)
        let result = try MotionHost.run(
            ["plugins", "list", "--plugin-path", first.path, "--plugin-path", second.path, "--format", "json"],
            environment: ["XDG_CONFIG_HOME": first.path, "XDG_CACHE_HOME": first.path])
        #expect(result.status == 1)  // nothing valid
        let rows = try result.jsonLines()
        let used = try #require(rows.first { $0["manifest"] as? String == first.appendingPathComponent("tweenkit.json").path })
        #expect(used["valid"] as? Bool == false)
        let library = first.appendingPathComponent("libTweenKit.so").path
        #expect(
            used["status"] as? String
                == "refused: the library \(library) is writable by group or others (mode 0777); it was not loaded. To fix, run chmod go-w \(library)"
        )
        let shadowed = try #require(rows.first { $0["manifest"] as? String == second.appendingPathComponent("tweenkit.json").path })
        #expect(shadowed["status"] as? String == "shadowed by \(first.appendingPathComponent("tweenkit.json").path)")
        #expect(shadowed["valid"] as? Bool == false)
    }
}

@Suite struct UnreadableInputTests {
    @Test(.timeLimit(.minutes(1)))
    func aFIFONamedAsTheSceneOrTheRecordingIsRefusedWithoutWaiting() throws {
        let folder = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("scene.json").path
        #expect(mkfifo(fifo, 0o644) == 0)
        let scene = try MotionHost.runScene([fifo])
        #expect(scene.status == 1)
        #expect(
            scene.errorLines == [
                "error: \(fifo): the scene is a FIFO (named pipe), not a regular file; the host reads only regular files. To fix, name the file itself"
            ])
        let recording = folder.appendingPathComponent("walk.csv").path
        #expect(mkfifo(recording, 0o644) == 0)
        let motion = try MotionHost.run(["device-motion", recording])
        #expect(motion.status == 1)
        #expect(motion.errorLines.first?.contains("the recording is a FIFO (named pipe), not a regular file") == true)
    }
}

@Suite struct ValidateConfigurationTests {
    @Test func validateReadsTheSameHostConfigurationAsRun() throws {
        let root = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        chmod(root.path, 0o755)
        let plugins = root.appendingPathComponent("plugins")
        let libraries = root.appendingPathComponent("lib")
        for folder in [plugins, libraries] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        let manifests = MotionHost.pluginFixtures.deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("manifests")
        try FileManager.default.copyItem(
            at: manifests.appendingPathComponent("cperformers.json"), to: plugins.appendingPathComponent("cperformers.json"))
        try FileManager.default.copyItem(
            at: MotionHost.executable.deletingLastPathComponent().appendingPathComponent("libCPerformers.so"),
            to: libraries.appendingPathComponent("libCPerformers.so"))
        let manifest = plugins.appendingPathComponent("cperformers.json").path
        // The configuration's library folder holds a copy, and a wrong pin shows that validate read it.
        let config = root.appendingPathComponent("host.json")
        try Data(#"{"libraryPaths": ["lib"], "pins": {"libCPerformers.so": "\#(String(repeating: "0", count: 64))"}}"#.utf8)
            .write(to: config)
        let withConfig = try MotionHost.run(["plugins", "validate", manifest, "--config", config.path])
        #expect(withConfig.status == 1)
        #expect(
            withConfig.outputLines.contains {
                $0.contains("FAIL load") && $0.contains("but the host configuration's pin \"libCPerformers.so\"")
            })
        // The default configuration file is read the same way.
        let xdg = root.appendingPathComponent("xdg")
        try FileManager.default.createDirectory(at: xdg.appendingPathComponent("motion"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: config, to: xdg.appendingPathComponent("motion/host.json"))
        let byDefault = try MotionHost.run(["plugins", "validate", manifest], environment: ["XDG_CONFIG_HOME": xdg.path])
        #expect(byDefault.outputLines.contains { $0.contains("FAIL load") && $0.contains("host configuration's pin") })
        // Without a configuration, the same manifest loads (its library is found beside motion-host).
        let without = try MotionHost.run(
            ["plugins", "validate", manifest, "--scan-time-limit", busyMachineScanLimit], environment: ["XDG_CONFIG_HOME": root.path])
        #expect(without.status == 0)
    }
}

@Suite struct ManifestMarkTests {
    @Test func aSceneBesideTheManifestsIsNotReadAsOne() throws {
        let folder = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in try FileManager.default.contentsOfDirectory(atPath: MotionHost.pluginFixtures.path) where name.hasSuffix(".json") {
            try FileManager.default.copyItem(
                at: MotionHost.pluginFixtures.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        let scene = folder.appendingPathComponent("a-scene.json")
        try Data(#"{"sceneVersion": 1, "duration": 0, "targets": [], "transactions": []}"#.utf8).write(to: scene)
        let run = try MotionHost.run(["run", scene.path, "--plugin-path", folder.path])
        #expect(run.status == 0)
        #expect(!run.standardError.contains("a-scene.json"))
        let list = try MotionHost.run(["plugins", "list", "--plugin-path", folder.path])
        #expect(list.outputLines.last == "not a manifest (no manifestVersion key): \(scene.path)")
        // A manifest with a mistake still warns, and says why it was read as one.
        try Data(#"{"manifestVersion": 1, "id": "org.example.broken"}"#.utf8).write(to: folder.appendingPathComponent("broken.json"))
        let warned = try MotionHost.run(["run", scene.path, "--plugin-path", folder.path])
        #expect(
            warned.errorLines.contains {
                $0.hasPrefix("warning: \(folder.appendingPathComponent("broken.json").path): ")
                    && $0.hasSuffix(" (read as a plugin manifest: it has a manifestVersion key)")
            })
    }
}

@Suite struct PlotLinkTests {
    @Test func aPlotNamedThroughASymbolicLinkReplacesWhereItLeadsAndKeepsTheLink() throws {
        let folder = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let real = folder.appendingPathComponent("real.svg")
        try Data("old".utf8).write(to: real)
        let link = folder.appendingPathComponent("link.svg")
        #expect(symlink(real.path, link.path) == 0)
        let result = try MotionHost.runScene(["basic.json", "--plot", link.path])
        #expect(result.status == 0)
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link.path)) == real.path)
        #expect(try String(contentsOf: real, encoding: .utf8).hasPrefix("<?xml"))
    }
}
