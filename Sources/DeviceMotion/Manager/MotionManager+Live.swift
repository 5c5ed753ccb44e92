import Synchronization

extension MotionManager {
    /// A manager over a live source: each start opens a stream of the source, and the manager keeps the
    /// per-id state Core Motion keeps (intervals, active flags, latest samples, reference frame).
    /// - Parameter source: A `RecordingSource`, an `IIOSource`, or any `MotionSource`.
    /// - Returns: The manager. Its endpoints throw `MotionManagerError` (`unknownManager`,
    ///   `managerAlreadyExists`, `invalidUpdateInterval`); its streams finish with `sensorUnavailable`,
    ///   `referenceFrameUnavailable`, `unknownManager`, or the source's own error.
    public static func live(source: some MotionSource) -> MotionManager {
        let store = LiveMotionStore(source: source)
        return MotionManager(
            create: { id in try store.create(id) },
            destroy: { id in try store.destroy(id) },
            startDeviceMotionUpdates: { id, frame in
                store.start(id, .deviceMotion, endpoint: "startDeviceMotionUpdates", referenceFrame: frame) {
                    source.deviceMotionUpdates(referenceFrame: frame, interval: $0)
                } record: {
                    $0.deviceMotion = $1
                }
            },
            stopDeviceMotionUpdates: { id in try store.stop(id, .deviceMotion, endpoint: "stopDeviceMotionUpdates") },
            startAccelerometerUpdates: { id in
                store.start(id, .accelerometer, endpoint: "startAccelerometerUpdates") {
                    source.accelerometerUpdates(interval: $0)
                } record: {
                    $0.accelerometerData = $1
                }
            },
            stopAccelerometerUpdates: { id in
                try store.stop(id, .accelerometer, endpoint: "stopAccelerometerUpdates")
            },
            startGyroUpdates: { id in
                store.start(id, .gyro, endpoint: "startGyroUpdates") {
                    source.gyroUpdates(interval: $0)
                } record: {
                    $0.gyroData = $1
                }
            },
            stopGyroUpdates: { id in try store.stop(id, .gyro, endpoint: "stopGyroUpdates") },
            startMagnetometerUpdates: { id in
                store.start(id, .magnetometer, endpoint: "startMagnetometerUpdates") {
                    source.magnetometerUpdates(interval: $0)
                } record: {
                    $0.magnetometerData = $1
                }
            },
            stopMagnetometerUpdates: { id in
                try store.stop(id, .magnetometer, endpoint: "stopMagnetometerUpdates")
            },
            updateInterval: { id, sensor in try store.read(id, "updateInterval") { $0.intervals[sensor]! } },
            setUpdateInterval: { id, sensor, seconds in try store.setInterval(id, sensor, seconds) },
            isAvailable: { id, sensor in
                try store.read(id, "isAvailable") { _ in source.availableSensors.contains(sensor) }
            },
            isActive: { id, sensor in try store.read(id, "isActive") { $0.streams[sensor] != nil } },
            deviceMotion: { id in try store.read(id, "deviceMotion") { $0.deviceMotion } },
            accelerometerData: { id in try store.read(id, "accelerometerData") { $0.accelerometerData } },
            gyroData: { id in try store.read(id, "gyroData") { $0.gyroData } },
            magnetometerData: { id in try store.read(id, "magnetometerData") { $0.magnetometerData } },
            attitudeReferenceFrame: { id in try store.read(id, "attitudeReferenceFrame") { $0.referenceFrame } },
            availableReferenceFrames: { id in
                try store.read(id, "availableReferenceFrames") { _ in source.availableReferenceFrames }
            })
    }
}

/// A manager id as the store keeps it.
///
/// `AnyHashable` is not `Sendable`, yet ids are keys the caller hands over for good (Composable Core Motion's
/// interface, which this mirrors, uses `AnyHashable`). The id is only hashed, compared and described, never
/// mutated; ids are expected to be value types such as strings, integers or enums.
private struct ManagerID: Hashable, @unchecked Sendable, CustomStringConvertible {
    let value: AnyHashable
    init(_ value: AnyHashable) { self.value = value }
    var description: String { "\(value)" }
}

/// The per-id state of a live manager, behind one lock.
private final class LiveMotionStore<Source: MotionSource>: Sendable {
    struct RunningStream: Sendable {
        var generation: Int
        var task: Task<Void, Never>?
        var finish: @Sendable () -> Void
    }

    struct Manager: Sendable {
        var intervals = Dictionary(
            uniqueKeysWithValues: MotionManager.Sensor.allCases.map {
                ($0, MotionManager.defaultUpdateInterval)
            })
        var streams: [MotionManager.Sensor: RunningStream] = [:]
        var referenceFrame = ReferenceFrame.xArbitraryZVertical
        var deviceMotion: DeviceMotion?
        var accelerometerData: AccelerometerData?
        var gyroData: GyroData?
        var magnetometerData: MagnetometerData?
    }

    struct State: Sendable {
        var managers: [ManagerID: Manager] = [:]
        var generation = 0
    }

    let source: Source
    let state = Mutex(State())

    init(source: Source) {
        self.source = source
    }

    private static func unknown(_ id: ManagerID, _ endpoint: String) -> MotionManagerError {
        MotionManagerError(
            .unknownManager, "no motion manager has the id \(id). To fix, call create(\(id)) first", endpoint: endpoint)
    }

    func create(_ rawID: AnyHashable) throws {
        let id = ManagerID(rawID)
        try state.withLock { state throws(MotionManagerError) in
            guard state.managers[id] == nil else {
                throw MotionManagerError(
                    .managerAlreadyExists,
                    "a motion manager with the id \(id) exists already. To fix, destroy it "
                        + "first or use another id", endpoint: "create")
            }
            state.managers[id] = Manager()
        }
    }

    func destroy(_ rawID: AnyHashable) throws {
        let id = ManagerID(rawID)
        let streams = try state.withLock { state throws(MotionManagerError) in
            guard let manager = state.managers.removeValue(forKey: id) else { throw Self.unknown(id, "destroy") }
            return Array(manager.streams.values)
        }
        for stream in streams { Self.end(stream) }
    }

    func read<T: Sendable>(_ rawID: AnyHashable, _ endpoint: String, _ body: (Manager) -> T) throws -> T {
        let id = ManagerID(rawID)
        let manager = state.withLock { $0.managers[id] }
        guard let manager else { throw Self.unknown(id, endpoint) }
        return body(manager)
    }

    func setInterval(_ rawID: AnyHashable, _ sensor: MotionManager.Sensor, _ seconds: Double) throws {
        let id = ManagerID(rawID)
        guard seconds.isFinite, seconds >= 0 else {
            throw MotionManagerError(
                .invalidUpdateInterval,
                "the update interval must be a finite number of seconds ≥ 0, not \(seconds). "
                    + "To fix, pass for example 0.01 for 100 Hz", endpoint: "setUpdateInterval")
        }
        try state.withLock { state throws(MotionManagerError) in
            guard state.managers[id] != nil else { throw Self.unknown(id, "setUpdateInterval") }
            state.managers[id]!.intervals[sensor] = seconds
        }
    }

    func stop(_ rawID: AnyHashable, _ sensor: MotionManager.Sensor, endpoint: String) throws {
        let id = ManagerID(rawID)
        let stream = try state.withLock { state throws(MotionManagerError) in
            guard state.managers[id] != nil else { throw Self.unknown(id, endpoint) }
            return state.managers[id]!.streams.removeValue(forKey: sensor)
        }
        if let stream { Self.end(stream) }
    }

    private static func end(_ stream: RunningStream) {
        stream.finish()
        stream.task?.cancel()
    }

    /// Removes the stream of `sensor` if it is still generation `generation`.
    private func release(_ id: ManagerID, _ sensor: MotionManager.Sensor, generation: Int) {
        state.withLock { state in
            if state.managers[id]?.streams[sensor]?.generation == generation {
                state.managers[id]!.streams[sensor] = nil
            }
        }
    }

    private func failure(
        _ id: ManagerID, _ sensor: MotionManager.Sensor, _ endpoint: String, _ referenceFrame: ReferenceFrame?,
        _ managers: [ManagerID: Manager]
    ) -> MotionManagerError? {
        guard managers[id] != nil else { return Self.unknown(id, endpoint) }
        guard source.availableSensors.contains(sensor) else {
            return MotionManagerError(
                .sensorUnavailable,
                "the source has no \(sensor.rawValue) sensor. To fix, check "
                    + "isAvailable(id, .\(sensor.rawValue)) before starting", endpoint: endpoint)
        }
        if let referenceFrame, !source.availableReferenceFrames.contains(referenceFrame) {
            let frames = ReferenceFrame.allCases.filter(source.availableReferenceFrames.contains).map(\.name)
            return MotionManagerError(
                .referenceFrameUnavailable,
                "the source cannot give attitudes in \(referenceFrame.name); it offers "
                    + "\(frames.isEmpty ? "none" : frames.joined(separator: ", ")). To fix, start with one of "
                    + "availableReferenceFrames(id)", endpoint: endpoint)
        }
        return nil
    }

    func start<Element: Sendable>(
        _ rawID: AnyHashable, _ sensor: MotionManager.Sensor, endpoint: String, referenceFrame: ReferenceFrame? = nil,
        upstream: (Double) -> AsyncThrowingStream<Element, any Error>,
        record: @escaping @Sendable (inout Manager, Element) -> Void
    ) -> AsyncThrowingStream<Element, any Error> {
        let id = ManagerID(rawID)
        let (stream, continuation) = AsyncThrowingStream<Element, any Error>.makeStream()
        let opened = state.withLock { state -> Result<(Int, Double, RunningStream?), MotionManagerError> in
            if let error = failure(id, sensor, endpoint, referenceFrame, state.managers) { return .failure(error) }
            state.generation += 1
            let generation = state.generation
            if let referenceFrame { state.managers[id]!.referenceFrame = referenceFrame }
            let previous = state.managers[id]!.streams[sensor]
            state.managers[id]!.streams[sensor] = RunningStream(generation: generation, task: nil) {
                continuation.finish()
            }
            return .success((generation, state.managers[id]!.intervals[sensor]!, previous))
        }
        let generation: Int
        let interval: Double
        switch opened {
        case .failure(let error):
            continuation.finish(throwing: error)
            return stream
        case .success(let (g, i, previous)):
            generation = g
            interval = i
            if let previous { Self.end(previous) }
        }
        let samples = upstream(interval)
        let task = Task { [weak self] in
            do {
                for try await element in samples {
                    self?.state.withLock { state in
                        if state.managers[id]?.streams[sensor]?.generation == generation {
                            record(&state.managers[id]!, element)
                        }
                    }
                    continuation.yield(element)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
            self?.release(id, sensor, generation: generation)
        }
        let registered = state.withLock { state in
            guard state.managers[id]?.streams[sensor]?.generation == generation else { return false }
            state.managers[id]!.streams[sensor]!.task = task
            return true
        }
        if !registered { task.cancel() }
        continuation.onTermination = { [weak self] _ in
            task.cancel()
            self?.release(id, sensor, generation: generation)
        }
        return stream
    }
}
