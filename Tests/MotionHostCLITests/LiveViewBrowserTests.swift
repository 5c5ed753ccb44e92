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
}
