import FoundationEssentials
import Glibc
import MotionCore
import MotionFiles

/// Draws a run as an SVG picture: the scene's name as title, one stacked panel per animated
/// property (a property that changed at least once) with its own y range, one curve per component,
/// time axes in seconds, a legend per panel, activity intervals shaded and commit times marked.
///
/// A property holds its value until the frame in which it changes, which is what the timeline says: a change
/// after a frame or more without one is drawn as a step, and changes in consecutive frames (an animation) as
/// straight segments from frame to frame, which read as the motion they are. The time axis runs from 0 to the
/// end of the last frame (its time plus one frame period). Commit marks are drawn over the panel's border, with
/// a small triangle at its top edge, so a transaction at t = 0 shows too; transactions performers emitted (a
/// shake detected, say) have solid marks of their own, with a diamond. Plain string building; the output is
/// standalone SVG 1.1.
struct SVGPlot {
    /// The recorded run.
    let recording: PlotRecorder

    private static let width = 960.0
    private static let left = 78.0
    private static let right = 170.0
    private static let top = 78.0
    private static let panelHeight = 150.0
    private static let panelGap = 58.0
    private static let bottom = 56.0
    private static let colors = ["#1f6fb4", "#d1495b", "#2e9e5b", "#8a5cc2"]
    private static let componentNames = ["x", "y", "z", "w"]
    private static let activeFill = "#ffe9b8"
    private static let maximumCommitLines = 60
    private static let emissionColor = "#c2185b"

    private var plotWidth: Double { Self.width - Self.left - Self.right }

    /// The SVG document.
    func render() -> String {
        let animated = recording.series.filter { !$0.changes.isEmpty }
        let panelCount = max(animated.count, 1)
        let failureLines = recording.failure.map { Self.wrap("run failed: " + $0, width: 120) } ?? []
        let panelsBottom = Self.top + Double(panelCount) * Self.panelHeight + Double(panelCount - 1) * Self.panelGap
        let height = panelsBottom + Self.bottom + Double(failureLines.count) * 16
        // The last frame holds its values for one frame period: the time axis ends there.
        let endTime = recording.endTime + 1 / recording.frameRate
        let xTicks = Self.ticks(from: 0, to: endTime, count: 8)

        var svg = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(f(Self.width))" height="\(f(height))" viewBox="0 0 \(f(Self.width)) \(f(height))" font-family="Helvetica, Arial, sans-serif" font-size="12">

            """
        svg += "<title>\(escape(recording.name))</title>\n"
        svg += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
        svg +=
            "<text x=\"\(f(Self.left))\" y=\"30\" font-size=\"20\" font-weight=\"bold\" fill=\"#222\">\(escape(recording.name))</text>\n"
        let subtitle =
            "\(recording.scenePath) · \(JSONText.number(recording.frameRate)) fps · \(recording.frameCount) frames · \(JSONText.number(recording.endTime)) s"
        svg += "<text x=\"\(f(Self.left))\" y=\"50\" fill=\"#666\">\(escape(subtitle))</text>\n"
        // Legend of the shading and the commit marks, top right.
        let legendX = Self.left + plotWidth - 200
        svg += "<g id=\"legend-activity\">"
        svg +=
            "<rect x=\"\(f(legendX))\" y=\"38\" width=\"18\" height=\"12\" fill=\"\(Self.activeFill)\" stroke=\"#e0b050\" stroke-width=\"0.5\"/>"
        svg += "<text x=\"\(f(legendX + 24))\" y=\"48\" fill=\"#444\">active</text>"
        svg +=
            "<line x1=\"\(f(legendX + 80))\" y1=\"44\" x2=\"\(f(legendX + 98))\" y2=\"44\" stroke=\"#888\" stroke-dasharray=\"3 2\"/>"
        svg += "<text x=\"\(f(legendX + 104))\" y=\"48\" fill=\"#444\">transaction</text>"
        if !recording.emissions.isEmpty {
            svg +=
                "<line x1=\"\(f(legendX + 176))\" y1=\"44\" x2=\"\(f(legendX + 194))\" y2=\"44\" stroke=\"\(Self.emissionColor)\" stroke-width=\"1.5\"/>"
            svg += "<text x=\"\(f(legendX + 200))\" y=\"48\" fill=\"#444\">emitted</text>"
        }
        svg += "</g>\n"

        if animated.isEmpty {
            let y = Self.top
            svg += panelFrame(y: y, xTicks: xTicks, endTime: endTime, isLast: true)
            svg +=
                "<text x=\"\(f(Self.left + plotWidth / 2))\" y=\"\(f(y + Self.panelHeight / 2))\" text-anchor=\"middle\" fill=\"#888\">no property changed during the run</text>\n"
        }
        for (i, series) in animated.enumerated() {
            let y = Self.top + Double(i) * (Self.panelHeight + Self.panelGap)
            svg += panel(series, y: y, xTicks: xTicks, endTime: endTime, isLast: i == animated.count - 1)
        }
        for (i, line) in failureLines.enumerated() {
            let y = panelsBottom + Self.bottom + Double(i) * 16
            svg +=
                "<text class=\"failure\" x=\"\(f(Self.left))\" y=\"\(f(y))\" fill=\"#b00020\">\(escape(line))</text>\n"
        }
        svg += "</svg>\n"
        return svg
    }

    private func panelFrame(y: Double, xTicks: [Double], endTime: Double, isLast: Bool) -> String {
        var out = ""
        // Activity shading.
        for interval in recording.activeIntervals {
            let x0 = xPosition(interval.lowerBound, endTime)
            let x1 = max(xPosition(interval.upperBound, endTime), x0 + 1)
            out +=
                "<rect class=\"active\" x=\"\(f(x0))\" y=\"\(f(y))\" width=\"\(f(x1 - x0))\" height=\"\(f(Self.panelHeight))\" fill=\"\(Self.activeFill)\"/>\n"
        }
        // Vertical grid and time ticks.
        for tick in xTicks {
            let x = xPosition(tick, endTime)
            out +=
                "<line x1=\"\(f(x))\" y1=\"\(f(y))\" x2=\"\(f(x))\" y2=\"\(f(y + Self.panelHeight))\" stroke=\"#e6e6e6\"/>\n"
            out +=
                "<line x1=\"\(f(x))\" y1=\"\(f(y + Self.panelHeight))\" x2=\"\(f(x))\" y2=\"\(f(y + Self.panelHeight + 5))\" stroke=\"#444\"/>\n"
            out +=
                "<text x=\"\(f(x))\" y=\"\(f(y + Self.panelHeight + 18))\" text-anchor=\"middle\" fill=\"#444\">\(Self.label(tick, ticks: xTicks))</text>\n"
        }
        // Commit marks: a dashed line across the panel at each distinct commit time; when there are
        // more than fit, a short tick at the panel's top edge instead.
        let marks = distinctPositions(recording.commits.map(\.time), endTime)
        let markBottom = marks.count <= Self.maximumCommitLines ? y + Self.panelHeight : y + 6
        out +=
            "<rect x=\"\(f(Self.left))\" y=\"\(f(y))\" width=\"\(f(plotWidth))\" height=\"\(f(Self.panelHeight))\" fill=\"none\" stroke=\"#444\"/>\n"
        // Over the border, so that a mark at t = 0 is not hidden under it, with a triangle at the top edge.
        for x in marks {
            out +=
                "<line class=\"commit\" x1=\"\(f(x))\" y1=\"\(f(y))\" x2=\"\(f(x))\" y2=\"\(f(markBottom))\" stroke=\"#666\" stroke-dasharray=\"3 2\"/>\n"
            out +=
                "<path class=\"commit-marker\" d=\"M\(f(x - 4)) \(f(y))H\(f(x + 4))L\(f(x)) \(f(y + 6))Z\" fill=\"#666\"/>\n"
        }
        // Emissions (a performer's own transactions, e.g. a shake detected): a solid line and a diamond.
        let emitted = distinctPositions(recording.emissions.map(\.time), endTime)
        let emittedBottom = emitted.count <= Self.maximumCommitLines ? y + Self.panelHeight : y + 6
        for x in emitted {
            out +=
                "<line class=\"emission\" x1=\"\(f(x))\" y1=\"\(f(y))\" x2=\"\(f(x))\" y2=\"\(f(emittedBottom))\" stroke=\"\(Self.emissionColor)\" stroke-width=\"1.5\" stroke-opacity=\"0.8\"/>\n"
            out +=
                "<path class=\"emission-marker\" d=\"M\(f(x)) \(f(y))L\(f(x + 4)) \(f(y + 4))L\(f(x)) \(f(y + 8))L\(f(x - 4)) \(f(y + 4))Z\" fill=\"\(Self.emissionColor)\"/>\n"
        }
        if isLast {
            out +=
                "<text x=\"\(f(Self.left + plotWidth / 2))\" y=\"\(f(y + Self.panelHeight + 38))\" text-anchor=\"middle\" fill=\"#222\">time (s)</text>\n"
        }
        return out
    }

    /// The x positions of `times`, in order, leaving out one within half a pixel of the one before.
    private func distinctPositions(_ times: [Double], _ endTime: Double) -> [Double] {
        var positions: [Double] = []
        for time in times {
            let x = xPosition(time, endTime)
            if let last = positions.last, abs(last - x) < 0.5 { continue }
            positions.append(x)
        }
        return positions
    }

    private func panel(_ series: PlotRecorder.Series, y: Double, xTicks: [Double], endTime: Double, isLast: Bool)
        -> String
    {
        let components = series.componentCount
        var values = series.changes.map(\.value)
        if let initial = series.initial { values.append(initial) }
        var low = Double.infinity
        var high = -Double.infinity
        for value in values {
            for c in 0..<value.count where value[c].isFinite {
                low = min(low, value[c])
                high = max(high, value[c])
            }
        }
        if !low.isFinite {
            low = 0
            high = 1
        }
        if high - low < 1e-12 {
            let pad = max(abs(high) * 0.1, 1)
            low -= pad
            high += pad
        }
        // 8 % headroom, so a curve at its extreme does not run along the panel's border.
        let headroom = (high - low) * 0.08
        low -= headroom
        high += headroom
        let yTicks = Self.ticks(from: low, to: high, count: 5)
        func yPosition(_ v: Double) -> Double { y + Self.panelHeight - (v - low) / (high - low) * Self.panelHeight }

        let unit = recording.units[series.property].flatMap { $0.isEmpty ? nil : $0 }
        var out = "<g class=\"panel\" id=\"\(escape("panel-\(series.target).\(series.property)"))\">\n"
        out +=
            "<text x=\"\(f(Self.left))\" y=\"\(f(y - 8))\" font-size=\"14\" font-weight=\"bold\" fill=\"#222\">\(escape("\(series.target).\(series.property)"))\(unit.map { " <tspan font-weight=\"normal\" fill=\"#666\">(\(escape($0)))</tspan>" } ?? "")</text>\n"
        out += panelFrame(y: y, xTicks: xTicks, endTime: endTime, isLast: isLast)
        for tick in yTicks {
            let ty = yPosition(tick)
            out +=
                "<line x1=\"\(f(Self.left))\" y1=\"\(f(ty))\" x2=\"\(f(Self.left + plotWidth))\" y2=\"\(f(ty))\" stroke=\"#000\" stroke-opacity=\"0.08\"/>\n"
            out +=
                "<line x1=\"\(f(Self.left - 5))\" y1=\"\(f(ty))\" x2=\"\(f(Self.left))\" y2=\"\(f(ty))\" stroke=\"#444\"/>\n"
            out +=
                "<text x=\"\(f(Self.left - 8))\" y=\"\(f(ty + 4))\" text-anchor=\"end\" fill=\"#444\">\(Self.label(tick, ticks: yTicks))</text>\n"
        }
        let yLabel = series.property + (unit.map { " (\($0))" } ?? "")
        let labelY = y + Self.panelHeight / 2
        out +=
            "<text x=\"18\" y=\"\(f(labelY))\" transform=\"rotate(-90 18 \(f(labelY)))\" text-anchor=\"middle\" fill=\"#444\">\(escape(yLabel))</text>\n"

        for c in 0..<components {
            var path = ""
            var current: Double?
            var changedAt: Double?  // the time of the last change drawn, nil for the initial value
            if let initial = series.initial, c < initial.count {
                current = initial[c]
                path = "M\(f(xPosition(0, endTime))) \(f(yPosition(initial[c])))"
            }
            // A change of another component leaves this one where it is: nothing to draw.
            let framePeriod = 1 / recording.frameRate
            for change in series.changes where c < change.value.count && change.value[c] != current {
                let x = xPosition(change.time, endTime)
                let v = yPosition(change.value[c])
                if current == nil {
                    path = "M\(f(x)) \(f(v))"
                } else if let previous = changedAt, change.time - previous <= 1.5 * framePeriod {
                    path += "L\(f(x)) \(f(v))"  // moving frame after frame: a straight segment
                } else {
                    path += "H\(f(x))V\(f(v))"  // held, then changed: a step
                }
                current = change.value[c]
                changedAt = change.time
            }
            guard current != nil else { continue }
            path += "H\(f(xPosition(endTime, endTime)))"
            out +=
                "<path class=\"curve\" d=\"\(path)\" fill=\"none\" stroke=\"\(Self.colors[c])\" stroke-width=\"2\" stroke-linejoin=\"round\"/>\n"
            // Legend entry.
            let lx = Self.left + plotWidth + 16
            let ly = y + 14 + Double(c) * 20
            let name = components == 1 ? series.property : "\(series.property).\(Self.componentNames[c])"
            out +=
                "<line x1=\"\(f(lx))\" y1=\"\(f(ly))\" x2=\"\(f(lx + 22))\" y2=\"\(f(ly))\" stroke=\"\(Self.colors[c])\" stroke-width=\"2.5\"/>"
            out += "<text x=\"\(f(lx + 28))\" y=\"\(f(ly + 4))\" fill=\"#222\">\(escape(name))</text>\n"
        }
        out += "</g>\n"
        return out
    }

    private func xPosition(_ time: Double, _ endTime: Double) -> Double {
        Self.left + min(max(time / endTime, 0), 1) * plotWidth
    }

    /// Round tick values covering `low...high`: steps of 1, 2 or 5 times a power of ten.
    static func ticks(from low: Double, to high: Double, count: Int) -> [Double] {
        guard high > low, low.isFinite, high.isFinite else { return [low] }
        let rough = (high - low) / Double(max(count, 1))
        let magnitude = pow(10, floor(log10(rough)))
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= rough } ?? 10 * magnitude
        let first = (low / step).rounded(.up)
        let last = (high / step).rounded(.down)
        guard last >= first, last - first < 1000 else { return [low, high] }
        return stride(from: first, through: last, by: 1).map { $0 * step }
    }

    /// A tick label with as many decimals as the tick step needs.
    static func label(_ value: Double, ticks: [Double]) -> String {
        let step = ticks.count > 1 ? abs(ticks[1] - ticks[0]) : max(abs(value), 1)
        let decimals = max(0, Int(-floor(log10(step) + 1e-9)))
        let text = String(cFormat: "%.\(min(decimals, 10))f", value)
        return text.hasPrefix("-") && Double(text) == 0 ? String(text.dropFirst()) : text
    }

    /// Splits text into lines of at most `width` characters at spaces.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    private func f(_ value: Double) -> String { String(cFormat: "%.2f", value) }

    private func escape(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}
