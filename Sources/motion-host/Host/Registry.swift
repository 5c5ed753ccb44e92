import Foundation
import MotionCore
import MotionTesting

/// Builds the performer registry of a run: every registry construction of the CLI is in this file.
///
/// In this build the registry holds MotionTesting's in-process test performers (`SetValue`,
/// `HoldTokens`, `Emit`, `Record`, `RecordToo`, `RecordOther`); the plugin host replaces this file
/// with discovery of manifests over the search path and loading of plugin libraries.
///
/// - Parameters:
///   - pluginPaths: Folders given with `--plugin-path`, searched first, in order.
///   - configPath: A host configuration file given with `--config`, or `nil` for the default
///     (`$XDG_CONFIG_HOME/motion/host.json`).
/// - Returns: The registry the scheduler resolves plan types with.
/// - Throws: ``MotionHostError`` `.registryUnavailable` naming a plugin folder or configuration file
///   that does not exist.
func makeRegistry(pluginPaths: [String], configPath: String?) throws -> any PerformerRegistry {
    for path in pluginPaths {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw MotionHostError(.registryUnavailable, file: path, "--plugin-path: no such folder")
        }
    }
    if let configPath, !FileManager.default.fileExists(atPath: configPath) {
        throw MotionHostError(.registryUnavailable, file: configPath, "--config: no such file")
    }
    return TestPerformers.makeRegistry(log: CallLog())
}
