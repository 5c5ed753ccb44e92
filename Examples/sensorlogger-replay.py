#!/usr/bin/env python3
"""Push a Sensor Logger export to a running `motion-host serve` exactly as the phone app's HTTP push does.

    motion-host serve Examples/shake-to-reset.json --plugin-path manifests --device-motion sensorlogger
    python3 Examples/sensorlogger-replay.py http://127.0.0.1:8765

Reads the export folder's CSV files (time in UTC epoch nanoseconds, x/y/z as the app writes them), and
every --batch seconds of recording POSTs /sensorlogger with
{"messageId": n, "sessionId": ..., "deviceId": ..., "payload": [{"name", "time", "values": {x, y, z}}]},
paced in real time (--speed 2 pushes twice as fast). Python standard library only.
Exit status: 0 when every push was accepted, 1 otherwise (the server's error is printed).
"""
import argparse
import csv
import json
import os
import sys
import time
import urllib.error
import urllib.request

SENSORS = {
    "TotalAcceleration.csv": "totalacceleration",
    "Accelerometer.csv": "accelerometer",
    "Gravity.csv": "gravity",
    "Gyroscope.csv": "gyroscope",
    "Magnetometer.csv": "magnetometer",
}


def read_export(folder):
    readings = []
    for file_name, name in SENSORS.items():
        path = os.path.join(folder, file_name)
        if not os.path.exists(path):
            continue
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                readings.append({
                    "name": name,
                    "time": int(row["time"]),
                    "values": {axis: float(row[axis]) for axis in ("x", "y", "z")},
                })
    readings.sort(key=lambda r: r["time"])
    return readings


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("url", nargs="?", default="http://127.0.0.1:8765", help="the serve address it printed")
    parser.add_argument("--recording", default=os.path.join(here, "recordings", "android-sensorlogger-excerpt"),
                        help="a Sensor Logger export folder (default: the bundled Android one)")
    parser.add_argument("--batch", type=float, default=0.2, help="seconds of recording per push (the app: a few hundred ms)")
    parser.add_argument("--speed", type=float, default=1.0, help="replay speed (1 = real time)")
    parser.add_argument("--token", default=os.environ.get("MOTION_HOST_TOKEN"), help="the serve token, if it has one")
    args = parser.parse_args()

    readings = read_export(args.recording)
    if not readings:
        print(f"error: {args.recording}: no Sensor Logger CSV files ({', '.join(SENSORS)})", file=sys.stderr)
        return 1
    headers = {"Content-Type": "application/json"}
    if args.token:
        headers["Authorization"] = "Bearer " + args.token
    endpoint = args.url.rstrip("/") + "/sensorlogger"
    first = readings[0]["time"]
    start = time.monotonic()
    message_id, index, accepted = 0, 0, 0
    while index < len(readings):
        end = first + int((message_id + 1) * args.batch * 1e9)
        batch = []
        while index < len(readings) and readings[index]["time"] < end:
            batch.append(readings[index])
            index += 1
        # The app sends a batch once its last reading was taken.
        due = start + (end - first) / 1e9 / args.speed
        time.sleep(max(0.0, due - time.monotonic()))
        body = json.dumps({"messageId": message_id, "sessionId": "replay", "deviceId": "sensorlogger-replay",
                           "payload": batch}).encode()
        request = urllib.request.Request(endpoint, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                accepted += json.load(response).get("accepted", 0)
        except urllib.error.HTTPError as error:
            print(f"error: push {message_id}: {error.code} {error.read().decode(errors='replace')}", file=sys.stderr)
            return 1
        except urllib.error.URLError as error:
            print(f"error: {endpoint}: {error.reason}. To fix, start motion-host serve with --device-motion sensorlogger",
                  file=sys.stderr)
            return 1
        message_id += 1
    print(f"pushed {len(readings)} readings in {message_id} messages; {accepted} used for device motion")
    return 0


if __name__ == "__main__":
    sys.exit(main())
