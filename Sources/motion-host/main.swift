import FoundationEssentials
import Glibc
import MotionHost

// A plugin that crashes the process is named in one line (motion-host runs plugins in-process).
PluginCrashReport.install()

let arguments = Array(CommandLine.arguments.dropFirst())
if (2...5).contains(arguments.count), arguments[0] == validateChildArgument {
    let isolated = arguments.dropFirst(2).first { $0.hasPrefix(validateIsolatePrefix) }.map { String($0.dropFirst(validateIsolatePrefix.count)) }
    let scanTimeLimit = arguments.dropFirst(2).first { $0.hasPrefix(validateScanTimeLimitPrefix) }.flatMap {
        Double($0.dropFirst(validateScanTimeLimitPrefix.count))
    }
    let configuration = arguments.dropFirst(2).first { !$0.hasPrefix(validateIsolatePrefix) && !$0.hasPrefix(validateScanTimeLimitPrefix) }
    exit(
        runValidateChild(
            manifest: arguments[1], configurationPath: configuration,
            isolating: isolated.map { $0.split(separator: ",").map(String.init) } ?? [],
            scanTimeLimit: scanTimeLimit ?? PluginValidator.scanTimeLimit))
}
exit(CommandLineTool.main(root: CommandTree.root, version: CommandTree.version, arguments: arguments))
