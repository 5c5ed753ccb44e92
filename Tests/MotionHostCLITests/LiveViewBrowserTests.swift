import Foundation
import LoopbackTesting
import Testing

private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The live view at `GET /`, in a real headless browser (Debian's chromium, through DevTools).
@Suite struct LiveViewBrowserTests {
    @Test func thePageSendsATransactionFromItsBoxAndTheCardFollows() throws {
        let serve = try ServeProcess([MotionHost.fixture("serve-card.json"), "--plugin-path", "manifests"], in: root)
        let page = try serve.connect().request("GET", "/", host: serve.host)
        #expect(page.status == 200)
        #expect(page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(page.headers["content-security-policy"]?.contains("connect-src 'self'") == true)
        // Plain HTML/JS shipped with the binary: nothing fetched from elsewhere.
        #expect(!page.text.contains("http://") && !page.text.contains("https://") && !page.text.contains("src=\""))

        let browser = try HeadlessChromium()
        let transaction =
            #"{"operations":[{"op":"add","target":"card","plan":{"type":"SpringTo","property":"position","destination":[33,44]}}]}"#
        let send = transaction.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        try browser.command("Page.navigate", ["url": "http://\(serve.host)/?send=\(send)"])
        let probe = """
            (() => { const c = document.querySelector('.card[data-target="card"]');
              return JSON.stringify({ x: c ? +c.dataset.x : null, y: c ? +c.dataset.y : null,
                result: document.getElementById('result')?.textContent ?? '', activity: document.getElementById('activity')?.textContent ?? '' }); })()
            """
        var drawn: [String: Any] = [:]
        for _ in 0..<150 {
            if let text = try browser.evaluate(probe) as? String,
                let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
            {
                drawn = object
                if let x = object["x"] as? Double, let y = object["y"] as? Double, abs(x - 33) < 0.5, abs(y - 44) < 0.5 {
                    break
                }
            }
            usleep(100_000)
        }
        #expect((drawn["result"] as? String)?.hasPrefix("committed at frame ") == true, "\(drawn)")
        #expect(abs((drawn["x"] as? Double ?? 0) - 33) < 0.5, "\(drawn)")
        #expect(abs((drawn["y"] as? Double ?? 0) - 44) < 0.5, "\(drawn)")
        #expect(serve.stop(signal: SIGTERM) == 0)
    }

    @Test func aRebuiltPluginTakesEffectInTheOpenLiveViewWithoutARestart() throws {
        // The README's hot reload walk-through as a user meets it: the page stays open while the library is
        // replaced; it says which plugin was reloaded and draws the new code's values.
        let folder = try HotReloadTests.PluginFolder()
        let serve = try ServeProcess(["scene.json", "--plugin-path", ".", "--watch"], in: folder.url)
        let browser = try HeadlessChromium()
        try browser.command("Page.navigate", ["url": "http://\(serve.host)/"])
        let probe = """
            JSON.stringify({ values: document.getElementById('values')?.textContent ?? '',
              result: document.getElementById('result')?.textContent ?? '' })
            """
        func waitForPage(_ predicate: (_ values: String, _ result: String) -> Bool) throws -> (values: String, result: String) {
            var last = (values: "", result: "")
            for _ in 0..<200 {
                if let text = try browser.evaluate(probe) as? String,
                    let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String]
                {
                    last = (object["values"] ?? "", object["result"] ?? "")
                    if predicate(last.values, last.result) { return last }
                }
                usleep(100_000)
            }
            return last
        }
        let before = try waitForPage { values, _ in values.contains("t.level = 5") }
        #expect(before.values.contains("t.level = 5") && before.values.contains("t.other = 7"), "\(before)")

        try folder.install(offset: 100)
        let after = try waitForPage { values, result in result.hasPrefix("reloaded ") && values.contains("t.level = 105") }
        #expect(after.result.hasPrefix("reloaded org.example.reloadable at frame "), "\(after)")
        #expect(after.values.contains("t.level = 105") && after.values.contains("t.other = 107"), "\(after)")
        #expect(serve.stop(signal: SIGTERM) == 0)
    }
}
