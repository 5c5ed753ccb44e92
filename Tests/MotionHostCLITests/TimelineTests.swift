import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `basic.json`: 10 fps, 1 s; SetValue opacity 0.5 at 0 s; at 0.25 s HoldTokens (terminated after 3
/// frames) and SetVector position [1, 2]; SetValue opacity 1 at 0.5 s. Performed by the fixture plugin
/// Tests/Fixtures/plugins/test-performers.json.
@Suite("Timelines")
struct TimelineTests {
    private func changes(_ line: [String: Any]) -> [String: [String: Any]]? {
        line["changes"] as? [String: [String: Any]]
    }

    @Test func targetPropertiesAreWrittenSortedByNameWhateverTheirOrderInTheScene() throws {
        let folder = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let scene = """
            {"sceneVersion": 1, "duration": 0, "frameRate": 10,
             "targets": [{"name": "card", "properties": {"scale": 2, "opacity": 0, "position": [1, 2]}},
                         {"name": "badge", "properties": {"rotation": 3}}],
             "transactions": []}
            """
        try Data(scene.utf8).write(to: folder.appendingPathComponent("scene.json"))
        let result = try MotionHost.runScene(["scene.json"], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let header = try #require(result.outputLines.first)
        #expect(header.contains(#""targets":{"card":{"opacity":0,"position":[1,2],"scale":2},"badge":{"rotation":3}}"#), "\(header)")
    }

    @Test func jsonLinesTimelineHasHeaderFramesActivityAndSummary() throws {
        let result = try MotionHost.runScene(["basic.json"])
        #expect(result.status == 0)
        #expect(result.standardError.isEmpty)
        let lines = try result.jsonLines()

        let header = try #require(lines.first)
        #expect(header["timeline"] as? Int == 1)
        #expect(header["scene"] as? String == "basic.json")
        #expect(header["frameRate"] as? Double == 10)
        let targets = try #require(header["targets"] as? [String: [String: Any]])
        #expect(targets["card"]?["opacity"] as? Double == 0)
        #expect(targets["card"]?["position"] as? [Double] == [0, 0])
        #expect(header["units"] as? [String: String] == ["opacity": "", "position": "pt"])

        let frames = lines.filter { $0["changes"] != nil }
        #expect(frames.map { $0["frame"] as? Int } == [0, 3, 5])
        // 0.25 s falls between frames 2 (0.2 s) and 3 (0.3 s): committed at frame 3.
        #expect(changes(frames[0])?["card"]?["opacity"] as? Double == 0.5)
        #expect(changes(frames[1])?["card"]?["position"] as? [Double] == [1, 2])
        #expect(frames[1]["time"] as? Double == 0.3)
        #expect(changes(frames[2])?["card"]?["opacity"] as? Double == 1)

        let commits = lines.filter { $0["commit"] != nil }
        #expect(commits.map { $0["commit"] as? Int } == [0, 1, 2])
        #expect(commits.map { $0["frame"] as? Int } == [0, 3, 5])
        #expect(commits[1]["at"] as? Double == 0.25)

        let activity = lines.filter { $0["activity"] != nil && $0["summary"] == nil }
        #expect(activity.map { $0["activity"] as? String } == ["active", "idle"])
        #expect(activity.map { $0["frame"] as? Int } == [3, 5])

        let summary = try #require(lines.last?["summary"] as? [String: Any])
        #expect(summary["frames"] as? Int == 11)
        #expect(summary["duration"] as? Double == 1)
        #expect(summary["stoppedBecause"] as? String == "duration")
        #expect(summary["activity"] as? String == "idle")
        #expect(summary["committedTransactions"] as? Int == 3)
        let final = try #require(summary["finalValues"] as? [String: [String: Any]])
        #expect(final["card"]?["opacity"] as? Double == 1)
        #expect(final["card"]?["position"] as? [Double] == [1, 2])
    }

    @Test func linesComeInFrameOrderWithCommitsBeforeTheirFramesChanges() throws {
        let lines = try MotionHost.runScene(["basic.json"]).outputLines
        #expect(lines.count == 10)
        #expect(lines[2] == "{\"frame\":0,\"time\":0,\"changes\":{\"card\":{\"opacity\":0.5}}}")
        #expect(lines[4] == "{\"activity\":\"active\",\"time\":0.3,\"frame\":3}")
        #expect(lines[5] == "{\"frame\":3,\"time\":0.3,\"changes\":{\"card\":{\"position\":[1,2]}}}")
        #expect(lines[7] == "{\"activity\":\"idle\",\"time\":0.5,\"frame\":5}")
    }

    @Test func aFrameLineGroupsChangesByTargetInTheOrderTargetsFirstChanged() throws {
        // Changes in the order b.x, a.x, c.x, b.y, a.y: each target once, where it first changed, with its
        // properties in their order (the grouping is by an index, not a search; the line is built as bytes).
        let lines = try MotionHost.runScene(["interleaved-changes.json"]).outputLines
        let frame = try #require(lines.first { $0.hasPrefix("{\"frame\"") })
        #expect(
            frame
                == #"{"frame":0,"time":0,"changes":{"b":{"x":3,"y":4.5},"a":{"x":1,"y":2},"c \"quoted\"":{"x":[0.1,-0.0]}}}"#)
    }

    @Test func commitLinesWriteEveryKindOfOperationWithSortedKeysAndEscapes() throws {
        // As Transaction.jsonData() wrote them through JSONEncoder, but for negative zero, which is -0.0 as
        // in every other line (JSONEncoder wrote -0, which reads back as the integer 0).
        let lines = try MotionHost.runScene(["all-operations.json", "--trace"]).outputLines
        let transaction =
            #"{"operations":[{"op":"add","plan":{"property":"opacity","type":"SetValue","value":0.30000000000000004},"target":"card \"1\""},{"name":"move \\ it","op":"addNamed","plan":{"property":"position","type":"SetVector","value":[-0.0,1e-05]},"target":"card \"1\""},{"name":"move \\ it","op":"removeNamed","target":"card \"1\""}]}"#
        #expect(lines.contains(#"{"commit":0,"at":0,"time":0,"frame":0,"transaction":"# + transaction + "}"))
        #expect(lines.contains(#"{"trace":"committed","time":0,"frame":0,"transaction":"# + transaction + "}"))
        // The plan trace lines write plans the same way: negative zero keeps its sign (JSONEncoder wrote -0).
        let named = try #require(lines.first { $0.hasPrefix(#"{"trace":"namedPlanAdded""#) })
        #expect(named.hasSuffix(#","plan":{"property":"position","type":"SetVector","value":[-0.0,1e-05]}}"#))
    }

    @Test func csvHasOneRowPerChangedProperty() throws {
        let result = try MotionHost.runScene(["basic.json", "--format", "csv"])
        #expect(result.status == 0)
        #expect(
            result.standardOutput == """
                time,frame,target,property,x,y,z,w
                0,0,card,opacity,0.5,,,
                0.3,3,card,position,1,2,,
                0.5,5,card,opacity,1,,,

                """)
    }

    @Test func outputFileGetsTheTimelineAndCSVIsInferredFromItsExtension() throws {
        let folder = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("timeline.csv")
        let result = try MotionHost.runScene([MotionHost.fixture("basic.json"), "--output", out.path])
        #expect(result.status == 0)
        #expect(result.standardOutput.isEmpty)
        let text = try String(contentsOf: out, encoding: .utf8)
        #expect(text.hasPrefix("time,frame,target,property,x,y,z,w\n0,0,card,opacity,0.5,,,\n"))
    }

    @Test func fpsOverrideMovesFramesAndCommitTimes() throws {
        let lines = try MotionHost.runScene(["basic.json", "--fps", "20"]).jsonLines()
        #expect(lines.first?["frameRate"] as? Double == 20)
        // At 20 fps, 0.25 s is exactly frame 5.
        #expect(lines.filter { $0["commit"] != nil }.map { $0["frame"] as? Int } == [0, 5, 10])
        #expect(lines.filter { $0["changes"] != nil }.map { $0["time"] as? Double } == [0, 0.25, 0.5])
        // The token lasts 3 updates: frames 5, 6 and 7.
        #expect(lines.first { $0["activity"] as? String == "idle" }?["frame"] as? Int == 7)
        #expect((lines.last?["summary"] as? [String: Any])?["frames"] as? Int == 21)
    }

    @Test func durationOverrideEndsEarlyAndWarnsAboutTransactionsNotCommitted() throws {
        let result = try MotionHost.runScene(["basic.json", "--duration", "0.4"])
        #expect(result.status == 0)
        #expect(
            result.standardError
                == "warning: basic.json: 1 transaction was not committed: the run ended at 0.4 s, before their time\n")
        let summary = try #require(try result.jsonLines().last?["summary"] as? [String: Any])
        #expect(summary["frames"] as? Int == 5)
        #expect(summary["committedTransactions"] as? Int == 2)
        #expect(summary["activity"] as? String == "active")
        #expect((summary["finalValues"] as? [String: [String: Any]])?["card"]?["opacity"] as? Double == 0.5)
    }

    @Test func untilIdleStopsAtTheFirstIdleFrameAfterTheLastCommit() throws {
        let lines = try MotionHost.runScene(["basic.json", "--duration", "untilIdle"]).jsonLines()
        #expect(lines.first?["duration"] as? String == "untilIdle")
        #expect(lines.first?["maximumDuration"] as? Double == 60)
        let summary = try #require(lines.last?["summary"] as? [String: Any])
        #expect(summary["stoppedBecause"] as? String == "idle")
        #expect(summary["frames"] as? Int == 6)
        #expect(summary["duration"] as? Double == 0.5)
    }

    @Test func traceWritesEveryTracerEvent() throws {
        let lines = try MotionHost.runScene(["basic.json", "--trace"]).jsonLines()
        let traces = lines.compactMap { line -> String? in
            guard let kind = line["trace"] as? String else { return nil }
            return "\(line["frame"] as? Int ?? -1) \(kind) \(line["performer"] as? String ?? "")"
        }
        #expect(
            traces == [
                "0 committed ", "0 performerCreated SetValuePerformer@card", "0 planAdded SetValuePerformer@card",
                "3 committed ", "3 performerCreated TokenPerformer@card", "3 tokenGenerated TokenPerformer@card",
                "3 activityChanged ", "3 planAdded TokenPerformer@card", "3 planAdded SetValuePerformer@card",
                "5 committed ", "5 planAdded SetValuePerformer@card", "5 tokenTerminated TokenPerformer@card",
                "5 activityChanged ",
            ])
        let plan = try #require(lines.first { $0["trace"] as? String == "planAdded" }?["plan"] as? [String: Any])
        #expect(plan["type"] as? String == "SetValue")
        #expect(plan["value"] as? Double == 0.5)
    }

    @Test func emittedTransactionsAndNamedPlansAppearInTheTimeline() throws {
        let result = try MotionHost.runScene(["compose.json", "--trace"])
        #expect(result.status == 0)
        let lines = try result.jsonLines()
        let emitted = try #require(lines.first { $0["trace"] as? String == "emitted" })
        #expect(emitted["performer"] as? String == "EmittingPerformer@card")
        #expect(emitted["crossesTargets"] as? Bool == true)
        #expect(emitted["frame"] as? Int == 3)
        let frames = lines.filter { $0["changes"] != nil }
        #expect(frames.map { $0["frame"] as? Int } == [3, 6, 9])
        #expect(changes(frames[0])?["badge"]?["scale"] as? Double == 2)
        #expect(changes(frames[1])?["card"]?["opacity"] as? Double == 0.4)
        #expect(changes(frames[2])?["card"]?["opacity"] as? Double == 1)
        #expect(lines.contains { $0["trace"] as? String == "namedPlanAdded" && $0["name"] as? String == "dim" })
        #expect(lines.contains { $0["trace"] as? String == "namedPlanRemoved" && $0["frame"] as? Int == 9 })
        // Two tokens taken at frame 3 and terminated in the 6th update: idle at frame 8.
        let activity = lines.filter { $0["activity"] != nil && $0["trace"] == nil }
        #expect(
            activity.map { "\($0["activity"] as? String ?? "") \($0["frame"] as? Int ?? -1)" } == [
                "active 3", "idle 8",
            ])
        let summary = try #require(lines.last?["summary"] as? [String: Any])
        #expect(summary["stoppedBecause"] as? String == "idle")
        #expect(summary["frames"] as? Int == 10)
    }

    @Test func timelineIsIdenticalAcrossRuns() throws {
        let first = try MotionHost.runScene(["fade-and-move.json", "--trace"])
        let second = try MotionHost.runScene(["fade-and-move.json", "--trace"])
        #expect(first.status == 0)
        #expect(first.outputLines.count > 40)
        #expect(first.standardOutput == second.standardOutput)
    }

    /// A frame whose changes alternate between targets whose names need escaping (JSON and CSV), with numbers
    /// of every written form.
    private static let interleavedScene = #"""
        {"sceneVersion": 1, "duration": 0, "frameRate": 10,
         "targets": [{"name": "say \"hi\"", "properties": {"x": 0, "z": 0}}, {"name": "a,b", "properties": {"y": 5}}],
         "transactions": [{"at": 0, "operations": [
           {"op": "add", "target": "a,b", "plan": {"type": "SetValue", "property": "y", "value": -0.0}},
           {"op": "add", "target": "say \"hi\"", "plan": {"type": "SetValue", "property": "z", "value": 0.30000000000000004}},
           {"op": "add", "target": "a,b", "plan": {"type": "SetVector", "property": "w", "value": [1e-05, 9007199254740993, 1e16]}},
           {"op": "add", "target": "say \"hi\"", "plan": {"type": "SetValue", "property": "x", "value": -12}}]}]}
        """#

    @Test func aFrameLineGroupsInterleavedChangesByTargetInTheOrderTheyFirstChanged() throws {
        let folder = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(Self.interleavedScene.utf8).write(to: folder.appendingPathComponent("scene.json"))
        let result = try MotionHost.runScene(["scene.json"], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let frame = try #require(result.outputLines.first { $0.hasPrefix(#"{"frame":"#) })
        #expect(
            frame
                == #"{"frame":0,"time":0,"changes":{"a,b":{"y":-0.0,"w":[1e-05,9007199254740992.0,1e+16]},"say \"hi\"":{"z":0.30000000000000004,"x":-12}}}"#
        )
    }

    @Test func csvRowsQuoteTargetNamesWithACommaOrAQuoteInEveryRow() throws {
        let folder = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(Self.interleavedScene.utf8).write(to: folder.appendingPathComponent("scene.json"))
        let result = try MotionHost.runScene(["scene.json", "--format", "csv"], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(
            result.outputLines == [
                "time,frame,target,property,x,y,z,w",
                #"0,0,"a,b",y,-0.0,,,"#,
                #"0,0,"say ""hi""",z,0.30000000000000004,,,"#,
                #"0,0,"a,b",w,1e-05,9007199254740992.0,1e+16,"#,
                #"0,0,"say ""hi""",x,-12,,,"#,
            ])
    }
}

@Suite("SVG plot")
struct PlotTests {
    private func plot(_ scene: String, extra: [String] = []) throws -> (result: MotionHostResult, svg: String) {
        let folder = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("plot.svg")
        let result = try MotionHost.runScene([scene, "--plot", url.path] + extra)
        return (result, try String(contentsOf: url, encoding: .utf8))
    }

    private func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    @Test func plotHasOnePanelPerAnimatedPropertyAndOneCurvePerComponent() throws {
        let (result, svg) = try plot("fade-and-move.json")
        #expect(result.status == 0)
        // The timeline still goes to standard output.
        #expect(result.outputLines.first?.hasPrefix("{\"timeline\":1,") == true)
        #expect(svg.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.contains("<title>Card fades in and moves</title>"))
        // badge.scale never changes: no panel for it.
        #expect(count("<g class=\"panel\"", in: svg) == 2)
        #expect(svg.contains("id=\"panel-card.opacity\""))
        #expect(svg.contains("id=\"panel-card.position\""))
        #expect(!svg.contains("badge"))
        #expect(count("<path class=\"curve\"", in: svg) == 3)
        #expect(svg.contains(">position.x</text>"))
        #expect(svg.contains(">position.y</text>"))
        #expect(svg.contains(">time (s)</text>"))
        #expect(svg.contains(">position (pt)</text>"))
        // One activity interval, shaded in each of the two panels.
        #expect(count("<rect class=\"active\"", in: svg) == 2)
        // 22 transactions at 21 distinct times (two at 0.25 s), marked in each panel.
        #expect(count("<line class=\"commit\"", in: svg) == 42)
    }

    @Test func plotIsWellFormedXML() throws {
        let (_, svg) = try plot("basic.json")
        #if canImport(FoundationXML)
            let document = try XMLDocument(xmlString: svg)
            let root = try #require(document.rootElement())
            #expect(root.name == "svg")
            let panels = try root.nodes(forXPath: "//*[local-name()='g'][@class='panel']")
            #expect(panels.count == 2)
            let curves = try root.nodes(forXPath: "//*[local-name()='path'][@class='curve']")
            #expect(curves.count == 3)
        #else
            #expect(svg.hasSuffix("</svg>\n"))
        #endif
    }

    @Test func opacityCurveStepsAtTheFramesItChanged() throws {
        let (_, svg) = try plot("basic.json")
        // The axis ends one frame after the last (1.1 s), over 712 px from x = 78: 0.5 s → 401.64.
        // Opacity 0 → 0.5 at frame 0, → 1 at 0.5 s.
        let line = try #require(svg.split(separator: "\n").first { $0.hasPrefix("<path class=\"curve\"") })
        let d = try #require(line.split(separator: "\"").dropFirst(3).first)
        #expect(d.hasPrefix("M78.00 "))
        #expect(d.contains("H401.64V"))
        #expect(d.hasSuffix("H790.00"))
        #expect(count("H", in: String(d)) == 3)
    }

    @Test func aTransactionAtTimeZeroIsMarkedOverThePanelBorder() throws {
        let (_, svg) = try plot("basic.json")
        let lines = svg.split(separator: "\n")
        let border = try #require(lines.firstIndex { $0.hasPrefix("<rect x=\"78.00\" y=\"78.00\"") && $0.contains("fill=\"none\"") })
        let mark = try #require(lines.firstIndex { $0.hasPrefix("<line class=\"commit\" x1=\"78.00\"") })
        #expect(mark > border)
        #expect(lines[mark + 1].hasPrefix("<path class=\"commit-marker\" d=\"M74.00 78.00H82.00L78.00 84.00Z\""))
    }

    @Test func anAnimationIsDrawnAsSegmentsAndAHeldChangeAsAStep() throws {
        let root = MotionHost.fixtures.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let folder = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("fade.svg")
        let result = try MotionHost.run(
            ["run", "Examples/fade-to.json", "--plugin-path", "Examples/Plugins", "--plot", url.path], in: root)
        #expect(result.status == 0)
        let svg = try String(contentsOf: url, encoding: .utf8)
        let line = try #require(svg.split(separator: "\n").first { $0.hasPrefix("<path class=\"curve\"") })
        let d = String(try #require(line.split(separator: "\"").dropFirst(3).first))
        // 1 → 0.2 over frames 1…15 and 0.2 → 1 over frames 31…60: one step into each fade (frames 1 and 31,
        // after a frame without a change), then a segment per frame.
        #expect(count("V", in: d) == 2)
        #expect(count("L", in: d) == 14 + 29)
    }

    @Test func aTransactionAPerformerEmittedIsMarkedInEachPanel() throws {
        let root = MotionHost.fixtures.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let folder = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("shake.svg")
        let result = try MotionHost.run(
            ["run", "Examples/shake-to-reset.json", "--plugin-path", "manifests", "--plot", url.path], in: root)
        #expect(result.status == 0)
        let svg = try String(contentsOf: url, encoding: .utf8)
        // ShakeDetector emits once, at the recording's burst (5.63 s): one mark in each of the three panels,
        // and the legend names it. Without emissions (basic.json) there is neither.
        let marks = svg.split(separator: "\n").filter { $0.hasPrefix("<line class=\"emission\"") }
        #expect(marks.count == 3)
        #expect(count("<path class=\"emission-marker\"", in: svg) == 3)
        #expect(svg.contains(">emitted</text>"))
        let (_, plain) = try plot("basic.json")
        #expect(!plain.contains("class=\"emission\"") && !plain.contains(">emitted</text>"))
    }

    @Test func manyCommitsAreMarkedAsShortTicks() throws {
        let folder = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let transactions = (0..<100).map { i in
            "{\"at\": \(Double(i) / 50), \"operations\": [{\"op\": \"add\", \"target\": \"dot\", \"plan\": {\"type\": \"SetValue\", \"property\": \"x\", \"value\": \(i)}}]}"
        }
        let scene =
            "{\"sceneVersion\": 1, \"duration\": 2, \"targets\": [{\"name\": \"dot\", \"properties\": {\"x\": -1}}], \"transactions\": [\(transactions.joined(separator: ","))]}"
        try Data(scene.utf8).write(to: folder.appendingPathComponent("many.json"))
        let result = try MotionHost.runScene(["many.json", "--plot", "many.svg"], in: folder)
        #expect(result.status == 0)
        let svg = try String(contentsOf: folder.appendingPathComponent("many.svg"), encoding: .utf8)
        let marks = svg.split(separator: "\n").filter { $0.hasPrefix("<line class=\"commit\"") }
        #expect(marks.count == 100)
        // Panel top at y = 78: each tick reaches 6 px into the panel.
        #expect(marks.allSatisfy { $0.contains("y1=\"78.00\"") && $0.contains("y2=\"84.00\"") })
    }

    @Test func failedRunStillWritesItsPlotWithTheError() throws {
        let (result, svg) = try plot("unknown-plan.json")
        #expect(result.status == 1)
        #expect(svg.contains("<text class=\"failure\""));
        #expect(svg.contains("run failed: unknown-plan.json: $.transactions[1]"))
        #expect(count("<g class=\"panel\"", in: svg) == 1)
    }
}
