/// A failure of a `motion-host` command that is not a usage error: printed to standard error as one
/// line, `error: <file>: <field>: <what happened>`, exit status 1.
struct MotionHostError: Error, CustomStringConvertible {
    /// What kind of failure this is. A struct over a private enum, so codes can be added.
    struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Sendable {
            case unreadableFile, invalidJSON, invalidScene, commitFailed, emissionFailed, frameHookFailed, safetyLimit
            case unwritableOutput, registryUnavailable, notAvailable, reloadFailed, pluginFailed
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// A file (scene, configuration) could not be read.
        static let unreadableFile = Code(.unreadableFile)
        /// A file is not valid JSON; the message gives line and column.
        static let invalidJSON = Code(.invalidJSON)
        /// A scene field is missing, mistyped or out of range; the message gives its JSON path.
        static let invalidScene = Code(.invalidScene)
        /// Committing a scene's transaction failed (the scheduler's `CommitError`).
        static let commitFailed = Code(.commitFailed)
        /// A transaction emitted by a performer during a frame failed.
        static let emissionFailed = Code(.emissionFailed)
        /// A frame hook (device-motion delivery) failed.
        static let frameHookFailed = Code(.frameHookFailed)
        /// An `untilIdle` run was still active at its `maximumDuration`.
        static let safetyLimit = Code(.safetyLimit)
        /// An output file could not be written.
        static let unwritableOutput = Code(.unwritableOutput)
        /// The performer registry (plugins, configuration) could not be set up.
        static let registryUnavailable = Code(.registryUnavailable)
        /// A changed plugin could not be reloaded (`--watch`); its old code keeps running.
        static let reloadFailed = Code(.reloadFailed)
        /// The command or feature is not part of this build.
        static let notAvailable = Code(.notAvailable)
        /// An isolated plugin's sandbox died or missed its deadline; its performers ended, the run went on.
        static let pluginFailed = Code(.pluginFailed)

        var description: String { value.rawValue }
    }

    /// What kind of failure this is.
    var code: Code
    /// The file the failure concerns, as given on the command line, or `nil`.
    var file: String?
    /// What happened and, where it helps, how to fix it; starts with the field's JSON path when a
    /// field is at fault.
    var message: String
    /// The cause, if another error caused this one.
    var underlying: (any Error)?

    /// A failure.
    init(_ code: Code, file: String? = nil, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.file = file
        self.message = message
        self.underlying = underlying
    }

    /// The line printed to standard error, without `error: ` and with newlines flattened.
    var description: String {
        let text = file.map { "\($0): \(message)" } ?? message
        return text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
