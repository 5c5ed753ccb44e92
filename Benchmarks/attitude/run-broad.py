#!/usr/bin/env python3
"""Puts this project's AttitudeEstimator beside VQF and x-io Fusion on the BROAD trials: one table.

Usage (from anywhere):  python3 Benchmarks/attitude/run-broad.py [--data DIR] [--runs N]

- Creates a virtualenv in <package>/.build/attitude-venv (once) and installs `vqf`, `imufusion` and `numpy` from
  PyPI into it, then re-runs itself inside it.
- Builds and runs `attitude-benchmark` (release) for our figures (9-axis and 6-axis).
- Runs VQF (`vqf.VQF.updateBatch`, 9D and 6D) and x-io Fusion (`imufusion.Ahrs`, 9D) on the same trials with the
  same metric (BROAD: q_err = q_est * conj(q_ref), both IMU -> ENU; RMS over movement rows with a reference).
- 9D errors are computed directly, as in the BROAD code. 6D outputs have an arbitrary heading: before the metric,
  they are turned about the vertical by the circular mean of their heading error (the same rule as ours).
- Speed: samples per second, median of --runs runs, data preloaded. Ours and VQF run a compiled loop over the
  whole trial; imufusion has no batch call, so its figure includes one Python call per sample.
"""
import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / '.build' / 'attitude-venv'
PACKAGES = ['vqf', 'imufusion', 'numpy']


def ensure_venv():
    """Re-executes this script inside the virtualenv, creating it first if needed."""
    if Path(sys.prefix).resolve() == VENV.resolve():
        return
    python = VENV / 'bin' / 'python'
    if not python.exists():
        print(f'creating virtualenv {VENV} and installing {" ".join(PACKAGES)} ...', file=sys.stderr)
        subprocess.run([sys.executable, '-m', 'venv', str(VENV)], check=True)
        subprocess.run([str(python), '-m', 'pip', 'install', '--quiet', *PACKAGES], check=True)
    os.execv(str(python), [str(python), str(Path(__file__).resolve()), *sys.argv[1:]])


ensure_venv()

import imufusion  # noqa: E402
import numpy as np  # noqa: E402
from vqf import VQF  # noqa: E402

RATE = 285.714  # Hz, PROVENANCE.txt
NWU_TO_ENU = np.array([np.sqrt(0.5), 0, 0, np.sqrt(0.5)])  # +90 deg about z, w first


def quatmult(a, b):
    a = np.broadcast_to(a, np.broadcast_shapes(np.shape(a), np.shape(b)))
    b = np.broadcast_to(b, a.shape)
    w1, x1, y1, z1 = a.T
    w2, x2, y2, z2 = b.T
    return np.stack([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
                     w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                     w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2], 1)


def broad_errors(q_enu, ref, movement, remove_mean_heading):
    """Total / heading / inclination RMSE in degrees (BROAD's broad_utils.calculateRMSE)."""
    rows = movement & ~np.isnan(ref[:, 0])
    e = quatmult(q_enu[rows], ref[rows] * np.array([1, -1, -1, -1]))
    e /= np.linalg.norm(e, axis=1)[:, None]
    if remove_mean_heading:
        psi = 2 * np.arctan2(e[:, 3], e[:, 0])
        offset = np.arctan2(np.sin(psi).sum(), np.cos(psi).sum())
        e = quatmult(np.array([np.cos(-offset / 2), 0, 0, np.sin(-offset / 2)]), e)
    total = 2 * np.arccos(np.clip(np.abs(e[:, 0]), 0, 1))
    heading = 2 * np.arctan(np.abs(e[:, 3] / e[:, 0]))
    inclination = 2 * np.arccos(np.clip(np.sqrt(e[:, 0] ** 2 + e[:, 3] ** 2), 0, 1))
    return [np.degrees(np.sqrt(np.mean(x ** 2))) for x in (total, heading, inclination)]


def load(path):
    d = np.genfromtxt(path, delimiter=',', names=True)
    col = lambda *names: np.ascontiguousarray(np.stack([d[n] for n in names], 1))  # noqa: E731
    return dict(acc=col('acc_x_mps2', 'acc_y_mps2', 'acc_z_mps2'),
                gyr=col('gyr_x_radps', 'gyr_y_radps', 'gyr_z_radps'),
                mag=col('mag_x_uT', 'mag_y_uT', 'mag_z_uT'),
                ref=col('ref_qw', 'ref_qx', 'ref_qy', 'ref_qz'),
                movement=d['movement'] == 1)


def timed(fn, runs):
    rates, out = [], None
    for _ in range(runs):
        start = time.perf_counter()
        out, n = fn()
        rates.append(n / (time.perf_counter() - start))
    return out, float(np.median(rates))


def run_vqf(t, runs):
    def fn():
        return VQF(1 / RATE).updateBatch(t['gyr'], t['acc'], t['mag']), len(t['gyr'])
    out, rate = timed(fn, runs)
    return out['quat9D'], out['quat6D'], rate


def run_fusion(t, runs):
    # x-io's recommended settings (Fusion README / examples): gain 0.5, gyroscope range 2000 deg/s, acceleration
    # and magnetic rejection 10 deg, recovery after 5 s = 5 * sample rate samples.
    settings = imufusion.AhrsSettings(sample_rate=RATE, convention=imufusion.CONVENTION_NWU, gain=0.5,
                                      gyroscope_range=2000, acceleration_rejection=10, magnetic_rejection=10,
                                      rejection_timeout=int(5 * RATE))
    gyr_deg = np.ascontiguousarray(np.degrees(t['gyr']))
    acc_g = np.ascontiguousarray(t['acc'] / 9.81)
    mag = t['mag']

    def fn():
        ahrs = imufusion.Ahrs()
        ahrs.set_settings(settings)
        q = np.empty((len(gyr_deg), 4))
        for i in range(len(gyr_deg)):
            ahrs.update(gyr_deg[i], acc_g[i], mag[i])
            q[i] = ahrs.get_quaternion()
        return q, len(q)
    q, rate = timed(fn, max(1, runs // 3))
    return quatmult(NWU_TO_ENU, q), rate


def run_ours(data_dir, runs):
    subprocess.run(['swift', 'build', '-c', 'release', '--product', 'attitude-benchmark'], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    binary = subprocess.run(['swift', 'build', '-c', 'release', '--show-bin-path'], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout.strip()
    out = subprocess.run([str(Path(binary) / 'attitude-benchmark'), '--tsv', '--runs', str(runs), '--data',
                          str(data_dir)], check=True, capture_output=True, text=True).stdout
    ours = {}
    for line in out.splitlines():
        name, mode, total, heading, inclination, rate = line.split('\t')
        ours[(name, mode)] = ([float(total), float(heading), float(inclination)], float(rate))
    return ours


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--data', type=Path, default=(ROOT / '..' / 'shared' / 'data' / 'broad').resolve())
    parser.add_argument('--runs', type=int, default=7)
    args = parser.parse_args()

    files = sorted(args.data.glob('*.csv'))
    if not files:
        sys.exit(f'error: no BROAD .csv files in {args.data}. To fix, pass --data DIR.')
    ours = run_ours(args.data, args.runs)

    print(f'BROAD trials ({args.data}); RMSE over movement rows, degrees; speed = M samples/s on one core '
          f'(median of {args.runs} runs)')
    header = f'{"trial":<36}{"estimator":<31}{"total":>7}{"heading":>9}{"incl.":>7}{"Msamples/s":>12}'
    print(header)
    print('-' * len(header))
    for path in files:
        t = load(path)
        q9, q6, vqf_rate = run_vqf(t, args.runs)
        qf, fusion_rate = run_fusion(t, args.runs)
        rows = [
            ('ours 9D (AttitudeEstimator)', *ours[(path.stem, '9D')]),
            ('VQF 9D (vqf, C++ core)', broad_errors(q9, t['ref'], t['movement'], False), vqf_rate),
            ('x-io Fusion 9D (imufusion)', broad_errors(qf, t['ref'], t['movement'], False), fusion_rate),
            ('ours 6D, mean heading removed', *ours[(path.stem, '6D')]),
            ('VQF 6D, mean heading removed', broad_errors(q6, t['ref'], t['movement'], True), vqf_rate),
        ]
        for i, (label, (total, heading, inclination), rate) in enumerate(rows):
            name = path.stem if i == 0 else ''
            speed = f'{rate / 1e6:.2f}' + ('*' if label.startswith('x-io') else '')
            print(f'{name:<36}{label:<31}{total:>7.2f}{heading:>9.2f}{inclination:>7.2f}{speed:>12}')
    print('* imufusion is called once per sample from Python (it has no batch call): its speed is not the C core\'s.')


if __name__ == '__main__':
    main()
