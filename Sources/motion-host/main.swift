import Foundation
import MotionHost

// A plugin that crashes the process is named in one line (motion-host runs plugins in-process).
PluginCrashReport.install()

let arguments = Array(CommandLine.arguments.dropFirst())
if (2...3).contains(arguments.count), arguments[0] == validateChildArgument {
    exit(runValidateChild(manifest: arguments[1], configurationPath: arguments.count == 3 ? arguments[2] : nil))
}
exit(CommandLineTool.main(root: CommandTree.root, version: CommandTree.version, arguments: arguments))
