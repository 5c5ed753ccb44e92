import Foundation
import LoopbackTesting

/// Debian's `chromium`, headless, driven through its DevTools protocol over loopback: one page, navigated
/// and inspected with `Runtime.evaluate`. Killed when dropped.
final class HeadlessChromium {
    private let process = Process()
    private let folder: URL
    private let page: LoopbackClient
    private var nextID = 1

    /// Starts the browser (`--remote-debugging-port=0`, a fresh profile) and attaches to its first page.
    init() throws {
        folder = try MotionHost.temporaryFolder()
        let errorURL = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chromium")
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--remote-debugging-address=127.0.0.1",
            "--remote-debugging-port=0", "--user-data-dir=\(folder.appendingPathComponent("profile").path)",
            "about:blank",
        ]
        process.standardError = try FileHandle(forWritingTo: errorURL)
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var port: Int?
        let deadline = Date().addingTimeInterval(20)
        while port == nil, Date() < deadline, process.isRunning {
            let text = (try? String(contentsOf: errorURL, encoding: .utf8)) ?? ""
            if let range = text.range(of: "DevTools listening on ws://127.0.0.1:") {
                port = Int(text[range.upperBound...].prefix { $0.isNumber })
            }
            usleep(20_000)
        }
        guard let port else {
            process.terminate()
            throw ClientError("chromium did not start its DevTools server: \((try? String(contentsOf: errorURL, encoding: .utf8)) ?? "")")
        }
        let list = try LoopbackClient(port: port).request("GET", "/json/list", host: "127.0.0.1:\(port)")
        let targets = try JSONSerialization.jsonObject(with: Data(list.body)) as? [[String: Any]] ?? []
        guard let url = targets.first(where: { $0["type"] as? String == "page" })?["webSocketDebuggerUrl"] as? String,
            let path = url.range(of: "/devtools/").map({ String(url[$0.lowerBound...]) })
        else { throw ClientError("no page among chromium's targets: \(list.text)") }
        page = try LoopbackClient(port: port)
        let upgrade = try page.upgrade(path, host: "127.0.0.1:\(port)")
        guard upgrade.status == 101 else { throw ClientError("DevTools refused the WebSocket: \(upgrade.status)") }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Sends one DevTools command and returns its `result`.
    @discardableResult
    func command(_ method: String, _ parameters: [String: Any]) throws -> [String: Any] {
        let id = nextID
        nextID += 1
        let data = try JSONSerialization.data(withJSONObject: ["id": id, "method": method, "params": parameters])
        try page.sendText(String(decoding: data, as: UTF8.self))
        let answer = try page.readText { $0["id"] as? Int == id }
        if let error = answer["error"] { throw ClientError("\(method) failed: \(error)") }
        return answer["result"] as? [String: Any] ?? [:]
    }

    /// Evaluates JavaScript in the page and returns its value (`returnByValue`).
    func evaluate(_ expression: String) throws -> Any? {
        let result = try command("Runtime.evaluate", ["expression": expression, "returnByValue": true])
        return (result["result"] as? [String: Any])?["value"]
    }
}
