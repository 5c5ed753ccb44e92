import MotionPluginKit

/// Performs `ShakeDetector`: watches |userAcceleration| (g) in each device-motion sample and, when it has
/// stayed above the threshold for the minimum duration (measured in sample timestamps), emits the plan's
/// transaction once for that shake, then waits out the cooldown. Any number of detectors per target.
/// Holds an is-active token while samples stream.
final class ShakeDetectorPerformer: SinglePlanPerformer, FrameUpdating, DeviceMotionReceiving {
    private struct Detector {
        var plan: ShakeDetector
        var name: String?
        /// The transaction's JSON text.
        var transactionJSON: String
        /// s: the timestamp of the first sample of the current run above the threshold.
        var aboveSince: Double?
        /// Whether the current run above the threshold has fired.
        var hasFired = false
        /// s: no shake fires before this timestamp.
        var quietUntil = -Double.infinity
    }

    private let context: PerformerContext
    private var detectors: [Detector] = []
    private var activity = StreamActivity()

    init(context: PerformerContext) {
        self.context = context
    }

    deinit {
        activity.stop(context)
    }

    func removePlan(named name: String) throws {
        detectors.removeAll { $0.name == name }
        if detectors.isEmpty { activity.stop(context) }
    }

    func perform(_ shake: ShakeDetector, named name: String?) throws {
        try shake.validate()
        let text: String
        do {
            text = try shake.transaction.encodedText()
        } catch {
            throw PluginError.invalidPlan(field: "transaction", "cannot be encoded: \(error).")
        }
        detectors.append(Detector(plan: shake, name: name, transactionJSON: text))
    }

    func receive(sample: DeviceMotionSample) {
        guard !detectors.isEmpty else { return }
        let a = sample.userAcceleration
        let magnitude = (a.x * a.x + a.y * a.y + a.z * a.z).squareRoot()
        let time = sample.timestamp
        var due: [(json: String, operations: Int)] = []
        for index in detectors.indices {
            var detector = detectors[index]
            if magnitude > detector.plan.threshold {
                let since = detector.aboveSince ?? time
                detector.aboveSince = since
                // 1 µs of slack: sample timestamps are rounded by the recorder.
                if !detector.hasFired, time - since >= detector.plan.minimumDuration - 1e-6,
                    time >= detector.quietUntil
                {
                    detector.hasFired = true
                    detector.quietUntil = time + detector.plan.cooldown
                    due.append((detector.transactionJSON, detector.plan.operationCount))
                }
            } else {
                detector.aboveSince = nil
                detector.hasFired = false
            }
            detectors[index] = detector
        }
        activity.sampleReceived(context)
        // Emit after the loop: an emission may add plans to this very performer.
        for transaction in due {
            guard transaction.operations > 0 else {
                context.log(.info, "shake at \(time) s; the plan's transaction has no operations.")
                continue
            }
            do {
                try context.emit(transactionJSON: transaction.json)
            } catch {
                context.log(.error, "shake at \(time) s: emitting the plan's transaction failed: \(error)")
            }
        }
    }

    func update(frame: Frame) {
        guard let timeout = detectors.map(\.plan.timeout).max() else {
            activity.stop(context)
            return
        }
        activity.update(frame: frame, timeout: timeout, context)
    }
}
