"""poslab table against real numpy (Debian python3-numpy, /usr/bin/python3).

Every .npy file here is written by numpy itself (np.save, np.lib.format.write_array
for header versions 2.0 and 3.0), or written by hand and then read back with
np.load to show that numpy reads it: whatever numpy reads, poslab must read the
same way (shape, byte order, memory order) or refuse it with a clear message,
never read something else with exit 0. The expected figures are computed here
with numpy from np.load's array (norms, mean neighbour cosine, PCA variance by
numpy.linalg.eigvalsh on the covariance of the rows poslab says it sampled,
chosen here by the documented rule).

Usage: table_numpy.py POSLAB   (prints TAP-like ok / not ok lines; exit 1 on failure)
"""
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np

poslab = sys.argv[1]
failures = 0
tmp = tempfile.mkdtemp(prefix="poslab-npy-")


def check(name, cond, detail=""):
    global failures
    print(("ok - " if cond else "not ok - ") + name + ("" if cond else f"  [{detail}]"))
    if not cond:
        failures += 1


def path(name):
    return os.path.join(tmp, name)


def run(file, *flags):
    p = subprocess.run([poslab, "table", "--file", file, *flags], capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def table(n, d, seed=0):
    """Three planted directions (variances 4.5, 2, 0.5) over whole periods plus small noise."""
    rng = np.random.default_rng(seed)
    p = np.arange(n)
    t = np.full((n, d), 0.25) + 0.01 * rng.standard_normal((n, d))
    t[:, 1] += 3 * np.cos(2 * np.pi * p / n)
    t[:, 2 % d] += 2 * np.sin(2 * np.pi * p / n)
    t[:, 5 % d] += 1 * np.cos(4 * np.pi * p / n)
    return t.astype(np.float32)


def sample(n, m):
    """The documented rule: round(i·(n−1)/(m−1)), halves away from zero (all rows when m ≥ n)."""
    if m >= n:
        return list(range(n))
    return [int(math.floor(i * (n - 1) / (m - 1) + 0.5)) for i in range(m)]


def pca_rows(n, d, cap=1024):
    """pca_row_count: the largest m ≤ min(n, cap) with m·min(m, d)·d ≤ 2^30."""
    m = min(n, cap)
    while m > 2 and m * min(m, d) * d > 2 ** 30:
        m -= 1
    return m


def expected(a, max_distance=256, components=3):
    a = a.astype(np.float64)
    n, d = a.shape
    norms = np.sqrt((a * a).sum(axis=1))
    unit = np.divide(a, norms[:, None], out=np.zeros_like(a), where=norms[:, None] > 0)
    dmax = min(max_distance, n - 1, max(1, 2 ** 28 // (n * d)))
    nb = [float((unit[:-k] * unit[k:]).sum(axis=1).mean()) for k in range(1, dmax + 1)]
    rows = sample(n, pca_rows(n, d))
    x = a[rows]
    xc = x - x.mean(axis=0)
    m = len(rows)
    if d <= m:
        ev = np.linalg.eigvalsh(xc.T @ xc / m)
    else:
        ev = np.linalg.eigvalsh(xc @ xc.T / m)
    ev = np.sort(ev)[::-1][: min(components, m, d)]
    total = float((xc * xc).sum() / m)
    return {"shape": [n, d], "norms": norms, "nb": nb, "variance": ev, "explained": ev / total, "rows": rows}


def near(a, b, rel=1e-6, abs_=1e-9):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= abs_ + rel * np.abs(b)))


def figures_match(name, file, arr, rel=1e-6, flags=()):
    code, out, err = run(file, *flags)
    if code != 0:
        check(name, False, f"exit {code}: {err.strip()}")
        return None
    j = json.loads(out)
    e = expected(arr)
    parts = {
        "shape": j["shape"] == e["shape"],
        "norms": near(j["norms"], e["norms"], rel),
        "neighbour": near([x["similarity"] for x in j["neighbour"]], e["nb"], rel, 1e-7),
        "pca rows": j["pca"]["rowIndices"] == e["rows"],
        "variance": near(j["pca"]["variance"], e["variance"], 1e-5, 1e-7),
        "explained": near(j["pca"]["explained"], e["explained"], 1e-5, 1e-7),
    }
    bad = [k for k, v in parts.items() if not v]
    check(name, not bad, f"differs in {bad}: shape {j['shape']}")
    return j


def refused(name, file, pattern):
    code, out, err = run(file)
    ok = code == 2 and pattern in err and err.count("\n") == 1
    check(name, ok, f"exit {code}: {err.strip()[:200]}")


def write_header(name, header_text, data, version=1):
    """An .npy file with a hand-written header (padded to 64 bytes like numpy), then np.load reads it back."""
    h = header_text.encode("latin1")
    pre = 10 if version == 1 else 12
    pad = (-(pre + len(h) + 1)) % 64
    h = h + b" " * pad + b"\n"
    head = b"\x93NUMPY" + bytes([version, 0]) + (struct.pack("<H", len(h)) if version == 1 else struct.pack("<I", len(h)))
    with open(path(name), "wb") as f:
        f.write(head + h + data)
    return path(name)


a = table(64, 16)
# --- Files numpy writes --------------------------------------------------------
np.save(path("c.npy"), a)
figures_match("np.save float32, C order: figures as numpy computes them", path("c.npy"), a)
np.save(path("f.npy"), np.asfortranarray(a))
with open(path("f.npy"), "rb") as fh:
    np.lib.format.read_magic(fh)
    check("np.save of a Fortran-ordered array writes fortran_order True", np.lib.format.read_array_header_1_0(fh)[1] is True)
figures_match("fortran_order True (column by column): read as numpy reads it", path("f.npy"), np.load(path("f.npy")))
np.save(path("be.npy"), a.astype(">f4"))
figures_match("big-endian '>f4': read as numpy reads it", path("be.npy"), np.load(path("be.npy")))
np.save(path("bef.npy"), np.asfortranarray(a.astype(">f4")))
figures_match("big-endian and Fortran order together", path("bef.npy"), np.load(path("bef.npy")))
h16 = a.astype("<f2")
np.save(path("h.npy"), h16)
figures_match("float16 '<f2'", path("h.npy"), np.load(path("h.npy")).astype(np.float32))
np.save(path("hbe.npy"), np.asfortranarray(a.astype(">f2")))
figures_match("float16 big-endian, Fortran order", path("hbe.npy"), np.load(path("hbe.npy")).astype(np.float32))
for version in [(1, 0), (2, 0), (3, 0)]:
    name = f"v{version[0]}.npy"
    with open(path(name), "wb") as f:
        np.lib.format.write_array(f, a, version=version)
    check(f"numpy wrote header version {version[0]}.0", open(path(name), "rb").read(8)[6] == version[0])
    figures_match(f"header version {version[0]}.0", path(name), np.load(path(name)))
big = table(1500, 16, seed=3)
np.save(path("big.npy"), big)
j = figures_match("1500 rows: PCA on 1024 evenly spaced rows, as numpy computes it on the same rows", path("big.npy"), big)
check("1500 rows: 1024 rows sampled", j is not None and j["pca"]["rows"] == 1024)
wide = table(900, 2048, seed=4)
np.save(path("wide.npy"), wide)
j = figures_match("900 × 2048: the PCA's work cap samples 724 rows (m²·2048 ≤ 2^30)", path("wide.npy"), wide)
check("900 × 2048: 724 rows sampled", j is not None and j["pca"]["rows"] == 724, j and j["pca"]["rows"])
np.save(path("oned.npy"), np.arange(8, dtype=np.float32))
refused("1-D array refused: 1 dimension", path("oned.npy"), "has shape [8] (1 dimensions)")
np.save(path("threed.npy"), np.zeros((2, 3, 4), dtype=np.float32))
refused("3-D array refused: 3 dimensions", path("threed.npy"), "has shape [2, 3, 4] (3 dimensions)")
np.save(path("f64.npy"), a.astype(np.float64))
refused("float64 refused naming its type", path("f64.npy"), "is F64; the lab reads F32, F16 and BF16")
np.save(path("i4.npy"), np.zeros((2, 2), dtype=np.int32))
refused("int32 refused naming its type", path("i4.npy"), "is I32")

# --- Hand-written headers that numpy reads: poslab reads the same --------------
data = a.tobytes(order="C")
odd = {
    "keys in another order, no trailing comma": "{'shape': (64, 16), 'fortran_order': False, 'descr': '<f4'}",
    "odd spacing and tabs": "{ 'descr' :'<f4' ,\t'fortran_order':False,'shape':( 64 ,16 , ) , }",
    "double quotes": '{"descr": "<f4", "fortran_order": False, "shape": (64, 16)}',
    "no padding spaces needed between tokens": "{'descr':'<f4','fortran_order':False,'shape':(64,16)}",
}
for label, text in odd.items():
    f = write_header(label.replace(" ", "_") + ".npy", text, data)
    arr = np.load(f)
    check(f"numpy reads the header ({label})", arr.shape == (64, 16))
    figures_match(f"header {label}: read as numpy reads it", f, arr)
f = write_header("v2odd.npy", "{'fortran_order': True, 'shape': (16, 64), 'descr': '>f4', }", a.astype(">f4").tobytes(order="C"), version=2)
arr = np.load(f)
check("numpy reads a version 2.0 header, fortran True, '>f4', keys reordered", arr.shape == (16, 64))
figures_match("version 2.0, fortran True, '>f4': read as numpy reads it", f, arr)

# --- Headers numpy reads one way and the old parser another: refused ------------
dup = write_header("dup.npy", "{'descr': '>f4', 'fortran_order': False, 'shape': (32, 32), 'descr': '<f4', 'shape': (64, 16)}", data)
check("numpy reads a duplicated key as its last value", np.load(dup).shape == (64, 16))
refused("a duplicated key is refused (numpy takes the last, a reader taking the first gets another shape)", dup, "gives 'descr' twice")
inner = write_header("inner.npy", "{'descr': [('shape', '<f4')], 'fortran_order': False, 'shape': (4,)}", np.zeros(4, dtype=[("shape", "<f4")]).tobytes())
check("numpy reads a structured array whose field is named 'shape'", np.load(inner).shape == (4,))
refused("a key's name inside another value is not taken for the key: structured descr refused", inner, "the value of 'descr' is not a string")
extra = write_header("extra.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (64, 16), 'other': 1}", data)
refused("an unknown key is refused", extra, "the key 'other' is not one of")
missing = write_header("missing.npy", "{'descr': '<f4', 'shape': (64, 16)}", data)
refused("a missing key is refused", missing, "the key 'fortran_order' is missing")
notuple = write_header("notuple.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': [64, 16]}", data)
refused("a list for shape is refused", notuple, "is not a tuple")
paren = write_header("paren.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (1024)}", data[:4096])
refused("(n) without a comma is a number, not a tuple", paren, "without a comma")
trailing = write_header("trailing.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (64, 16)} x", data)
refused("text after the dict is refused", trailing, "text after the closing")
longer = write_header("longer.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (64, 16)}", data + b"\0" * 8)
refused("8 bytes more data than the shape: a size mismatch, not 'cut off'", longer, "which is 4096 bytes, but the file has 4104 bytes after the header")
shorter = write_header("shorter.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (64, 16)}", data[:-4])
refused("4 bytes short: cut off", shorter, "the file is cut off")
minor = bytearray(open(path("c.npy"), "rb").read())
minor[7] = 1
open(path("minor.npy"), "wb").write(minor)
refused("format version 1.1 refused (numpy reads 1.0, 2.0, 3.0)", path("minor.npy"), "version is 1.1")

if failures:
    print(f"{failures} failed")
sys.exit(1 if failures else 0)
